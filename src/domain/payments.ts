/**
 * Payments collected from a customer's mobile-money wallet (SPEC §2.7, §4.7; PRODUCT §5). A
 * payment starts `pending`, waits for its payer and carries `expired_at` from creation.
 */
import { and, eq } from 'drizzle-orm'
import { payments, type Payment } from '../db/schema.js'
import { listPage, type DomainContext, type Page, type PageOf } from './context.js'
import { EXPIRY_MS, customerColumns, type CustomerInput } from './customer.js'
import { notFound } from './errors.js'
import { LIFECYCLES } from './lifecycles.js'

export function createPayment(
  ctx: DomainContext,
  input: { amount: number; network: string; partnerReference?: string; customer: CustomerInput },
): Payment {
  return ctx.db
    .insert(payments)
    .values({
      reference: ctx.ids.uuid(),
      slug: ctx.ids.uuid(),
      tenantId: ctx.tenant.id,
      partnerReference: input.partnerReference ?? ctx.ids.uuid(),
      network: input.network,
      amount: input.amount,
      ...customerColumns(input.customer),
      status: LIFECYCLES.payment.initial,
      expiredAt: ctx.now + EXPIRY_MS,
      createdAt: ctx.now,
      updatedAt: ctx.now,
    })
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
