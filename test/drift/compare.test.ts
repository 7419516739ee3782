/**
 * compareExchange against a stand-in upstream (stand-in.ts): the sandbox's own answers compare
 * clean, and a table of planted edits gives exactly its findings, nothing more.
 */
import { beforeAll, describe, expect, it } from 'vitest'
import { readFileSync } from 'node:fs'
import { compareExchange } from '../../src/drift/compare.js'
import { routeOf } from '../../src/drift/contract.js'
import { fullIdentity } from '../helpers.js'
import { capture, recorded as recordedFrom, type Captured } from './stand-in.js'

// the flow's answers, captured once; each test compares them itself (recordedFrom), so that
// mutation testing sees which test covers which line of the comparison
let captured: Captured[]
beforeAll(async () => {
  captured = await capture()
})

describe('compareExchange on a stand-in upstream', () => {
  it('finds nothing in the sandbox’s own answers, on every route of the flow', () => {
    const recorded = recordedFrom(captured)
    expect(recorded.unedited.length).toBeGreaterThan(10)
    expect(recorded.unedited.flat()).toEqual([])
  })

  it('finds exactly the planted edits, line by line', () => {
    const recorded = recordedFrom(captured)
    const found = recorded.lines.map((line) => line.findings)
    expect(found).toEqual(recorded.expected)
    // every edit of the table was applied and found
    expect(recorded.expected.flat().map((f) => `${f.kind} ${f.path}`)).toEqual([
      'header header:x-ratelimit-limit',
      'header header:ratelimit-limit',
      'header header:x-ratelimit-limit',
      'header header:ratelimit-limit',
      'extra-key $.data.card.nickname',
      'type $.data[*].balance',
      'missing-key $.data.card.cvv2',
      'missing-key $.data.card.cvv2',
      'type $.data[*].balance',
      'enum $.data[*].status',
      'missing-key $.message',
      'missing-key $.statusCode',
      'extra-key $.error',
      'format $.data.transaction.created_at',
    ])
  })
})

const CARD = '8e5e90eb-f22e-4b1c-bceb-10003d88d149'
const headers = {
  'content-type': 'application/json',
  'x-content-type-options': 'nosniff',
  'x-ratelimit-limit': '60',
  'x-ratelimit-remaining': '59',
}
const issued = {
  reference: CARD,
  card_number: '4508283875101017',
  card_brand: 'Visa',
  card_type: 'virtual',
  cvv2: '275',
  expiry: '2029-01',
  balance: 0,
  status: 'issued',
}
const show = (card: Record<string, unknown>, extra: Partial<typeof base> = {}) => ({
  ...base,
  body: { message: 'OK', statusCode: 200, data: { card } },
  ...extra,
})
const base = { method: 'GET', path: `/v1/cards/${CARD}`, status: 200, headers, body: {} as unknown }
const route = 'GET /v1/cards/{reference}'

