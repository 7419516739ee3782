/**
 * `x-alal-signature` (PRODUCT §7, from the service's docs and client libraries): the hex
 * HMAC-SHA512 of the exact body bytes, keyed with the tenant's secret.
 */
import { createHmac } from 'node:crypto'

export const SIGNATURE_HEADER = 'x-alal-signature'
export const EVENT_ID_HEADER = 'x-alal-event-id'
export const ATTEMPT_HEADER = 'x-alal-delivery-attempt'
/** Marks the events the real service is not known to send (PRODUCT §7). */
export const EXTENSION_HEADER = 'x-card-sandbox-extension'

export function sign(body: string | Uint8Array, secret: string): string {
  return createHmac('sha512', secret).update(body).digest('hex')
}
