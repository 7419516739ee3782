/**
 * compareRecording on the stand-in's recording (stand-in.ts): the report counts exactly the
 * planted edits, grouped by route, and reads the stand-in's slower issuing from the reads' instants.
 */
import { beforeAll, describe, expect, it } from 'vitest'
import { compareRecording } from '../../src/index.js'
import type { RecordLine } from '../../src/drift/report.js'
import {
  capture,
  countsOf,
  PLANTED_COUNTS,
  recorded as recordedFrom,
  type Captured,
} from './stand-in.js'

// the flow's answers, captured once; each test compares them itself, so that mutation testing
// sees which test covers which line of the report
let captured: Captured[]
beforeAll(async () => {
  captured = await capture()
})
const analysed = () => {
  const recorded = recordedFrom(captured)
  return { recorded, report: compareRecording(recorded.lines) }
}

describe('compareRecording', () => {
  it('counts every exchange and every finding, grouped by route', () => {
    const { recorded, report } = analysed()
    expect(report.exchanges).toBe(recorded.lines.length)
    expect(report.findings).toBe(recorded.expected.flat().length)
    expect(countsOf(report)).toEqual(PLANTED_COUNTS)
  })

  it('lists the routes without a finding after the others, with their exchanges', () => {
    const { report } = analysed()
    expect(report.routes.map((r) => [r.route, r.exchanges, r.findings])).toEqual([
      ['GET /v1/card-users/{reference}', 2, 4],
      ['GET /v1/cards', 2, 3],
      ['GET /v1/cards/{reference}', 3, 5],
      ['POST /v1/cards/create', 2, 1],
      ['POST /v1/transactions/create', 1, 1],
      ['GET /v1/card-users', 1, 0],
      ['GET /v1/transactions', 1, 0],
      ['GET /v1/transactions/{reference}', 1, 0],
      ['POST /v1/card-users/create', 1, 0],
      ['POST /v1/cards/freeze', 2, 0],
    ])
  })

  it('keeps an example of what each side sends, with its instant', () => {
    const { report } = analysed()
    const cards = report.routes.find((r) => r.route === 'GET /v1/cards')!
    expect(cards.counts.find((c) => c.kind === 'enum')!.examples).toEqual([
      {
        at: '2026-11-28T17:00:13.000Z',
        upstream: 'active',
        sandbox: ['issuing', 'issued', 'frozen', 'failed'],
      },
    ])
  })

  it('reads the delays from the reads around each move, beside the sandbox’s defaults', () => {
    const { report } = analysed()
    const none = { resources: 0, moved: 0, lastOldMs: null, firstNewMs: null, newStates: [] }
    expect(report.timing).toEqual([
      // the create answers pending at 0; a read at 0 still pending, at 4 s passed
      {
        delay: 'card_user_verification',
        sandboxMs: 3000,
        resources: 1,
        moved: 1,
        lastOldMs: 0,
        firstNewMs: 4000,
        newStates: ['passed'],
      },
      // the stand-in's slower issuing: still issuing at 6 s, issued at 9 s (the sandbox: 5 s)
      {
        delay: 'card_issuing',
        sandboxMs: 5000,
        resources: 1,
        moved: 1,
        lastOldMs: 6000,
        firstNewMs: 9000,
        // the list's planted rename is a state read too
        newStates: ['active', 'issued'],
      },
      { delay: 'card_link_details', sandboxMs: 3000, ...none },
      {
        delay: 'transaction_settlement',
        sandboxMs: 5000,
        resources: 1,
        moved: 1,
        lastOldMs: 0,
        firstNewMs: 5000,
        newStates: ['success'],
      },
      { delay: 'disburse_settlement', sandboxMs: 5000, ...none },
      { delay: 'payment_outcome', sandboxMs: 5000, ...none },
    ])
  })

  it('takes the delays from the reads’ instants, in whatever order the lines come', () => {
    const { recorded, report } = analysed()
    const shuffled = [...recorded.lines].reverse()
    expect(compareRecording(shuffled).timing).toEqual(report.timing)
  })
})