describe('compareExchange, kind by kind', () => {
  it('routes a path as the sandbox does: a template, a literal path, an unknown one', () => {
    expect(compareExchange(show(issued))).toEqual([])
    expect(compareExchange({ ...show(issued), path: '/v1/cards/create' })).toEqual([
      {
        route: 'GET /v1/cards/create',
        path: '$',
        kind: 'unknown-route',
        upstream: 200,
        sandbox: 405,
      },
    ])
    expect(compareExchange({ ...show(issued), path: '/v1/wallets/abc' })).toEqual([
      {
        route: 'GET /v1/wallets/abc',
        path: '$',
        kind: 'unknown-route',
        upstream: 200,
        sandbox: 404,
      },
    ])
  })

  it('says null where the sandbox never answers null, and accepts it where it does', () => {
    expect(compareExchange(show({ ...issued, card_number: null, cvv2: null }))).toEqual([])
    expect(compareExchange(show({ ...issued, balance: null }))).toEqual([
      { route, path: '$.data.card.balance', kind: 'null', upstream: null, sandbox: 'integer' },
    ])
  })

  it('checks expiry’s pattern and the brand’s closed list, not the values that naturally differ', () => {
    expect(
      compareExchange(
        show({ ...issued, reference: '0b5e0d0e-1111-4222-8333-444455556666', balance: 99 }),
      ),
    ).toEqual([])
    expect(compareExchange(show({ ...issued, expiry: '01/29', card_brand: 'VISA' }))).toEqual([
      {
        route,
        path: '$.data.card.card_brand',
        kind: 'enum',
        upstream: 'VISA',
        sandbox: ['Visa', 'Mastercard', 'Gim'],
      },
      {
        route,
        path: '$.data.card.expiry',
        kind: 'format',
        upstream: '01/29',
        sandbox: 'string (YYYY-MM)',
      },
    ])
  })

  it('says when the keys come in another order than the sandbox’s', () => {
    const { status, ...rest } = issued
    expect(compareExchange(show({ status, ...rest }))).toEqual([
      {
        route,
        path: '$.data.card',
        kind: 'key-order',
        upstream: [
          'status',
          'reference',
          'card_number',
          'card_brand',
          'card_type',
          'cvv2',
          'expiry',
          'balance',
        ],
        sandbox: [
          'reference',
          'card_number',
          'card_brand',
          'card_type',
          'cvv2',
          'expiry',
          'balance',
          'status',
        ],
      },
    ])
  })

  it('compares the envelope message with the route’s', () => {
    expect(
      compareExchange({
        ...show(issued),
        body: { message: 'Card fetched', statusCode: 200, data: { card: issued } },
      }),
    ).toEqual([
      { route, path: '$.message', kind: 'message', upstream: 'Card fetched', sandbox: 'OK' },
    ])
  })

  it('says when the status is one the route does not give, and compares errors with PRODUCT’s shape', () => {
    const error = { message: 'Server Error', statusCode: 500 }
    expect(compareExchange({ ...base, status: 500, body: error })).toEqual([
      { route, path: '$', kind: 'status', upstream: 500, sandbox: [200, 401, 403, 404, 429] },
    ])
    expect(
      compareExchange({
        ...base,
        status: 201,
        body: { message: 'OK', statusCode: 201, data: { card: issued } },
      }),
    ).toEqual([
      { route, path: '$', kind: 'status', upstream: 201, sandbox: [200, 401, 403, 404, 429] },
      { route, path: '$.statusCode', kind: 'enum', upstream: 201, sandbox: [200] },
    ])
    const unauthenticated = {
      'content-type': 'application/json',
      'x-content-type-options': 'nosniff',
    }
    expect(
      compareExchange({
        ...base,
        status: 401,
        headers: unauthenticated,
        body: { message: 'Unauthorized', statusCode: '401' },
      }),
    ).toEqual([
      { route, path: '$.statusCode', kind: 'type', upstream: '401', sandbox: 'integer' },
      {
        route,
        path: '$.message',
        kind: 'message',
        upstream: 'Unauthorized',
        sandbox: 'Unauthenticated.',
      },
    ])
  })

  it('says an answer that is not JSON is of another type, under the status it came with', () => {
    const page = '<html><body>Bad Gateway</body></html>'
    const html = { ...headers, 'content-type': 'text/html' }
    expect(compareExchange({ ...base, status: 502, headers: html, body: page })).toEqual([
      { route, path: '$', kind: 'status', upstream: 502, sandbox: [200, 401, 403, 404, 429] },
      {
        route,
        path: 'header:content-type',
        kind: 'header',
        upstream: 'text/html',
        sandbox: 'application/json',
      },
      { route, path: '$', kind: 'type', upstream: page, sandbox: 'object' },
    ])
  })

  it('compares the headers the sandbox sends, ignoring those that vary on the way', () => {
    const sent = {
      ...headers,
      'content-type': 'text/html; charset=UTF-8',
      date: 'Sat, 28 Nov 2026 17:00:00 GMT',
      etag: 'W/"1"',
      'x-trace': 'a1',
    }
    expect(compareExchange({ ...show(issued), headers: sent })).toEqual([
      {
        route,
        path: 'header:content-type',
        kind: 'header',
        upstream: 'text/html; charset=UTF-8',
        sandbox: 'application/json',
      },
      { route, path: 'header:x-trace', kind: 'header', upstream: 'a1', sandbox: 'absent' },
    ])
  })
})

