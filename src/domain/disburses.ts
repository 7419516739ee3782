/**
 * Disburses: the business pays a customer's wallet or bank account from its float (SPEC §2.6,
 * §4.6; PRODUCT §5). A disburse starts `processing` and records a `float_debit` business
 * operation in the same transaction.
 */
import { and, eq } from 'drizzle-orm'
import { disburses, type Disburse } from '../db/schema.js'
import { recordOperation } from './business.js'
import { listPage, type DomainContext, type Page, type PageOf } from './context.js'
import { moneyRequestValues, type MoneyRequestInput } from './customer.js'
import { notFound } from './errors.js'
import { LIFECYCLES } from './lifecycles.js'
import { WALLET_NETWORKS } from './transactions.js'

export const DISBURSE_NETWORKS = ['bank', ...WALLET_NETWORKS] as const

export function createDisburse(ctx: DomainContext, input: MoneyRequestInput): Disburse {
  return ctx.db.transaction(() => {
    const disburse = ctx.db
      .insert(disburses)
      .values({ ...moneyRequestValues(ctx, input), status: LIFECYCLES.disburse.initial })
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
