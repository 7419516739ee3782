/**
 * Disburses: the business pays a customer's wallet or bank account from its float (SPEC §2.6,
 * §4.6; PRODUCT §5). A disburse starts `processing` and records a `float_debit` business
 * operation in the same transaction.
 */
import { and, eq } from 'drizzle-orm'
import { disburses, type Disburse } from '../db/schema.js'
import { recordOperation } from './business.js'
import { listPage, type DomainContext, type Page, type PageOf } from './context.js'
import { EXPIRY_MS, customerColumns, type CustomerInput } from './customer.js'
import { notFound } from './errors.js'
import { LIFECYCLES } from './lifecycles.js'

export const DISBURSE_NETWORKS = ['bank', 'orange-money-sn', 'wave-sn', 'orange-money-ci', 'wave-ci', 'mtn-ci', 'moov-ci', 'mtn-bj', 'moov-bj', 'moov-tg', 't-money-togo'] as const

export function createDisburse(
  ctx: DomainContext,
  input: { amount: number; network: string; partnerReference?: string; customer: CustomerInput },
): Disburse {
  return ctx.db.transaction(() => {
    const disburse = ctx.db
      .insert(disburses)
      .values({
        reference: ctx.ids.uuid(),
        slug: ctx.ids.uuid(),
        tenantId: ctx.tenant.id,
        partnerReference: input.partnerReference ?? ctx.ids.uuid(),
        network: input.network,
        amount: input.amount,
        ...customerColumns(input.customer),
        status: LIFECYCLES.disburse.initial,
        expiredAt: ctx.now + EXPIRY_MS,
        createdAt: ctx.now,
        updatedAt: ctx.now,
      })
      .returning()
      .get()
    recordOperation(ctx, {
      kind: 'float_debit',
      sourceReference: disburse.reference,
      amount: disburse.amount,
      description: `Disburse to ${disburse.customerFullName} via ${disburse.network}`,
      bankName: disburse.customerBankName || disburse.network,
      bankId: disburse.customerBankId || disburse.customerPhone,
      bankAccountName: disburse.customerBankAccountName || disburse.customerFullName,
    })
    return disburse
  })
}

export function findDisburse(ctx: DomainContext, reference: string, field = 'reference'): Disburse {
  const disburse = ctx.db
    .select()
    .from(disburses)
    .where(and(eq(disburses.tenantId, ctx.tenant.id), eq(disburses.reference, reference)))
    .get()
  if (!disburse) throw notFound(field, 'disburse', reference)
  return disburse
}

export function listDisburses(ctx: DomainContext, page: Page): PageOf<Disburse> {
  return listPage(ctx, disburses, page)
}
