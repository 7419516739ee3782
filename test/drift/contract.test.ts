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

describe('routeOf', () => {
  it('takes a route some template names literally over one with a parameter', () => {
    expect(routeOf('POST', '/v1/cards/create')).toEqual({
      route: 'POST /v1/cards/create',
      known: true,
    })
    // the sandbox answers 405: `create` is no card reference
    expect(routeOf('GET', '/v1/cards/create')).toEqual({
      route: 'GET /v1/cards/create',
      known: false,
    })
    expect(routeOf('get', '/v1/cards/c-1')).toEqual({
      route: 'GET /v1/cards/{reference}',
      known: true,
    })
  })

  it('routes a path without its query and its trailing slashes', () => {
    expect(routeOf('GET', '/v1/cards?page=2&per_page=5')).toEqual({
      route: 'GET /v1/cards',
      known: true,
    })
    expect(routeOf('GET', '/v1/cards//')).toEqual({ route: 'GET /v1/cards', known: true })
    expect(routeOf('GET', '/v1/cards/c-1/?x=/y')).toEqual({
      route: 'GET /v1/cards/{reference}',
      known: true,
    })
  })

  it('names an unknown route by its path without the query', () => {
    expect(routeOf('GET', '/v1/nothing/here?page=2')).toEqual({
      route: 'GET /v1/nothing/here',
      known: false,
    })
  })

  it('routes a dispute update by its reference, and an update without one to no route', () => {
    expect(routeOf('POST', '/v1/disputes/update//')).toMatchObject({ known: false })
    expect(routeOf('POST', '/v1/disputes/update/d-1')).toEqual({
      route: 'POST /v1/disputes/update/{reference}',
      known: true,
    })
  })

  it("knows the sandbox's default shapes: the doubled /v1/v1 prefix of card users", () => {
    expect(routeOf('POST', '/v1/v1/card-users/create')).toEqual({
      route: 'POST /v1/v1/card-users/create',
      known: true,
    })
  })
})
