/**
 * Event names and payloads (SPEC §6; PRODUCT §7). The one documented event is
 * `card_user_verification.successful`; the service's public docs also list its `.failed`
 * twin and `card_creation.successful` / `.failed`. Keys are in the spec's order, because
 * receivers re-serialise the parsed body to check the signature. Everything else is a
 * sandbox extension, sent only when asked for.
 */
import type { Card, CardUser } from '../db/schema.js'
import type { WebhookPayload } from './webhook-payloads.js'

export const EVENT_TYPES = [
  'card_user_verification.successful',
  'card_user_verification.failed',
  'card_creation.successful',
  'card_creation.failed',
] as const

export type EventType = (typeof EVENT_TYPES)[number]

export type EventPayload = { event: string; data: Record<string, unknown> }

export function verificationEvent(
  user: CardUser,
  status: 'passed' | 'failed',
): WebhookPayload<'card_user_verification.successful' | 'card_user_verification.failed'> {
  const identity = {
    reference: user.reference,
    // always strings (PRODUCT §10): a user failed before giving identity data has "" here
    first_name: user.firstName ?? '',
    last_name: user.lastName ?? '',
    address: user.address ?? '',
    id_no: user.idNo ?? '',
    phone: user.phone,
    email: user.email ?? '',
  }
  return status === 'passed'
    ? { event: 'card_user_verification.successful', data: { ...identity, status } }
    : { event: 'card_user_verification.failed', data: { ...identity, status } }
}

/**
 * `card_creation.*`: with quirks on, the brand as the API and the docs' webhook page name it
 * (`"Visa"`); clean, as it was asked for (`"visa"`).
 */
export function cardCreationEvent(
  card: Card,
  balance: number,
  quirks = false,
): WebhookPayload<'card_creation.successful' | 'card_creation.failed'> {
  const cardBrand = quirks ? brandName(card.brand) : card.brand
  if (card.status === 'failed') {
    return {
      event: 'card_creation.failed',
      data: {
        reference: card.reference,
        card_brand: cardBrand,
        card_type: card.type,
        status: 'failed',
      },
    }
  }
  return {
    event: 'card_creation.successful',
    data: {
      reference: card.reference,
      // an issued card has its details (a linked card's event waits for them)
      card_number: card.cardNumber!,
      card_brand: cardBrand,
      card_type: card.type,
      cvv2: card.cvv2!,
      expiry: card.expiry!,
      // *(docs)*: the balance travels as a string
      balance: String(balance),
      status: 'issued',
    },
  }
}

/** A brand as the real service names it: `visa` → `Visa`, `gim` → `Gim`. */
export function brandName<Brand extends string>(brand: Brand): Capitalize<Brand> {
  return (brand[0].toUpperCase() + brand.slice(1)) as Capitalize<Brand>
}

/** A sandbox extension event: `<resource>.<status>` with the resource's clean JSON. */
export function extensionEvent(
  resource: string,
  status: string,
  data: Record<string, unknown>,
): EventPayload {
  return { event: `${resource}.${status}`, data }
}
