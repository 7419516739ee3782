/**
 * Payments collected from a customer's mobile-money wallet (SPEC §2.7, §4.7; PRODUCT §5). A
 * payment starts `pending`, waits for its payer and carries `expired_at` from creation.
 */
import { and, eq } from 'drizzle-orm'
import { payments, type Payment } from '../db/schema.js'
import { listPage, type DomainContext, type Page, type PageOf } from './context.js'
import { moneyRequestValues, type MoneyRequestInput } from './customer.js'
import { notFound } from './errors.js'
import { LIFECYCLES } from './lifecycles.js'

export function createPayment(ctx: DomainContext, input: MoneyRequestInput): Payment {
  return ctx.db
    .insert(payments)
    .values({ ...moneyRequestValues(ctx, input), status: LIFECYCLES.payment.initial })
    .returning()
    .get()
}

export function findPayment(ctx: DomainContext, reference: string, field = 'reference'): Payment {
  const payment = ctx.db
    .select()
    .from(payments)
    .where(and(eq(payments.tenantId, ctx.tenant.id), eq(payments.reference, reference)))
    .get()
  if (!payment) throw notFound(field, 'payment', reference)
  return payment
}

export function listPayments(ctx: DomainContext, page: Page): PageOf<Payment> {
  return listPage(ctx, payments, page)
}
