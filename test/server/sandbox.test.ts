import { request } from 'node:http'
import { describe, expect, it } from 'vitest'
import { createSandbox, startSandbox } from '../../src/index.js'
import { fullIdentity, newSandbox } from '../helpers.js'

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
    } finally {
      await sandbox.close()
    }
  })

  it("points wallet_url at the listener's address, never at the request's Host", async () => {
    const sandbox = await startSandbox({ port: 0 })
    try {
      // localhost:1 is one of the sandbox's names (the port is not checked), not its address
      const created = await postPayment(sandbox.port, 'localhost:1')
      expect(created.status, JSON.stringify(created.body)).toBe(200)
      const { reference, meta } = created.body.data.payment
      expect(meta.wallet_url).toBe(`${sandbox.url}/__sandbox/checkout/${reference}`)
    } finally {
      await sandbox.close()
    }
  })

  it('bound to a wildcard, points wallet_url at 127.0.0.1; --public-url wins over both', async () => {
    const wildcard = await startSandbox({ port: 0, host: '0.0.0.0' })
    const proxied = await startSandbox({ port: 0, publicUrl: 'https://sandbox.example.dev' })
    try {
      const first = await postPayment(wildcard.port, `127.0.0.1:${wildcard.port}`)
      expect(first.body.data.payment.meta.wallet_url).toMatch(
        new RegExp(`^http://127\\.0\\.0\\.1:${wildcard.port}/__sandbox/checkout/`),
      )
      const second = await postPayment(proxied.port, `127.0.0.1:${proxied.port}`)
      expect(second.body.data.payment.meta.wallet_url).toMatch(
        /^https:\/\/sandbox\.example\.dev\/__sandbox\/checkout\/[0-9a-f-]{36}$/,
      )
    } finally {
      await Promise.all([wildcard.close(), proxied.close()])
    }
  })
})

/** POST /v1/payments/create over a socket, with the Host header set by hand. */
function postPayment(port: number, host: string): Promise<{ status: number; body: any }> {
  const payload = JSON.stringify({
    amount: 100,
    network: 'mtn-ci',
    customer: { full_name: 'A B', phone: '+2250700000000' },
  })
  return new Promise((resolve, reject) => {
    const req = request(
      {
        host: '127.0.0.1',
        port,
        method: 'POST',
        path: '/v1/payments/create',
        headers: { Host: host, Authorization: 'Bearer x', 'Content-Type': 'application/json' },
      },
      (res) => {
        let text = ''
        res.setEncoding('utf8')
        res.on('data', (chunk) => (text += chunk))
        res.on('end', () => resolve({ status: res.statusCode!, body: JSON.parse(text) }))
      },
    )
    req.on('error', reject)
    req.end(payload)
  })
}

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

describe('GET /', () => {
  it('sends a browser to the dashboard', async () => {
    const { app, close } = createSandbox()
    const res = await app.request('/')
    close()
    expect(res.status).toBe(302)
    expect(res.headers.get('Location')).toBe('/__sandbox/ui')
  })
})