/** A record line of a success answer at `ms` after CLOCK_START, findings none unless given. */
const at = (ms: number) => new Date(Date.parse('2026-11-28T17:00:00.000Z') + ms).toISOString()
const line = (ms: number, method: string, path: string, body: unknown, extra = {}): RecordLine => ({
  at: at(ms),
  method,
  path,
  status: 200,
  response: { body },
  findings: [],
  ...extra,
})
const delayOf = (lines: RecordLine[], delay: string) =>
  compareRecording(lines).timing.find((d) => d.delay === delay)!

describe('compareRecording: the delays of every resource that moves by itself', () => {
  it('reads a disburse from its read and its list, the delay between the two', () => {
    const disburse = delayOf(
      [
        line(0, 'POST', '/v1/disburses/create', {
          data: { disburse: { reference: 'd-1', status: 'processing' } },
        }),
        line(2_000, 'GET', '/v1/disburses/d-1', {
          data: { reference: 'd-1', status: 'processing' },
        }),
        line(7_000, 'GET', '/v1/disburses', { data: [{ reference: 'd-1', status: 'success' }] }),
      ],
      'disburse_settlement',
    )
    expect(disburse).toEqual({
      delay: 'disburse_settlement',
      sandboxMs: 5000,
      resources: 1,
      moved: 1,
      lastOldMs: 2000,
      firstNewMs: 7000,
      newStates: ['success'],
    })
  })

  it('reads a payment created under `payment`, its earliest new state and every new state', () => {
    const payment = delayOf(
      [
        line(0, 'POST', '/v1/payments/create', {
          payment: { reference: 'p-1', status: 'pending' },
        }),
        line(2_000, 'GET', '/v1/payments', { data: [{ reference: 'p-1', status: 'pending' }] }),
        line(8_000, 'GET', '/v1/payments/p-1', { data: { reference: 'p-1', status: 'success' } }),
        line(6_000, 'GET', '/v1/payments/p-1', { data: { reference: 'p-1', status: 'failed' } }),
      ],
      'payment_outcome',
    )
    expect(payment).toEqual({
      delay: 'payment_outcome',
      sandboxMs: 5000,
      resources: 1,
      moved: 1,
      lastOldMs: 2000,
      firstNewMs: 6000,
      newStates: ['failed', 'success'],
    })
  })

  it("reads a linked card's number coming after the link, from the list's last four and the card", () => {
    const lines = [
      line(0, 'POST', '/v1/cards/link', {
        data: { card: { reference: 'c-1', card_number: null } },
      }),
      line(1_000, 'GET', '/v1/cards', { data: [{ reference: 'c-1', last_four: null }] }),
      line(4_000, 'GET', '/v1/cards/c-1', {
        data: { card: { reference: 'c-1', card_number: '4111111111111111', status: 'issued' } },
      }),
    ]
    expect(delayOf(lines, 'card_link_details')).toMatchObject({
      resources: 1,
      moved: 1,
      lastOldMs: 1000,
      firstNewMs: 4000,
      newStates: ['number filled'],
    })
    // a linked card is no card issued: card_issuing counts the creates only
    expect(delayOf(lines, 'card_issuing')).toMatchObject({ resources: 0, moved: 0 })
  })

  it('reads a transaction answered at the top level and in a list, created by any create route', () => {
    const settlement = delayOf(
      [
        line(0, 'POST', '/v1/transactions/create/card-to-bank', {
          data: { transaction: { slug: 't-1', status: 'pending' } },
        }),
        line(3_000, 'GET', '/v1/transactions/t-1', {
          transaction: { slug: 't-1', status: 'pending' },
        }),
        line(6_000, 'GET', '/v1/transactions', {
          data: { transaction: [{ slug: 't-1', status: 'success' }] },
        }),
      ],
      'transaction_settlement',
    )
    expect(settlement).toMatchObject({ resources: 1, moved: 1, lastOldMs: 3000, firstNewMs: 6000 })
  })

  it("reads card users from the list's pages and a resubmit, a second create of one key ignored", () => {
    const verification = delayOf(
      [
        line(0, 'POST', '/v1/card-users/resubmit', {
          data: { userCard: { reference: 'u-1', status: 'pending' } },
        }),
        line(1_000, 'POST', '/v1/card-users/create', {
          data: { userCard: { reference: 'u-1', status: 'pending' } },
        }),
        line(5_000, 'GET', '/v1/card-users', {
          data: [{ data: [{ reference: 'u-1', status: 'passed' }] }],
        }),
      ],
      'card_user_verification',
    )
    // measured from the first create (at 0), not the second
    expect(verification).toMatchObject({ resources: 1, moved: 1, lastOldMs: 0, firstNewMs: 5000 })
  })

  it('reads a create and a read of the same millisecond in that order, whatever the lines say', () => {
    const issuing = delayOf(
      [
        line(3_000, 'GET', '/v1/cards/c-1', {
          data: { card: { reference: 'c-1', status: 'issued' } },
        }),
        line(3_000, 'POST', '/v1/cards/create', {
          data: { card: { reference: 'c-1', status: 'issuing' } },
        }),
      ],
      'card_issuing',
    )
    expect(issuing).toMatchObject({ resources: 1, moved: 1, lastOldMs: 0, firstNewMs: 0 })
  })

  it('leaves out a read the upstream refused, never answered whole, or dated with no instant', () => {
    const create = line(0, 'POST', '/v1/cards/create', {
      data: { card: { reference: 'c-1', status: 'issuing' } },
    })
    const read = (ms: number, extra: object) =>
      line(
        ms,
        'GET',
        '/v1/cards/c-1',
        { data: { card: { reference: 'c-1', status: 'issued' } } },
        extra,
      )
    const issuing = delayOf(
      [
        create,
        read(500, { status: 199 }),
        read(1_000, { status: 404 }),
        read(2_000, { status: 502, error: 'reset' }),
        read(3_000, { error: 'timeout' }),
        read(4_000, { at: 'not an instant' }),
      ],
      'card_issuing',
    )
    expect(issuing).toMatchObject({ resources: 1, moved: 0, lastOldMs: 0, firstNewMs: null })
  })
})

