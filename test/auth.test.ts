import { describe, expect, it } from 'vitest'
import { documentedRoutes } from '../src/http/openapi.js'
import { newSandbox } from './helpers.js'

const SOME_UUID = '3f2504e0-4f89-41d3-9a0c-0305e82c3301'

/** A value for each path parameter the routes use, so that a request reaches the route. */
const PARAMETER_VALUES: Record<string, string> = {
  reference: SOME_UUID,
  resource: 'cards',
  id: 'evt_0000000000000000',
  token: 'N72VeyZQ8dmn3a0Wk0blu2a1pjFjdcNOx2Ec5bm39pFGa33gGu',
}

/**
 * Every route of the sandbox, /v1 (SPEC §4) and /__sandbox (PRODUCT §8), from its route table,
 * with what it declares (http/route-meta.ts) and a concrete path that reaches it.
 */
const TABLE = documentedRoutes(newSandbox().app).map((route) => ({
  ...route,
  url: route.path.replace(/:(\w+)/g, (_, name: string) => PARAMETER_VALUES[name] ?? name),
}))
const BEARER = TABLE.filter((route) => route.meta?.auth === 'bearer').map(
  (route) => [route.method, route.url] as const,
)
const PUBLIC = TABLE.filter((route) => route.meta?.auth === 'none').map(
  (route) => [route.method, route.url] as const,
)

/** A request as a client sends it, HTML pages included; `{}` as the body of a write. */
async function send(
  app: ReturnType<typeof newSandbox>['app'],
  method: string,
  path: string,
  headers: Record<string, string> = {},
) {
  const write = method !== 'GET' && method !== 'HEAD'
  const res = await app.request(path, {
    method,
    headers: write ? { ...headers, 'Content-Type': 'application/json' } : headers,
    body: write ? '{}' : undefined,
  })
  const text = await res.text()
  return { status: res.status, text }
}

describe('the route table', () => {
  it('declares, for every route, whether it needs the bearer token', () => {
    expect(TABLE.length).toBeGreaterThanOrEqual(56)
    const undeclared = TABLE.filter((route) => !route.meta).map((r) => `${r.method} ${r.path}`)
    expect(undeclared).toEqual([])
    // each declares one of the two: a route in neither list would be checked by neither test
    const neither = TABLE.filter((route) => !['bearer', 'none'].includes(route.meta!.auth))
    expect(neither.map((r) => `${r.method} ${r.path}`)).toEqual([])
    expect(PUBLIC.map(([method, path]) => `${method} ${path}`).sort()).toEqual(
      [
        'GET /',
        'GET /__sandbox/card-reveal/' + PARAMETER_VALUES.token,
        'GET /__sandbox/checkout/' + SOME_UUID,
        'GET /__sandbox/docs',
        'GET /__sandbox/health',
        'GET /__sandbox/openapi.json',
        'GET /__sandbox/ui',
        'GET /__sandbox/verify/' + SOME_UUID,
        'GET /__sandbox/widget.js',
        'GET /favicon.ico',
        'GET /favicon.svg',
        'POST /__sandbox/checkout/' + SOME_UUID,
        'POST /__sandbox/verify/' + SOME_UUID,
      ].sort(),
    )
  })
})

describe('authentication (PRODUCT §3)', () => {
  const { app } = newSandbox()

  it.each(BEARER)('%s %s without a token is a 401 in the error shape', async (method, path) => {
    const res = await send(app, method, path)
    expect(res.status, res.text).toBe(401)
    expect(JSON.parse(res.text)).toEqual({ message: 'Unauthenticated.', statusCode: 401 })
  })

  it.each(BEARER)('%s %s with a malformed Authorization header is a 401', async (method, path) => {
    for (const header of ['Basic abc', 'Bearer', 'Bearer ', 'token abc', 'Bearer a b']) {
      const res = await send(app, method, path, { Authorization: header })
      expect(res.status, header).toBe(401)
    }
  })

  it.each(PUBLIC)('%s %s answers without a token', async (method, path) => {
    const res = await send(app, method, path)
    expect(res.status, res.text).not.toBe(401)
    expect(res.status, res.text).toBeLessThan(500)
  })

  it('lets /__sandbox/health in without a token', async () => {
    const res = await send(app, 'GET', '/__sandbox/health')
    expect(res.status).toBe(200)
    expect(JSON.parse(res.text)).toEqual({ status: 'ok' })
  })
})

describe('--tokens', () => {
  it.each(BEARER)('%s %s refuses a token not on the list', async (method, path) => {
    const { app } = newSandbox({ tokens: ['alpha', 'beta'] })
    const res = await send(app, method, path, { Authorization: 'Bearer gamma' })
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
