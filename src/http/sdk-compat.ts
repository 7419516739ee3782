/**
 * `--sdk-compat on` (docs/official-sdks.md): the keys the official SDKs' models read but the
 * real service's documented answers do not show. Each function gives the keys to spread into
 * an answer, none when the option is off (the default): a client that passes only thanks to
 * them would break against the real service. They only add: a documented key keeps its name,
 * value and place.
 */
import type { Card, CardUser, Dispute } from '../db/schema.js'
import { createdAtJson, type Presenting } from './envelope.js'

/**
 * Every card answered (create, link, freeze, unfreeze, show, list): the last four digits under
 * both names the SDKs read (alal-python `last_four`, alal-node `last4`).
 */
export function sdkCardKeys(card: Card, p: Presenting) {
  if (!p.sdkCompat) return {}
  const lastFour = card.cardNumber === null ? null : card.cardNumber.slice(-4)
  return {
    last_four: lastFour,
    last4: lastFour,
    card_user_reference: card.cardUserReference,
    created_at: createdAtJson(card.createdAt, p),
  }
}

/** A card-user list record. */
export function sdkCardUserKeys(user: CardUser, p: Presenting) {
  if (!p.sdkCompat) return {}
  return { created_at: createdAtJson(user.createdAt, p) }
}

/**
 * Create card user: alal-python reads the new user as `cardUser` (the record show card user
 * answers), where the service answers `userCard`; spread beside `userCard`.
 */
export function sdkCreatedCardUserKeys(shown: () => Record<string, unknown>, p: Presenting) {
  if (!p.sdkCompat) return {}
  return { cardUser: shown() }
}

/** Show dispute and each dispute listed: its own reference and its transaction's client reference. */
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