describe('compareRecording: counts and examples', () => {
  const finding = (upstream: unknown, path = '$.data.card.status') =>
    ({
      route: 'GET /v1/cards/{reference}',
      path,
      kind: 'enum',
      upstream,
      sandbox: ['issued'],
    }) as const
  it('keeps at most three examples, each a different upstream value, the most frequent count first', () => {
    const lines = ['a', 'a', 'b', 'c', 'd'].map((upstream, i) =>
      line(
        i * 1_000,
        'GET',
        '/v1/cards/c-1',
        {},
        {
          findings: [...(i === 0 ? [finding('x', '$.data.card.brand')] : []), finding(upstream)],
        },
      ),
    )
    const [route] = compareRecording(lines).routes
    expect(route).toMatchObject({ route: 'GET /v1/cards/{reference}', exchanges: 5, findings: 6 })
    // the brand's count came first, the status's is the most frequent
    expect(route.counts.map((c) => [c.path, c.count])).toEqual([
      ['$.data.card.status', 5],
      ['$.data.card.brand', 1],
    ])
    expect(route.counts[0].examples).toEqual([
      { at: at(0), upstream: 'a', sandbox: ['issued'] },
      { at: at(2_000), upstream: 'b', sandbox: ['issued'] },
      { at: at(3_000), upstream: 'c', sandbox: ['issued'] },
    ])
  })
})