describe('compareExchange on a create with two answer shapes', () => {
  const USER = '0b5e0d0e-1111-4222-8333-444455556666'
  const { first_name, last_name, address, id_no, phone, email } = fullIdentity()
  const person = { reference: USER, first_name, last_name, address, id_no, phone, email }
  const create = (body: unknown) =>
    compareExchange({ method: 'POST', path: '/v1/card-users/create', status: 200, headers, body })
  const message = 'User verification in progress'
  const route = 'POST /v1/card-users/create'

  it('compares a full-identity create with the full-identity shape, whatever drifted under data', () => {
    expect(create({ message, statusCode: 200, data: { message, userCard: person } })).toEqual([])
    // as many findings against the widget shape (no userCard beside message, a data it lacks)
    const renamed = { message, statusCode: 200, data: { message, cardUser: person } }
    expect(create(renamed)).toEqual([
      {
        route,
        path: '$.data.userCard',
        kind: 'missing-key',
        upstream: 'absent',
        sandbox: 'object',
      },
      { route, path: '$.data.cardUser', kind: 'extra-key', upstream: person, sandbox: 'absent' },
    ])
    // more findings than against the widget shape, still the shape of its keys
    const more = { ...renamed, data: { ...renamed.data, kyc: 1 } }
    expect(create(more).map((f) => `${f.kind} ${f.path}`)).toEqual([
      'missing-key $.data.userCard',
      'extra-key $.data.cardUser',
      'extra-key $.data.kyc',
    ])
  })

  it('compares a widget create with the widget shape', () => {
    const { id_no, ...first } = person
    const widget = { ...first, id_no }
    expect(create({ message, statusCode: 200, userCard: widget })).toEqual([])
    expect(create({ message, statusCode: 200, userCard: { ...widget, kyc: 1 } })).toEqual([
      { route, path: '$.userCard.kyc', kind: 'extra-key', upstream: 1, sandbox: 'absent' },
    ])
  })
})

type SpecExample = {
  name: string
  method: string
  path: string
  body: unknown
  expected: { path: string; kind: string; upstream: unknown; sandbox: unknown; why: string }[]
}
const spec = JSON.parse(readFileSync(new URL('./spec-examples.json', import.meta.url), 'utf8')) as {
  examples: SpecExample[]
}

/** The value at a `$.a.b` path of a body (the fixture's "(the value sent there)"). */
const at = (body: unknown, path: string) =>
  path
    .split('.')
    .slice(1)
    .reduce((value, key) => (value as Record<string, unknown>)[key], body)

describe('compareExchange on the SPEC’s documented answers', () => {
  it.each(spec.examples.map((e) => [e.name, e] as const))('%s', (_name, example) => {
    const findings = compareExchange({
      method: example.method,
      path: example.path,
      status: 200,
      // the SPEC documents no header: the sandbox's own, so that only the bodies differ
      headers,
      body: example.body,
    })
    const route = routeOf(example.method, example.path).route
    expect(findings).toEqual(
      example.expected.map(({ why: _why, ...f }) => ({
        route,
        ...f,
        upstream: f.upstream === '(the value sent there)' ? at(example.body, f.path) : f.upstream,
      })),
    )
  })

  it('include the misspelt `pendin`, which the sandbox does not reproduce', () => {
    const kinds = spec.examples.flatMap((e) =>
      e.expected.map((f) => `${f.kind} ${String(f.upstream)}`),
    )
    expect(kinds).toContain('enum pendin')
  })
})

