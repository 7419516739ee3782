/**
 * `transition(resource, key, to)`: the one way a status changes, whoever asks (the control
 * plane, the scheduler running due jobs, and through it scenario and magic outcomes). Refuses illegal moves with the allowed next states
 * (PRODUCT §8) and applies each move's side effects in the same SQLite transaction.
 */
import type { CardUser } from '../db/schema.js'
import { updateCardUser } from '../store/card-users.js'
import { updateDisburse } from '../store/disburses.js'
import { cancelMoves } from '../store/jobs.js'
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
import { enqueueEvent } from './outbox.js'

export type TransitionResult = { resource: Resource; key: string; from: string; to: string }

export function transition(
  ctx: DomainContext,
  resource: TransitionResource,
  key: string,
  to: string,
): TransitionResult {
  return atomically(ctx, (ctx) => {
    const from = MOVERS[resource](ctx, key, to)
    // the moves scheduled from the old state have nothing left to do (details still arrive)
    cancelMoves(ctx.db, ctx.tenant.id, resource, key)
    return { resource: TRANSITION_RESOURCES[resource], key, from, to }
  })
}

type Mover = (ctx: DomainContext, key: string, to: string) => string

const MOVERS: Record<TransitionResource, Mover> = {
  'card-users'(ctx, reference, to) {
    const user = findCardUser(ctx, reference, 'reference')
    assertMove('card_user', user.status, to)
    const identity = to === 'passed' ? generatedIdentity(ctx, user) : {}
    updateCardUser(ctx.db, user.seq, {
      ...identity,
      status: to as CardUser['status'],
      updatedAt: ctx.now,
    })
    if (to === 'passed' || to === 'failed') {
      enqueueEvent(ctx, verificationEvent(findCardUser(ctx, reference, 'reference'), to))
    }
    return user.status
  },
  cards(ctx, reference, to) {
    const card = findCard(ctx, reference, 'reference')
    const moved = setCardStatus(ctx, card, to as typeof card.status)
    // a card leaving `issuing` has been created, or has failed to be
    if (card.status === 'issuing')
      enqueueEvent(ctx, cardCreationEvent(moved, cardBalance(ctx, moved), ctx.quirks))
    return card.status
  },
  transactions(ctx, slug, to) {
    const transaction = findTransaction(ctx, slug, 'slug')
    assertMove('transaction', transaction.status, to)
    updateTransaction(ctx.db, transaction.seq, {
      status: to as 'success' | 'failed',
      updatedAt: ctx.now,
    })
    settleTransaction(ctx, transaction, to as 'success' | 'failed')
    enqueueExtension(ctx, 'transaction', to, {
      slug: transaction.slug,
      reference: transaction.reference,
      card_reference: transaction.cardReference,
      kind: transaction.kind,
      amount: transaction.amount,
    })
    return transaction.status
  },
  payments(ctx, reference, to) {
    const payment = findPayment(ctx, reference)
    assertMove('payment', payment.status, to)
    updatePayment(ctx.db, payment.seq, {
      status: to as 'success' | 'failed' | 'expired',
      updatedAt: ctx.now,
    })
    settlePayment(ctx, payment, to as 'success' | 'failed' | 'expired')
    enqueueExtension(ctx, 'payment', to, {
      reference: payment.reference,
      partner_reference: payment.partnerReference,
      network: payment.network,
      amount: payment.amount,
    })
    return payment.status
  },
  disburses(ctx, reference, to) {
    const disburse = findDisburse(ctx, reference)
    assertMove('disburse', disburse.status, to)
    updateDisburse(ctx.db, disburse.seq, { status: to as 'success' | 'failed', updatedAt: ctx.now })
    settleDisburse(ctx, disburse, to as 'success' | 'failed')
    enqueueExtension(ctx, 'disburse', to, {
      reference: disburse.reference,
      partner_reference: disburse.partnerReference,
      network: disburse.network,
      amount: disburse.amount,
    })
    return disburse.status
  },
  disputes(ctx, reference, to) {
    const dispute = findDispute(ctx, reference)
    setDisputeStatus(ctx, dispute, to as typeof dispute.status)
    return dispute.status
  },
}

/** An opt-in event the real service is not known to send: `<resource>.<status>` (PRODUCT §7). */
function enqueueExtension(
  ctx: DomainContext,
  resource: string,
  status: string,
  data: Record<string, unknown>,
) {
  enqueueEvent(ctx, extensionEvent(resource, status, { ...data, status }), { extension: true })
}

/**
 * PRODUCT §10: a user passed without identity data (widget flow) gets generated identity, so
 * that everything later sent about them (webhook `data`) is strings.
 */
function generatedIdentity(ctx: DomainContext, user: CardUser) {
  const { faker } = ctx.ids
  return {
    firstName: user.firstName ?? faker.person.firstName(),
    lastName: user.lastName ?? faker.person.lastName(),
    address: user.address ?? `${faker.location.streetAddress()}, ${faker.location.city()}`,
    idNo: user.idNo ?? ctx.ids.digits(12),
    email: user.email ?? faker.internet.email().toLowerCase(),
  }
}