describe('compareRecording: each reader, and what it cannot read', () => {
  it('reads a card user from its own read, a payment from under `data`', () => {
    const verification = delayOf(
      [
        line(0, 'POST', '/v1/card-users/create', {
          data: { userCard: { reference: 'u-1', status: 'pending' } },
        }),
        line(2_000, 'GET', '/v1/card-users/u-1', {
          data: { cardUser: { reference: 'u-1', status: 'pending' } },
        }),
        line(3_000, 'GET', '/v1/card-users/u-1', {
          data: { cardUser: { reference: 'u-1', status: 'passed' } },
        }),
      ],
      'card_user_verification',
    )
    expect(verification).toMatchObject({ moved: 1, lastOldMs: 2000, firstNewMs: 3000 })
    const payment = delayOf(
      [
        line(0, 'POST', '/v1/payments/create', {
          data: { payment: { reference: 'p-1', status: 'success' } },
        }),
      ],
      'payment_outcome',
    )
    expect(payment).toMatchObject({ resources: 1, moved: 1, lastOldMs: null, firstNewMs: 0 })
  })

  it('reads a card user answered passed or failed by its create as moved at once', () => {
    const verification = delayOf(
      [
        line(0, 'POST', '/v1/card-users/create', {
          data: { userCard: { reference: 'u-1', status: 'passed' } },
        }),
        line(0, 'POST', '/v1/card-users/create', {
          data: { userCard: { reference: 'u-2', status: 'failed' } },
        }),
        line(0, 'POST', '/v1/card-users/create', { data: { userCard: { reference: 'u-3' } } }),
      ],
      'card_user_verification',
    )
    expect(verification).toMatchObject({
      resources: 3,
      moved: 2,
      lastOldMs: 0,
      firstNewMs: 0,
      newStates: ['failed', 'passed'],
    })
  })

  it("reads a linked card's number there at once, absent, or in the list's last four", () => {
    const link = (card: object) => line(0, 'POST', '/v1/cards/link', { data: { card } })
    expect(
      delayOf([link({ reference: 'c-1', card_number: '4111111111111111' })], 'card_link_details'),
    ).toMatchObject({ moved: 1, lastOldMs: null, firstNewMs: 0, newStates: ['number filled'] })
    expect(
      delayOf(
        [
          link({ reference: 'c-2' }),
          line(2_000, 'GET', '/v1/cards', { data: [{ reference: 'c-2', last_four: '1111' }] }),
        ],
        'card_link_details',
      ),
    ).toMatchObject({ moved: 1, lastOldMs: 0, firstNewMs: 2000 })
  })

  it('gives the latest old read and the earliest new one over all resources', () => {
    const card = (ms: number, reference: string, status: string, method = 'GET') =>
      line(ms, method, method === 'GET' ? `/v1/cards/${reference}` : '/v1/cards/create', {
        data: { card: { reference, status } },
      })
    const issuing = delayOf(
      [
        card(0, 'c-1', 'issuing', 'POST'),
        card(0, 'c-2', 'issuing', 'POST'),
        card(2_000, 'c-1', 'issuing'),
        card(3_000, 'c-1', 'issued'),
        card(5_000, 'c-2', 'issuing'),
        card(6_000, 'c-2', 'issued'),
      ],
      'card_issuing',
    )
    expect(issuing).toMatchObject({ resources: 2, moved: 2, lastOldMs: 5000, firstNewMs: 3000 })
  })

  it('counts a create without a key as no resource, and skips what it cannot read', () => {
    const issuing = delayOf(
      [
        line(0, 'POST', '/v1/cards/create', { data: { card: { status: 'issuing' } } }),
        line(0, 'POST', '/v1/cards/create', {
          data: { card: { reference: 'c-1', status: 'issuing' } },
        }),
        line(1_000, 'GET', '/v1/cards', { data: { not: 'a list' } }),
        line(2_000, 'GET', '/v1/cards/c-1', null),
        line(3_000, 'GET', '/v1/cards/c-1', undefined, { response: undefined }),
        line(
          4_000,
          'GET',
          '/v1/cards/c-1',
          { data: { card: { reference: 'c-1', status: 'issued' } } },
          {
            status: 300,
          },
        ),
      ],
      'card_issuing',
    )
    expect(issuing).toMatchObject({ resources: 1, moved: 0, lastOldMs: 0, firstNewMs: null })
    const verification = delayOf(
      [
        line(0, 'POST', '/v1/card-users/create', {
          data: { userCard: { reference: 'u-1', status: 'pending' } },
        }),
        line(1_000, 'GET', '/v1/card-users', { data: { not: 'pages' } }),
      ],
      'card_user_verification',
    )
    expect(verification).toMatchObject({ resources: 1, moved: 0 })
  })

  it('routes a line without findings by its path, and counts two kinds at one path apart', () => {
    const finding = (kind: 'enum' | 'type') => ({
      route: 'GET /v1/cards/{reference}',
      path: '$.data.card.status',
      kind,
      upstream: 1,
      sandbox: 'string',
    })
    const report = compareRecording([
      { at: at(0), method: 'GET', path: '/v1/cards', status: 200 },
      line(0, 'GET', '/v1/cards/c-1', {}, { findings: [finding('enum'), finding('type')] }),
    ])
    expect(report.routes.map((r) => [r.route, r.exchanges, r.findings])).toEqual([
      ['GET /v1/cards/{reference}', 1, 2],
      ['GET /v1/cards', 1, 0],
    ])
    expect(report.routes[0].counts.map((c) => [c.kind, c.count])).toEqual([
      ['enum', 1],
      ['type', 1],
    ])
  })
})
