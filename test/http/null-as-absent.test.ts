/**
 * A JSON null in a /v1 body counts as an absent field (PRODUCT §4), as the real
 * service (Laravel) reads it: alal-php sends `"code": null` on every wallet-to-card.
 */
import { describe, expect, it } from 'vitest'
import { withoutNulls } from '../../src/http/validate.js'
import { newSandbox } from '../helpers.js'

const WALLET_TO_CARD = '/v1/transactions/create/wallet-to-card'

async function cardOf(sb: ReturnType<typeof newSandbox>) {
  return (await sb.issuedCard()).reference
}

describe('null in a /v1 body', () => {
  it('is an absent optional field: a wave pull with "code": null is accepted, as without it', async () => {
    const sb = newSandbox()
    const card = await cardOf(sb)
    const body = { amount: 5000, card_reference: card, phone: '+2250700000001', network: 'wave-ci' }
    const withNull = await sb.call('POST', WALLET_TO_CARD, { ...body, code: null, reference: null })
    expect(withNull.status, JSON.stringify(withNull.body)).toBe(200)
    expect(withNull.body.data.transaction).toMatchObject({ network: 'wave-ci', status: 'pending' })
    // an absent reference is made up, as when the key is left out
    const without = await sb.call('POST', WALLET_TO_CARD, body)
    expect(Object.keys(withNull.body.data.transaction)).toEqual(
      Object.keys(without.body.data.transaction),
    )
    expect(withNull.body.data.transaction.reference).toMatch(/^[0-9a-f-]{36}$/)
  })

  it('is a missing required field, named as such', async () => {
    const sb = newSandbox()
    const card = await cardOf(sb)
    const res = await sb.call('POST', WALLET_TO_CARD, {
      amount: null,
      card_reference: card,
      phone: '+2250700000001',
      network: 'orange-money-ci',
      code: null,
    })
    expect(res.status).toBe(422)
    expect(res.body.errors).toEqual({
      amount: ['The amount field is required.'],
      code: ['The code field is required when network is orange-money-ci.'],
    })
  })

  it('counts as absent inside a nested object too', () => {
    expect(withoutNulls({ a: null, b: { c: null, d: 1 }, e: [null, 2], f: 'x' })).toEqual({
      b: { d: 1 },
      e: [null, 2],
      f: 'x',
    })
  })

  it('keeps a field called __proto__ as data, never as a prototype', () => {
    // with a null to leave out (a copy is made) and without (the body as parsed)
    for (const text of [
      '{"__proto__": {"polluted": true}, "a": 1, "b": null}',
      '{"__proto__": {"polluted": true}, "a": 1}',
    ]) {
      const kept = withoutNulls(JSON.parse(text)) as Record<string, unknown>
      expect(Object.keys(kept)).toEqual(['__proto__', 'a'])
      expect(kept.polluted).toBeUndefined()
      expect(Object.getOwnPropertyDescriptor(kept, '__proto__')?.value).toEqual({ polluted: true })
    }
  })

  it('gives a body without any null back as it came', () => {
    const body = { card_brand: 'visa', nested: { a: 1 }, list: [null] }
    expect(withoutNulls(body)).toBe(body)
    expect(withoutNulls({ ...body, nested: { a: null } })).toEqual({ ...body, nested: {} })
  })
})
