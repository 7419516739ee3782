/**
 * Payments collected from a customer's mobile-money wallet (SPEC §2.7, §4.7; PRODUCT §5). A
 * payment starts `pending` and waits for its payer (checkout page, control plane); it becomes
 * `expired` when the sandbox clock passes `expired_at`. A successful payment credits the float.
 */
import { payments, type Payment } from '../db/schema.js'
import {
  atomically,
  findOwned,
  insertReturning,
  listPage,
  type DomainContext,
  type Page,
  type PageOf,
} from './context.js'
import { moneyRequestValues, type MoneyRequestInput } from './customer.js'
import { notFound, refused } from './errors.js'
import { recordOperation } from './business.js'
import { FLOAT, WORLD, move } from './ledger.js'
import { LIFECYCLES } from './lifecycles.js'
import { magicAmount } from '../engine/magic-values.js'
import { scheduleAt, scheduleOutcome } from './schedule.js'

export function createPayment(ctx: DomainContext, input: MoneyRequestInput): Payment {
  return atomically(ctx.db, () => {
    assertNewPartnerReference(ctx, input.partnerReference)
    const payment = insertReturning(ctx.db, payments, {
      ...moneyRequestValues(ctx, input),
      status: LIFECYCLES.payment.initial,
    })
    // "passes expired_at": due one millisecond after it
    scheduleAt(ctx, payment.expiredAt + 1, {
      resource: 'payments',
      key: payment.reference,
      action: 'expired',
    })
    // the payer does nothing by default; a scenario or a magic amount may decide for them
    scheduleOutcome(
      ctx,
      'payment_outcome',
      { resource: 'payments', key: payment.reference },
      magicAmount(payment.amount, ['failed', 'expired', 'success']),
    )
    return payment
  })
}

/** The payer paid: the money comes in from outside and lands on the float, settled. */
export function creditPayment(ctx: DomainContext, payment: Payment): void {
  move(ctx, {
    from: WORLD,
    to: FLOAT,
    amount: payment.amount,
    source: payment.reference,
    memo: 'payment',
  })
  recordOperation(ctx, {
    kind: 'float_credit',
    sourceReference: payment.reference,
    amount: payment.amount,
    description: `Payment from ${payment.customerFullName} via ${payment.network}`,
    bankName: payment.network,
    bankId: payment.customerPhone,
    bankAccountName: payment.customerFullName,
    status: 'success',
  })
}

export function findPayment(ctx: DomainContext, reference: string, field = 'reference'): Payment {
  const payment = findOwned(ctx, payments, payments.reference, reference)
  if (!payment) throw notFound(field, 'payment', reference)
  return payment
}

export function listPayments(ctx: DomainContext, page: Page): PageOf<Payment> {
  return listPage(ctx, payments, page)
}

/** A payment repeating a client `partner_reference` is refused (422), not collected twice. */
function assertNewPartnerReference(ctx: DomainContext, partnerReference: string | undefined): void {
  if (partnerReference === undefined) return
  const used = findOwned(ctx, payments, payments.partnerReference, partnerReference)
  if (used) {
    throw refused(
      'partner_reference',
      `The partner reference has already been used (payment ${used.reference}).`,
    )
  }
}
