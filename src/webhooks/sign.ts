/**
 * `x-alal-signature` (PRODUCT §7, from the service's docs and client libraries): the hex
 * HMAC-SHA512 of the exact body bytes, keyed with the tenant's secret. The deliverer signs with
 * it; `card-sandbox/testing` hands `verifySignature` and `signPayload` to a client's tests, and
 * drift checks a saved delivery's signature with the same check.
 */
import { createHmac, timingSafeEqual } from 'node:crypto'

export const SIGNATURE_HEADER = 'x-alal-signature'
export const EVENT_ID_HEADER = 'x-alal-event-id'
export const ATTEMPT_HEADER = 'x-alal-delivery-attempt'
/** Marks the events the real service is not known to send (PRODUCT §7). */
export const EXTENSION_HEADER = 'x-card-sandbox-extension'

export function sign(body: string | Uint8Array, secret: string): string {
  return createHmac('sha512', secret).update(body).digest('hex')
}

/**
 * Whether `header` (the `x-alal-signature` value) signs `rawBody` with `secret`. Give the body's
 * exact bytes, as received: a parsed and re-serialized body no longer matches.
 */
export function verifySignature(
  rawBody: string | Uint8Array,
  header: string | string[] | null | undefined,
  secret: string,
): boolean {
  if (typeof header !== 'string' || !/^[0-9a-f]{128}$/i.test(header)) return false
  const expected = Buffer.from(sign(rawBody, secret), 'hex')
  return timingSafeEqual(expected, Buffer.from(header, 'hex'))
}

/**
 * A payload signed as the sandbox signs a webhook: the body to post and its headers.
 * @example
 * const { body, headers } = signPayload({ event: 'card_creation.successful', data }, secret)
 * await fetch('http://localhost:3000/webhooks', { method: 'POST', body, headers })
 */
export function signPayload(
  payload: string | object,
  secret: string,
): { body: string; signature: string; headers: Record<string, string> } {
  const body = typeof payload === 'string' ? payload : JSON.stringify(payload)
  const signature = sign(body, secret)
  return {
    body,
    signature,
    headers: { 'content-type': 'application/json', [SIGNATURE_HEADER]: signature },
  }
}
