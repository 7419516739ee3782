import { describe, expect, it } from 'vitest'
import { newSandbox } from './helpers.js'

const SOME_UUID = '3f2504e0-4f89-41d3-9a0c-0305e82c3301'

/** Every authenticated route of the sandbox, /v1 (SPEC §4) and the control plane (PRODUCT §8). */
const ROUTES: [method: string, path: string][] = [
  ['POST', '/v1/card-users/create'],
  ['POST', '/v1/card-users/resubmit'],
  ['GET', '/v1/card-users'],
  ['POST', '/v1/cards/create'],
  ['POST', '/v1/cards/link'],
  ['GET', '/v1/cards'],
  ['POST', '/v1/cards/freeze'],
  ['POST', '/v1/cards/unfreeze'],
  ['POST', '/v1/transactions/create/card-to-bank'],
  ['POST', '/v1/transactions/create/card-to-wallet'],
  ['POST', '/v1/transactions/create/wallet-to-card'],
  ['GET', '/v1/transactions'],
  ['POST', `/v1/disputes/update/${SOME_UUID}`],
  ['POST', '/v1/disburses/create'],
  ['GET', '/v1/disburses'],
  ['GET', `/v1/disburses/${SOME_UUID}`],
  ['POST', '/v1/payments/create'],
  ['GET', '/v1/payments'],
  ['GET', `/v1/payments/${SOME_UUID}`],
  ['GET', '/v1/business/operations'],
  ['POST', '/__sandbox/reset'],
  ['GET', '/__sandbox/clock'],
  ['PUT', '/__sandbox/clock'],
  ['POST', '/__sandbox/clock/advance'],
  ['POST', '/__sandbox/disputes'],
  ['POST', `/__sandbox/cards/${SOME_UUID}/transition`],
]

describe('authentication (PRODUCT §3)', () => {
  const { call } = newSandbox()

  it.each(ROUTES)('%s %s without a token is a 401 in the error shape', async (method, path) => {
    const res = await call(method, path, method === 'GET' ? undefined : {}, { token: null })
    expect(res.status).toBe(401)
    expect(res.body).toEqual({ message: 'Unauthenticated.', statusCode: 401 })
  })

  it.each(ROUTES)('%s %s with a malformed Authorization header is a 401', async (method, path) => {
    for (const header of ['Basic abc', 'Bearer', 'Bearer ', 'token abc', 'Bearer a b']) {
      const res = await call(method, path, method === 'GET' ? undefined : {}, {
        token: null,
        headers: { Authorization: header },
      })
      expect(res.status, header).toBe(401)
    }
  })

  it('lets /__sandbox/health in without a token', async () => {
    const res = await call('GET', '/__sandbox/health', undefined, { token: null })
    expect(res.status).toBe(200)
    expect(res.body).toEqual({ status: 'ok' })
  })
})

describe('--tokens', () => {
  it.each(ROUTES)('%s %s refuses a token not on the list', async (method, path) => {
    const { call } = newSandbox({ tokens: ['alpha', 'beta'] })
    const res = await call(method, path, method === 'GET' ? undefined : {}, { token: 'gamma' })
    expect(res.status).toBe(401)
  })

  it('lets the listed tokens in, each as its own tenant', async () => {
    const { call } = newSandbox({ tokens: ['alpha', 'beta'] })
    const created = await call(
      'POST',
      '/v1/card-users/create',
      { phone: '+221770000000' },
      { token: 'alpha' },
    )
    expect(created.status).toBe(200)
    const alpha = await call('GET', '/v1/card-users', undefined, { token: 'alpha' })
    const beta = await call('GET', '/v1/card-users', undefined, { token: 'beta' })
    expect(alpha.body.meta.total).toBe(1)
    expect(beta.body.meta.total).toBe(0)
  })
})

describe('tenants', () => {
  it('keeps one token’s rows invisible and unchangeable to another', async () => {
    const s = newSandbox()
    const card = await s.issuedCard('visa', 'first')
    // the other tenant sees nothing
    const cards = await s.call('GET', '/v1/cards', undefined, { token: 'second' })
    expect(cards.body.data).toEqual([])
    // and cannot act on the first tenant's references
    const freeze = await s.call(
      'POST',
      '/v1/cards/freeze',
      { reference: card.reference },
      { token: 'second' },
    )
    expect(freeze.status).toBe(404)
    const transition = await s.call(
      'POST',
      `/__sandbox/cards/${card.reference}/transition`,
      { to: 'frozen' },
      { token: 'second' },
    )
    expect(transition.status).toBe(404)
    // the first tenant's card is unchanged
    const mine = await s.call('GET', '/v1/cards', undefined, { token: 'first' })
    expect(mine.body.data[0].status).toBe('issued')
  })

  it('resets only the caller’s tenant', async () => {
    const s = newSandbox()
    await s.call('POST', '/v1/card-users/create', { phone: '+221770000000' }, { token: 'first' })
    await s.call('POST', '/v1/card-users/create', { phone: '+221770000000' }, { token: 'second' })
    const reset = await s.call('POST', '/__sandbox/reset', undefined, { token: 'first' })
    expect(reset.status).toBe(200)
    const first = await s.call('GET', '/v1/card-users', undefined, { token: 'first' })
    const second = await s.call('GET', '/v1/card-users', undefined, { token: 'second' })
    expect(first.body.meta.total).toBe(0)
    expect(second.body.meta.total).toBe(1)
  })
})