describe('compareExchange at the edges of what it compares', () => {
  const TX = '0b5e0d0e-1111-4222-8333-444455556666'
  const transaction = {
    slug: TX,
    card_reference: CARD,
    reference: 'order-1',
    status: 'success',
    kind: 'card_to_bank',
    merchant: false,
    amount: 15000,
    created_at: '2026-11-28T17:00:00.000000Z',
  }
  const showTransaction = (body: unknown) =>
    compareExchange({ method: 'GET', path: `/v1/transactions/${TX}`, status: 200, headers, body })
  const txRoute = 'GET /v1/transactions/{reference}'

  it('takes only 2xx for a success: 1xx and 3xx are compared as errors', () => {
    const expected = (status: number) => [
      { route, path: '$', kind: 'status', upstream: status, sandbox: [200, 401, 403, 404, 429] },
    ]
    for (const status of [100, 199, 300, 304])
      expect(
        compareExchange({ ...base, status, body: { message: 'Elsewhere', statusCode: status } }),
      ).toEqual(expected(status))
  })

  it('compares a message only when it is a string, and finds a right one right', () => {
    expect(compareExchange({ ...base, body: { statusCode: 200, data: { card: issued } } })).toEqual(
      [{ route, path: '$.message', kind: 'missing-key', upstream: 'absent', sandbox: 'string' }],
    )
    expect(
      compareExchange({ ...base, body: { message: 7, statusCode: 200, data: { card: issued } } }),
    ).toEqual([{ route, path: '$.message', kind: 'type', upstream: 7, sandbox: 'string' }])
    const unauthenticated = {
      'content-type': 'application/json',
      'x-content-type-options': 'nosniff',
    }
    const refused = (body: unknown) =>
      compareExchange({ ...base, status: 401, headers: unauthenticated, body })
    expect(refused({ message: 'Unauthenticated.', statusCode: 401 })).toEqual([])
    expect(refused({ statusCode: 401 })).toEqual([
      { route, path: '$.message', kind: 'missing-key', upstream: 'absent', sandbox: 'string' },
    ])
  })

  it('gives an error the states of a refused transition on a 409 only', () => {
    const states = { from: 'issued', to: 'issued', allowed: ['frozen'] }
    expect(
      compareExchange({
        ...base,
        status: 409,
        body: { message: 'Card is already issued', statusCode: 409, ...states },
      }),
    ).toEqual([
      { route, path: '$', kind: 'status', upstream: 409, sandbox: [200, 401, 403, 404, 429] },
    ])
    expect(
      compareExchange({
        ...base,
        status: 404,
        body: { message: 'Card not found', statusCode: 404, allowed: [] },
      }),
    ).toEqual([{ route, path: '$.allowed', kind: 'extra-key', upstream: [], sandbox: 'absent' }])
  })

  it('compares what every error names under `errors`: a list of strings per field', () => {
    const invalid = {
      message: 'The card brand field is required.',
      statusCode: 422,
      errors: { card_brand: ['required'], card_type: 'required', 'card-x': [1, 'x'] },
    }
    expect(
      compareExchange({
        method: 'POST',
        path: '/v1/cards/create',
        status: 422,
        headers,
        body: invalid,
      }),
    ).toEqual([
      {
        route: 'POST /v1/cards/create',
        path: '$.errors[*]',
        kind: 'type',
        upstream: 'required',
        sandbox: 'array',
      },
      {
        route: 'POST /v1/cards/create',
        path: '$.errors[*][*]',
        kind: 'type',
        upstream: 1,
        sandbox: 'string',
      },
    ])
  })

  it('says once what drifted the same way in two items of a list, at the first of them', () => {
    const item = (reference: string, balance: unknown) => ({
      reference,
      balance,
      last_four: '1017',
      status: 'issued',
      card_type: 'Visa',
      card_brand: 'virtual',
    })
    const meta = { current_page: 1, from: 1, last_page: 1, per_page: 15, to: 2, total: 2 }
    const list = (data: unknown[]) =>
      compareExchange({
        method: 'GET',
        path: '/v1/cards',
        status: 200,
        headers,
        body: { message: 'Cards fetched successfully', statusCode: 200, data, meta },
      })
    expect(list([item(CARD, 0), item(TX, 5)])).toEqual([])
    expect(list([item(CARD, 0), item(TX, '5'), item(CARD, '6')])).toEqual([
      {
        route: 'GET /v1/cards',
        path: '$.data[*].balance',
        kind: 'type',
        upstream: '5',
        sandbox: 'integer',
      },
    ])
  })

  it('ignores the headers of CDNs and caches by the prefix their name starts with', () => {
    const on = {
      ...headers,
      'cf-ray': '8e5e90eb-CDG',
      'access-control-allow-origin': '*',
      'x-amz-cf-id': 'a1',
      'x-cache': 'Hit from cloudfront',
    }
    expect(compareExchange({ ...show(issued), headers: on })).toEqual([])
    expect(compareExchange({ ...show(issued), headers: { ...headers, 'x-cf-': '1' } })).toEqual([
      { route, path: 'header:x-cf-', kind: 'header', upstream: '1', sandbox: 'absent' },
    ])
  })

  it('writes a key that is not an identifier in brackets', () => {
    expect(compareExchange(show({ ...issued, 'x-trace': 't', '1st': 1, _ok: true }))).toEqual([
      {
        route,
        path: '$.data.card["x-trace"]',
        kind: 'extra-key',
        upstream: 't',
        sandbox: 'absent',
      },
      { route, path: '$.data.card["1st"]', kind: 'extra-key', upstream: 1, sandbox: 'absent' },
      { route, path: '$.data.card._ok', kind: 'extra-key', upstream: true, sandbox: 'absent' },
    ])
  })

  it('describes a value of one of several shapes: joined when all are words, listed otherwise', () => {
    const { expiry: _expiry, ...noExpiry } = issued
    expect(compareExchange(show(noExpiry))).toEqual([
      {
        route,
        path: '$.data.card.expiry',
        kind: 'missing-key',
        upstream: 'absent',
        sandbox: 'string (YYYY-MM) or null',
      },
    ])
    const { merchant: _merchant, ...noMerchant } = transaction
    expect(showTransaction({ message: 'OK', statusCode: 200, transaction: noMerchant })).toEqual([
      {
        route: txRoute,
        path: '$.transaction.merchant',
        kind: 'missing-key',
        upstream: 'absent',
        sandbox: ['string', [false]],
      },
    ])
  })

  it('compares a nullable value that is not null with its other type, named alone', () => {
    expect(compareExchange(show({ ...issued, card_number: 4508283875101017 }))).toEqual([
      {
        route,
        path: '$.data.card.card_number',
        kind: 'type',
        upstream: 4508283875101017,
        sandbox: 'string',
      },
    ])
  })

  it('tells a constant of another JSON type from another value of its type', () => {
    expect(
      compareExchange({
        ...base,
        body: { message: 'OK', statusCode: 200.5, data: { card: issued } },
      }),
    ).toEqual([{ route, path: '$.statusCode', kind: 'enum', upstream: 200.5, sandbox: [200] }])
    // a string where an integer is constant is of another type
    expect(
      compareExchange({
        ...base,
        body: { message: 'OK', statusCode: '200', data: { card: issued } },
      }),
    ).toEqual([{ route, path: '$.statusCode', kind: 'type', upstream: '200', sandbox: 'integer' }])
  })

  it('says an item where the sandbox always sends an empty list is extra, null included', () => {
    const payment = {
      business: 'Acme',
      customer: { full_name: 'Awa Diop', email: 'awa@example.com', phone: '+221770000001' },
      slug: TX,
      reference: CARD,
      kind: 'payment',
      network: 'wave-sn',
      amount: 5000,
      status: 'pending',
      expired_at: '2026-11-28T17:00:00.000Z',
      meta: [] as unknown[],
    }
    const showPayment = (meta: unknown[]) =>
      compareExchange({
        method: 'GET',
        path: `/v1/payments/${TX}`,
        status: 200,
        headers,
        body: {
          message: 'Payment fetched successfully',
          statusCode: 200,
          data: { ...payment, meta },
        },
      })
    const at = { route: 'GET /v1/payments/{reference}', path: '$.data.meta[*]' }
    expect(showPayment([])).toEqual([])
    expect(showPayment([1])).toEqual([{ ...at, kind: 'extra-key', upstream: 1, sandbox: 'absent' }])
    expect(showPayment([null])).toEqual([
      { ...at, kind: 'null', upstream: null, sandbox: 'absent' },
    ])
  })

  describe('an answer of several shapes is compared with the one it is closest to', () => {
    const USER = '0b5e0d0e-1111-4222-8333-444455556666'
    const { first_name, last_name, address, id_no, phone, email } = fullIdentity()
    const person = { reference: USER, first_name, last_name, address, id_no, phone, email }
    const message = 'User verification in progress'
    const create = (body: unknown) =>
      compareExchange({ method: 'POST', path: '/v1/card-users/create', status: 200, headers, body })
    const at = { route: 'POST /v1/card-users/create' }

    it('the shape naming the most of its keys, however many findings that gives', () => {
      const findings = create({ message, statusCode: 200, userCard: {} })
      expect(findings.map((f) => `${f.kind} ${f.path}`)).toEqual([
        'missing-key $.userCard.reference',
        'missing-key $.userCard.first_name',
        'missing-key $.userCard.last_name',
        'missing-key $.userCard.address',
        'missing-key $.userCard.phone',
        'missing-key $.userCard.email',
        'missing-key $.userCard.id_no',
      ])
    })

    it('of shapes naming as many, the one with the fewest findings, the later one included', () => {
      const both = { message, statusCode: 200, userCard: 5, data: { message, userCard: person } }
      expect(create(both)).toEqual([
        { ...at, path: '$.userCard', kind: 'extra-key', upstream: 5, sandbox: 'absent' },
      ])
    })

    it('a shape without keys names none of an object’s keys', () => {
      const dispute = {
        transaction_slug: USER,
        slug: { reference: null, id: 3 },
        status: 'open',
        reason: 'fraudulent',
        explanation: null,
      }
      expect(
        compareExchange({
          method: 'GET',
          path: `/v1/disputes/${USER}`,
          status: 200,
          headers,
          body: { message: 'OK', statusCode: 200, data: { dispute } },
        }),
      ).toEqual([
        {
          route: 'GET /v1/disputes/{reference}',
          path: '$.data.dispute.slug.id',
          kind: 'extra-key',
          upstream: 3,
          sandbox: 'absent',
        },
      ])
    })
  })
})
