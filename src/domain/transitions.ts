/**
 * `transition(resource, key, to)`: the one way a status changes, whoever asks (the control
 * plane, the scheduler running due jobs, and through it scenario and magic outcomes). Refuses illegal moves with the allowed next states
 * (PRODUCT §8) and applies each move's side effects in the same transaction, the resource's row
 * locked (store/locks.ts) so that two moves of it at once on two replicas take turns.
 */
import type { CardUser, Disburse, Payment, Transaction } from '../db/schema.js'
import { updateCardUser } from '../store/card-users.js'
import { updateDisburse } from '../store/disburses.js'
import { cancelMoves } from '../store/jobs.js'
import { lockForMove } from '../store/locks.js'
import { updatePayment } from '../store/payments.js'
import { atomically } from '../store/statements.js'
import { updateTransaction } from '../store/transactions.js'
import { findCardUser } from './card-users.js'
import { cardBalance, findCard, setCardStatus } from './cards.js'
import type { DomainContext } from './context.js'
import { findDisburse, settleDisburse } from './disburses.js'
import { findDispute, setDisputeStatus } from './disputes.js'
import {
  TRANSITION_RESOURCES,
  assertMove,
  type Resource,
  type TransitionResource,
} from './lifecycles.js'
import { findPayment, settlePayment } from './payments.js'
import { findTransaction, settleTransaction } from './transactions.js'
import { cardCreationEvent, extensionEvent, verificationEvent } from './webhook-events.js'
import { enqueueEvent, enqueueRows, outboxRow } from './outbox.js'
import type { MoneyRequestEventData, TransactionEventData } from './webhook-payloads.js'

export type TransitionResult = { resource: Resource; key: string; from: string; to: string }

export function transition(
  ctx: DomainContext,
  resource: TransitionResource,
  key: string,
  to: string,
): Promise<TransitionResult> {
  return atomically(ctx, async (ctx) => {
    await lockForMove(ctx.db, ctx.tenant.id, resource, key)
    const { from, seq } = await MOVERS[resource](ctx, key, to)
    // the moves scheduled from the old state have nothing left to do (details still arrive)
    await cancelMoves(ctx.db, ctx.tenant.id, resource, seq)
    return { resource: TRANSITION_RESOURCES[resource], key, from, to }
  })
}

/** Makes the move; the state it left, and the row (`seq`) whose jobs it cancels. */
type Mover = (ctx: DomainContext, key: string, to: string) => Promise<{ from: string; seq: number }>

const MOVERS: Record<TransitionResource, Mover> = {
  async 'card-users'(ctx, reference, to) {
    const user = await findCardUser(ctx, reference, 'reference')
    assertMove('card_user', user.status, to)
    const identity = to === 'passed' ? generatedIdentity(ctx, user) : {}
    await updateCardUser(ctx.db, user.seq, {
      status: to as CardUser['status'],
      updatedAt: ctx.now,
      ...identity,
    })
    if (to === 'passed' || to === 'failed') {
      await enqueueEvent(
        ctx,
        verificationEvent(await findCardUser(ctx, reference, 'reference'), to),
      )
    }
    return { from: user.status, seq: user.seq }
  },
  async cards(ctx, reference, to) {
    const card = await findCard(ctx, reference, 'reference')
    const moved = await setCardStatus(ctx, card, to as typeof card.status)
    // a card leaving `issuing` has been created, or has failed to be
    if (card.status === 'issuing')
      await enqueueEvent(ctx, cardCreationEvent(moved, await cardBalance(ctx, moved), ctx.quirks))
    return { from: card.status, seq: card.seq }
  },
  async transactions(ctx, slug, to) {
    const transaction = await findTransaction(ctx, slug, 'slug')
    assertMove('transaction', transaction.status, to)
    await updateTransaction(ctx.db, transaction.seq, {
      status: to as 'success' | 'failed',
      updatedAt: ctx.now,
    })
    await settleTransaction(ctx, transaction, to as 'success' | 'failed')
    await enqueueExtension(ctx, 'transaction', to, transactionExtension(transaction))
    return { from: transaction.status, seq: transaction.seq }
  },
  async payments(ctx, reference, to) {
    const payment = await findPayment(ctx, reference)
    assertMove('payment', payment.status, to)
    await updatePayment(ctx.db, payment.seq, {
      status: to as 'success' | 'failed' | 'expired',
      updatedAt: ctx.now,
    })
    await settlePayment(ctx, payment, to as 'success' | 'failed' | 'expired')
    await enqueueExtension(ctx, 'payment', to, moneyRequestExtension(payment))
    return { from: payment.status, seq: payment.seq }
  },
  async disburses(ctx, reference, to) {
    const disburse = await findDisburse(ctx, reference)
    assertMove('disburse', disburse.status, to)
    await updateDisburse(ctx.db, disburse.seq, {
      status: to as 'success' | 'failed',
      updatedAt: ctx.now,
    })
    await settleDisburse(ctx, disburse, to as 'success' | 'failed')
    await enqueueExtension(ctx, 'disburse', to, moneyRequestExtension(disburse))
    return { from: disburse.status, seq: disburse.seq }
  },
  async disputes(ctx, reference, to) {
    const dispute = await findDispute(ctx, reference)
    await setDisputeStatus(ctx, dispute, to as typeof dispute.status)
    return { from: dispute.status, seq: dispute.seq }
  },
}

/** An opt-in event the real service is not known to send: `<resource>.<status>` (PRODUCT §7). */
async function enqueueExtension(
  ctx: DomainContext,
  resource: string,
  status: string,
  data: Record<string, unknown>,
) {
  const row = extensionRow(ctx, resource, status, data)
  if (row) await enqueueRows(ctx, [row])
}

/** The outbox row of an extension event, its id drawn; none when extensions are off. */
export function extensionRow(
  ctx: DomainContext,
  resource: string,
  status: string,
  data: Record<string, unknown>,
) {
  return outboxRow(ctx, extensionEvent(resource, status, { ...data, status }), { extension: true })
}

/** What a transaction's extension event says of it (with its new status). */
export function transactionExtension(
  transaction: Transaction,
): Omit<TransactionEventData<string>, 'status'> {
  return {
    slug: transaction.slug,
    reference: transaction.reference,
    card_reference: transaction.cardReference,
    kind: transaction.kind,
    amount: transaction.amount,
  }
}

/** What a payment's or disburse's extension event says of it (with its new status). */
export function moneyRequestExtension(
  request: Payment | Disburse,
): Omit<MoneyRequestEventData<string, string>, 'status'> {
  return {
    reference: request.reference,
    partner_reference: request.partnerReference,
    network: request.network,
    amount: request.amount,
  }
}

/**
 * PRODUCT §10: a user passed without identity data (widget flow) gets generated identity, so
 * that everything later sent about them (webhook `data`) is strings.
 */
export function generatedIdentity(ctx: DomainContext, user: CardUser) {
  const { faker } = ctx.ids
  return {
    firstName: user.firstName ?? faker.person.firstName(),
    lastName: user.lastName ?? faker.person.lastName(),
    address: user.address ?? `${faker.location.streetAddress()}, ${faker.location.city()}`,
    idNo: user.idNo ?? ctx.ids.digits(12),
    email: user.email ?? faker.internet.email().toLowerCase(),
  }
}
