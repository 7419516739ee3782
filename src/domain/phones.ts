/**
 * Verify phone (`POST /v1/phone/verify`, the docs' "Miscellaneous" section): a phone and its
 * country, which no source says more about than the SDKs' request. The sandbox refuses only
 * its magic phone (magic-values.ts), so that a client's refusal path can be tested.
 */
import { refused } from './errors.js'
import { magicPhoneRefused } from './magic-values.js'

export const PHONE_NOT_VERIFIED = 'The phone could not be verified.'

export function verifyPhone(phone: string): void {
  if (magicPhoneRefused(phone)) throw refused('phone', PHONE_NOT_VERIFIED)
}
