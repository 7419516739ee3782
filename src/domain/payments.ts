/**
 * Payments collected from a customer's mobile-money wallet (SPEC §2.7, §4.7; PRODUCT §5). A
 * payment starts `pending` and waits for its payer (checkout page, control plane); it becomes
 * `expired` when the sandbox clock passes `expired_at`. Its amount is on its way in from its
 * creation (ledger.ts INCOMING); a successful payment credits the float, a failed or expired one
 * calls it off.
 */
import type { Payment } from '../db/schema.js'
import {
  insertPayment,
  paymentByPartnerReference,
  paymentByReference,
  paymentPages,
} from '../store/payments.js'
import type { Page, PageOf } from '../store/rows.js'
import { atomically } from '../store/statements.js'
import type { DomainContext } from './context.js'
import {
  assertNewPartnerReference,
  moneyRequestValues,
  type MoneyRequestInput,
} from './customer.js'
import { notFound } from './errors.js'
import { recordOperation, type OperationInput } from './business.js'
import { FLOAT, INCOMING, WORLD, move, type MoneyMove } from './ledger.js'
import { LIFECYCLES } from './lifecycles.js'
import { magicAmount } from './magic-values.js'
import { scheduleAt, scheduleOutcome } from './schedule.js'

export function createPayment(ctx: DomainContext, input: MoneyRequestInput): Promise<Payment> {
  return atomically(ctx, async (ctx) => {
    await assertNewPartnerReference(
      ctx,
      [paymentByPartnerReference, 'payment'],
      input.partnerReference,
    )
    const payment = await insertPayment(ctx.db, {
      status: LIFECYCLES.payment.initial,
      ...moneyRequestValues(ctx, input),
    })
    await move(ctx, {
      from: WORLD,
      to: INCOMING,
      amount: payment.amount,
      source: payment.reference,
      memo: 'promise payment',
    })
    // "passes expired_at": due one millisecond after it
    await scheduleAt(ctx, payment.expiredAt + 1, {
      resource: 'payments',
      key: payment.reference,
      seq: payment.seq,
      action: 'expired',
    })
    // the payer does nothing by default; a scenario or a magic amount may decide for them
    await scheduleOutcome(
      ctx,
      'payment_outcome',
      { resource: 'payments', key: payment.reference, seq: payment.seq },
      magicAmount(payment.amount, ['failed', 'expired', 'success']),
    )
    return payment
  })
}

/** What a paid, failed or expired payment does to the ledger and the business operations. */
export async function settlePayment(
  ctx: DomainContext,
  payment: Payment,
  to: 'success' | 'failed' | 'expired',
): Promise<void> {
  await move(ctx, paymentMovement(payment, to))
  if (to === 'success') await recordOperation(ctx, paymentOperation(payment))
}

/**
 * The money a payment's end moves: paid, what was on its way in lands on the float, settled;
 * failed or expired, it is called off.
 */
export function paymentMovement(payment: Payment, to: 'success' | 'failed' | 'expired'): MoneyMove {
  const { amount, reference: source } = payment
  return to === 'success'
    ? { from: INCOMING, to: FLOAT, amount, source, memo: 'payment' }
    : { from: INCOMING, to: WORLD, amount, source, memo: `call off payment (${to})` }
}

/** The float credit a paid payment records. */
export function paymentOperation(payment: Payment): OperationInput {
  return {
    kind: 'float_credit',
    sourceReference: payment.reference,
    amount: payment.amount,
    description: `Payment from ${payment.customerFullName} via ${payment.network}`,
    bankName: payment.network,
    bankId: payment.customerPhone,
    bankAccountName: payment.customerFullName,
    status: 'success',
  }
}

export async function findPayment(
  ctx: DomainContext,
  reference: string,
  field = 'reference',
): Promise<Payment> {
  const payment = await paymentByReference(ctx.db, ctx.tenant.id, reference)
  if (!payment) throw notFound(field, 'payment', reference)
  return payment
}

export function listPayments(ctx: DomainContext, page: Page): Promise<PageOf<Payment>> {
  return paymentPages(ctx.db, ctx.tenant.id, page)
}
