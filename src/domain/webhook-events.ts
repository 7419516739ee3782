/**
 * Event names and payloads (SPEC §6; PRODUCT §7). The one documented event is
 * `card_user_verification.successful`; the service's public docs also list its `.failed`
 * twin and `card_creation.successful` / `.failed`. Keys are in the spec's order, because
 * receivers re-serialise the parsed body to check the signature. Everything else is a
 * sandbox extension, sent only when asked for.
 */
import type { Card, CardUser } from '../db/schema.js'

export const EVENT_TYPES = [
  'card_user_verification.successful',
  'card_user_verification.failed',
  'card_creation.successful',
  'card_creation.failed',
] as const

export type EventType = (typeof EVENT_TYPES)[number]

export type EventPayload = { event: string; data: Record<string, unknown> }

export function verificationEvent(user: CardUser, status: 'passed' | 'failed'): EventPayload {
  return {
    event:
      status === 'passed' ? 'card_user_verification.successful' : 'card_user_verification.failed',
    data: {
      reference: user.reference,
      // always strings (PRODUCT §10): a user failed before giving identity data has "" here
      first_name: user.firstName ?? '',
      last_name: user.lastName ?? '',
      address: user.address ?? '',
      id_no: user.idNo ?? '',
      phone: user.phone,
      email: user.email ?? '',
      status,
    },
  }
}

/**
 * `card_creation.*`: with quirks on, the brand as the API and the docs' webhook page name it
 * (`"Visa"`); clean, as it was asked for (`"visa"`).
 */
export function cardCreationEvent(card: Card, balance: number, quirks = false): EventPayload {
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
      card_number: card.cardNumber,
      card_brand: cardBrand,
      card_type: card.type,
      cvv2: card.cvv2,
      expiry: card.expiry,
      // *(docs)*: the balance travels as a string
      balance: String(balance),
      status: 'issued',
    },
  }
}

/** A brand as the real service names it: `visa` → `Visa`, `gim` → `Gim`. */
export function brandName(brand: string): string {
  return brand[0].toUpperCase() + brand.slice(1)
}

/** A sandbox extension event: `<resource>.<status>` with the resource's clean JSON. */
export function extensionEvent(
  resource: string,
  status: string,
  data: Record<string, unknown>,
): EventPayload {
  return { event: `${resource}.${status}`, data }
}
