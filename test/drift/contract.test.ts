/**
 * The contract drift compares with, read from the /v1 routes alone: each route's 200 message is
 * the one the route declares (http/route-meta.ts), found under the route a request takes.
 */
import { describe, expect, it } from 'vitest'
import { compareExchange } from '../../src/drift/compare.js'
import { routeOf, theContract } from '../../src/drift/contract.js'

const messageOf = (method: string, path: string) =>
  theContract().routes.find((r) => `${r.method} ${r.template}` === routeOf(method, path).route)
    ?.message

describe("the contract's messages", () => {
  it('hold a message for every /v1 route, lists and shows included', () => {
    const routes = theContract().routes
    expect(routes.length).toBeGreaterThanOrEqual(30)
    expect(routes.filter((r) => r.message === undefined).map((r) => r.template)).toEqual([])
  })

  it("find each route's own message under the path a request takes", () => {
    expect(messageOf('POST', '/v1/cards/freeze')).toBe('Card frozen successfully')
    expect(messageOf('GET', '/v1/cards')).toBe('Cards fetched successfully')
    expect(messageOf('GET', '/v1/cards/3f1c5f1e-0000-4000-8000-000000000000')).toBe('OK')
    expect(messageOf('POST', '/v1/disputes/update/abc')).toBe('Dispute updated successfully')
    expect(messageOf('GET', '/v1/disburses/abc')).toBe('Disburse fetched successfully')
  })

  it("report a 200 whose message is not the route's", () => {
    const freeze = (message: string) =>
      compareExchange({
        method: 'POST',
        path: '/v1/cards/freeze',
        status: 200,
        headers: {},
        body: { message },
      }).filter((f) => f.kind === 'message')
    expect(freeze('Card frozen successfully')).toEqual([])
    expect(freeze('Card frozen')).toEqual([
      {
        route: 'POST /v1/cards/freeze',
        path: '$.message',
        kind: 'message',
        upstream: 'Card frozen',
        sandbox: 'Card frozen successfully',
      },
    ])
  })
})
