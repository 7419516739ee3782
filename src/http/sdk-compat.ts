/**
 * `--sdk-compat on` (README "The official SDKs"): the keys the official SDKs' models read but
 * the real service's documented answers do not show. Each function gives the keys to spread
 * into an answer, none when the option is off (the default): a client that passes only thanks
 * to them would break against the real service.
 */
import type { Card, CardUser, Dispute } from '../db/schema.js'
import { createdAtJson, type Presenting } from './envelope.js'

/** Every card answered (create, link, freeze, unfreeze, show, list). */
export function sdkCardKeys(card: Card, p: Presenting) {
  if (!p.sdkCompat) return {}
  return {
    last_four: card.cardNumber === null ? null : card.cardNumber.slice(-4),
    card_user_reference: card.cardUserReference,
    created_at: createdAtJson(card.createdAt, p),
  }
}

/** A card-user list record. */
export function sdkCardUserKeys(user: CardUser, p: Presenting) {
  if (!p.sdkCompat) return {}
  return { created_at: createdAtJson(user.createdAt, p) }
}

/** Show dispute: its own reference and its transaction's client reference. */
export function sdkDisputeKeys(
  dispute: Dispute,
  transactionReference: string | null,
  p: Presenting,
) {
  if (!p.sdkCompat) return {}
  return { reference: dispute.reference, transaction_reference: transactionReference }
}

/**
 * Show transaction: the SDKs read `data.transaction`, which the quirks' top-level `transaction`
 * lacks; spread beside it.
 */
export function sdkTransactionKeys(transaction: Record<string, unknown>, p: Presenting) {
  if (!p.sdkCompat) return {}
  return { data: { transaction } }
}
