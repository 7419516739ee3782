/**
 * The business account's operations (SPEC §2.9, §4.8): a `float_debit` for each disburse and
 * a `float_credit` for each successful payment (PRODUCT §5). Fees are 0 in the sandbox. The
 * float itself is the ledger's `float` account.
 */
import type { BusinessOperation, businessOperations } from '../db/schema.js'
import { insertOperation, operationPages } from '../store/business.js'
import type { Page, PageOf } from '../store/rows.js'
import { atomically } from '../store/statements.js'
import type { DomainContext } from './context.js'
import { FLOAT, OPENING_FLOAT, WORLD, balanceOf, move } from './ledger.js'
import { LIFECYCLES } from './lifecycles.js'

/** SPEC §2.9 shows `account_transfer`, the only type the sandbox uses. */
const OPERATION_TYPE = 'account_transfer'

/** What a business operation records; the rest (its reference, instants, type) is its own. */
export type OperationInput = {
  kind: BusinessOperation['kind']
  sourceReference: string
  amount: number
  description: string
  bankName: string
  bankId: string
  bankAccountName: string
  status?: BusinessOperation['status']
}

export function recordOperation(
  ctx: DomainContext,
  input: OperationInput,
): Promise<BusinessOperation> {
  return insertOperation(ctx.db, operationRow(ctx, input))
}

/** The row of a business operation at the context's now, its reference drawn. */
export function operationRow(
  ctx: DomainContext,
  input: OperationInput,
): typeof businessOperations.$inferInsert {
  return {
    status: LIFECYCLES.business_operation.initial,
    ...input,
    reference: ctx.ids.uuid(),
    tenantId: ctx.tenant.id,
    fees: 0,
    type: OPERATION_TYPE,
    createdAt: ctx.now,
    updatedAt: ctx.now,
  }
}

export function listOperations(ctx: DomainContext, page: Page): Promise<PageOf<BusinessOperation>> {
  return operationPages(ctx.db, ctx.tenant.id, page)
}

/** A new (or reset) business opens with OPENING_FLOAT on its float, brought in from outside. */
export async function openFloat(ctx: Pick<DomainContext, 'db' | 'tenant' | 'now'>): Promise<void> {
  await move(ctx, {
    from: WORLD,
    to: FLOAT,
    amount: OPENING_FLOAT,
    source: 'opening',
    memo: 'opening float',
  })
}

/** The control plane's top-up of the float. */
export function fundFloat(ctx: DomainContext, amount: number): Promise<number> {
  return atomically(ctx, async (ctx) => {
    await move(ctx, { from: WORLD, to: FLOAT, amount, source: 'funding', memo: 'float top-up' })
    return await balanceOf(ctx, FLOAT)
  })
}
