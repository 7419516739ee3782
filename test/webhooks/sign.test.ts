/**
 * The signature the sandbox puts on a webhook (src/webhooks/sign.ts): made and checked as the
 * deliverer makes it, the hex HMAC-SHA512 of the exact bytes.
 */
import { createHmac } from 'node:crypto'
import { describe, expect, it } from 'vitest'
import { signPayload, verifySignature } from '../../src/webhooks/sign.js'

describe('verifySignature and signPayload', () => {
  const body = '{"event":"card_creation.successful","data":{"reference":"r"}}'
  const hmac = createHmac('sha512', 'key').update(body).digest('hex')

  it('signs as the sandbox signs (hex HMAC-SHA512 of the exact bytes), and verifies that', () => {
    const signed = signPayload(body, 'key')
    expect(signed).toEqual({
      body,
      signature: hmac,
      headers: { 'content-type': 'application/json', 'x-alal-signature': hmac },
    })
    expect(verifySignature(body, hmac, 'key')).toBe(true)
    expect(verifySignature(Buffer.from(body), hmac.toUpperCase(), 'key')).toBe(true)
    const fromObject = signPayload(JSON.parse(body), 'key')
    expect(fromObject.body).toBe(body)
  })

  it('refuses another body, another secret, and a missing or malformed header', () => {
    expect(verifySignature(body.replace('r"', 's"'), hmac, 'key')).toBe(false)
    expect(verifySignature(body, hmac, 'other')).toBe(false)
    for (const header of [undefined, null, '', hmac.slice(2), [hmac], `${hmac.slice(1)}g`])
      expect(verifySignature(body, header, 'key')).toBe(false)
  })
})
