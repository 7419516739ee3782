import { describe, expect, it } from 'vitest'
import { startSandbox } from '../src/index.js'
import { fullIdentity, newSandbox } from './helpers.js'

/** A fixed sequence of requests touching every kind of generated data. */
async function script(seed: number) {
  const s = newSandbox({ seed })
  const bodies: string[] = []
  const record = async (method: string, path: string, body?: unknown) => {
    const res = await s.call(method, path, body)
    bodies.push(JSON.stringify(res.body))
    return res.body
  }
  const user = await record('POST', '/v1/card-users/create', { phone: '+221770000000' })
  await record('POST', `/__sandbox/card-users/${user.userCard.reference}/transition`, {
    to: 'passed',
  })
  const card = await record('POST', '/v1/cards/create', {
    card_user_reference: user.userCard.reference,
    card_brand: 'gim',
    card_type: 'physical',
  })
  await record('POST', `/__sandbox/cards/${card.data.card.reference}/transition`, { to: 'issued' })
  await record('GET', '/v1/cards')
  await record('POST', '/v1/card-users/create', fullIdentity())
  await record('GET', '/v1/card-users')
  await record('POST', '/v1/payments/create', {
    amount: 1500,
    network: 'wave-sn',
    customer: { full_name: 'Moussa Ba', phone: '+221770000002' },
  })
  await record('GET', '/v1/payments')
  return bodies
}

describe('--seed', () => {
  it('gives byte-identical responses for the same seed and requests on a manual clock', async () => {
    const first = await script(7)
    const second = await script(7)
    expect(second).toEqual(first)
  })

  it('gives different references for a different seed', async () => {
    const first = await script(7)
    const other = await script(8)
    expect(other[0]).not.toEqual(first[0])
  })
})

describe('startSandbox()', () => {
  it('serves on port 0 and reports its url and baseUrl', async () => {
    const sandbox = await startSandbox({ port: 0 })
    try {
      expect(sandbox.port).toBeGreaterThan(0)
      expect(sandbox.baseUrl).toBe(`http://127.0.0.1:${sandbox.port}/v1`)
      const res = await fetch(`${sandbox.baseUrl}/payments`, {
        headers: { Authorization: 'Bearer x' },
      })
      expect(res.status).toBe(200)
      // wallet_url points at this sandbox's own host and port
      const created = await fetch(`${sandbox.baseUrl}/payments/create`, {
        method: 'POST',
        headers: { Authorization: 'Bearer x', 'Content-Type': 'application/json' },
        body: JSON.stringify({
          amount: 100,
          network: 'mtn-ci',
          customer: { full_name: 'A B', phone: '+2250700000000' },
        }),
      })
      const body = (await created.json()) as any
      expect(body.data.payment.meta.wallet_url).toBe(
        `${sandbox.url}/__sandbox/checkout/${body.data.payment.reference}`,
      )
    } finally {
      await sandbox.close()
    }
  })
})

describe('the manual clock', () => {
  it('dates what is created after an advance at the advanced time', async () => {
    const s = newSandbox()
    const before = await s.call('GET', '/__sandbox/clock')
    expect(before.body.data).toEqual({
      mode: 'manual',
      now: '2026-01-01T00:00:00.000Z',
      now_ms: Date.parse('2026-01-01T00:00:00.000Z'),
      speed: 1,
    })
    await s.call('POST', '/__sandbox/clock/advance', { by: '1h30m' })
    const payment = await s.call('POST', '/v1/payments/create', {
      amount: 100,
      network: 'wave-sn',
      customer: { full_name: 'A B', phone: '+221770000000' },
    })
    expect(payment.body.data.payment.expired_at).toBe('2026-01-01T02:00:00.000Z')
  })
})
