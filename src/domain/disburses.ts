/**
 * Disburses: the business pays a customer's wallet or bank account from its float (SPEC §2.6,
 * §4.6; PRODUCT §5). A disburse starts `processing`: in one transaction its `partner_reference`
 * is checked unused and the float sufficient (422 otherwise), the amount held from the float,
 * and a `float_debit` business operation recorded.
 * It settles by itself after its delay; a failed disburse gives the money back to the float.
 */
import type { Disburse } from '../db/schema.js'
import { setOperationStatus } from '../store/business.js'
import {
  disburseByPartnerReference,
  disburseByReference,
  disbursePages,
  insertDisburse,
} from '../store/disburses.js'
import type { Page, PageOf } from '../store/rows.js'
import { atomically } from '../store/statements.js'
import { recordOperation } from './business.js'
import type { DomainContext } from './context.js'
import {
  assertNewPartnerReference,
  moneyRequestValues,
  type MoneyRequestInput,
} from './customer.js'
import { notFound } from './errors.js'
import { FLOAT, HOLDS, WORLD, assertFunds, move, type MoneyMove } from './ledger.js'
import { LIFECYCLES } from './lifecycles.js'
import { magicAmount } from './magic-values.js'
import { scheduleOutcome } from './schedule.js'

export { DISBURSE_NETWORKS } from '../db/values.js'

export function createDisburse(ctx: DomainContext, input: MoneyRequestInput): Promise<Disburse> {
  return atomically(ctx, async (ctx) => {
    await assertNewPartnerReference(
      ctx,
      [disburseByPartnerReference, 'disburse'],
      input.partnerReference,
    )
    await assertFunds(ctx, FLOAT, input.amount, 'amount')
    const disburse = await insertDisburse(ctx.db, {
      status: LIFECYCLES.disburse.initial,
      ...moneyRequestValues(ctx, input),
    })
    await recordOperation(ctx, {
      kind: 'float_debit',
      sourceReference: disburse.reference,
      amount: disburse.amount,
      description: `Disburse to ${disburse.customerFullName} via ${disburse.network}`,
      bankName: disburse.customerBankName || disburse.network,
      bankId: disburse.customerBankId || disburse.customerPhone,
      bankAccountName: disburse.customerBankAccountName || disburse.customerFullName,
    })
    await move(ctx, {
      from: FLOAT,
      to: HOLDS,
      amount: disburse.amount,
      source: disburse.reference,
      memo: 'hold disburse',
    })
    await scheduleOutcome(
      ctx,
      'disburse_settlement',
      { resource: 'disburses', key: disburse.reference, seq: disburse.seq, action: 'success' },
      magicAmount(disburse.amount, ['failed', 'success']),
    )
    return disburse
  })
}

export async function findDisburse(
  ctx: DomainContext,
  reference: string,
  field = 'reference',
): Promise<Disburse> {
  const disburse = await disburseByReference(ctx.db, ctx.tenant.id, reference)
  if (!disburse) throw notFound(field, 'disburse', reference)
  return disburse
}

export function listDisburses(ctx: DomainContext, page: Page): Promise<PageOf<Disburse>> {
  return disbursePages(ctx.db, ctx.tenant.id, page)
}

/**
 * A settled disburse's money leaves the sandbox; a failed one's goes back to the float. Its
 * `float_debit` business operation follows the outcome.
 */
export async function settleDisburse(
  ctx: DomainContext,
  disburse: Disburse,
  to: 'success' | 'failed',
): Promise<void> {
  await move(ctx, disburseMovement(disburse, to))
  await setOperationStatus(
    ctx.db,
    { sourceReference: disburse.reference, kind: 'float_debit' },
    to,
    ctx.now,
  )
}

/** The money a disburse's end moves: what was held goes out, or back to the float. */
export function disburseMovement(disburse: Disburse, to: 'success' | 'failed'): MoneyMove {
  const [memo, destination] =
    to === 'success' ? ['settle disburse', WORLD] : ['release disburse', FLOAT]
  return { from: HOLDS, to: destination, amount: disburse.amount, source: disburse.reference, memo }
}
