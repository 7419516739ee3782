/**
 * Pinning drift: a report's findings written as a scenario file that the sandbox's own loader
 * reads, and that makes the sandbox answer as the upstream did while it keeps its references.
 */
import { writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { afterEach, describe, expect, it } from 'vitest'
import { parseScenario } from '../../src/engine/scenarios/load.js'
import type { Finding } from '../../src/drift/compare.js'
import { scenarioFromReport } from '../../src/drift/pin.js'
import { compareRecording, type RecordLine, type Report } from '../../src/drift/report.js'
import { newSandbox, UUID } from '../helpers.js'
import { tempDir } from '../temp-dir.js'

const cleanups: (() => unknown)[] = []
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup()
})

const CREATE = 'POST /v1/cards/create'
const SHOW = 'GET /v1/cards/{reference}'
const TRANSFER = 'POST /v1/transactions/create/card-to-bank'

const createFindings: Finding[] = [
  {
    route: CREATE,
    path: '$.data.card.last4',
    kind: 'extra-key',
    // a description here: the value pinned is read from the recorded answer
    upstream: 'string (4 digits)',
    sandbox: 'absent',
  },
  {
    route: CREATE,
    path: '$.data.card.cvv2',
    kind: 'missing-key',
    upstream: 'absent',
    sandbox: 'string',
  },
  {
    route: CREATE,
    path: '$.data.card.balance',
    kind: 'type',
    upstream: 'string',
    sandbox: 'number',
  },
  {
    route: CREATE,
    path: '$',
    kind: 'message',
    upstream: 'Card created',
    sandbox: 'Card is being generated',
  },
  { route: CREATE, path: '$', kind: 'status', upstream: 201, sandbox: 200 },
  {
    route: CREATE,
    path: 'header:x-ratelimit-limit',
    kind: 'header',
    upstream: 'absent',
    sandbox: '60',
  },
  {
    route: CREATE,
    path: '$.data.card.status',
    kind: 'enum',
    upstream: 'pendin',
    sandbox: ['issuing', 'issued', 'failed'],
  },
]
const showFindings: Finding[] = [
  { route: SHOW, path: '$.data.card.expiry', kind: 'null', upstream: null, sandbox: 'string' },
  {
    route: SHOW,
    path: '$.data.card.created_at',
    kind: 'format',
    upstream: '2026-11-28T17:00:00Z',
    sandbox: 'string (YYYY-MM-DDTHH:mm:ss.SSSZ)',
  },
]
const LIST = 'GET /v1/cards'
const listFinding: Finding = {
  route: LIST,
  path: '$.data[1].pan_suffix',
  kind: 'extra-key',
  upstream: '42',
  sandbox: 'absent',
}
/** The create answer as recorded (masked: the last four digits are zeros). */
const createdUpstream = {
  message: 'Card created',
  statusCode: 201,
  data: { card: { reference: 'c-1', last4: '0000', balance: '0', status: 'pendin' } },
}
const refusal = {
  message: 'Insufficient balance',
  statusCode: 422,
  errors: { amount: ['too much'] },
}
const transferFinding: Finding = {
  route: TRANSFER,
  path: '$',
  kind: 'status',
  upstream: 422,
  sandbox: 200,
}

function line(
  at: string,
  method: string,
  path: string,
  status: number,
  findings: Finding[],
  body: unknown = {},
): RecordLine {
  return { at, method, path, status, response: { headers: {}, body }, findings }
}

const LINES: RecordLine[] = [
  line('2026-11-28T17:00:00.000Z', 'POST', '/v1/card-users/create', 200, []),
  line(
    '2026-11-28T17:00:01.000Z',
    'POST',
    '/v1/cards/create',
    201,
    createFindings,
    createdUpstream,
  ),
  line('2026-11-28T17:00:02.000Z', 'GET', '/v1/cards/c-1', 200, showFindings),
  line('2026-11-28T17:00:03.000Z', 'GET', '/v1/cards/c-1', 200, showFindings.slice(0, 1)),
  line('2026-11-28T17:00:03.500Z', 'GET', '/v1/cards', 200, [listFinding], {
    data: [{ reference: 'c-0' }, { reference: 'c-1', pan_suffix: '00' }],
  }),
  line('2026-11-28T17:00:04.000Z', 'POST', '/v1/transactions/create/card-to-bank', 200, []),
  line(
    '2026-11-28T17:00:05.000Z',
    'POST',
    '/v1/transactions/create/card-to-bank',
    422,
    [transferFinding],
    refusal,
  ),
  line('2026-11-28T17:00:06.000Z', 'POST', '/v1/transactions/create/card-to-bank', 200, []),
]

const STATEMENT = 'GET /v1/cards/{reference}/statement'
LINES.push(
  line('2026-11-28T17:00:07.000Z', 'GET', '/v1/cards/c-1/statement', 200, [
    { route: STATEMENT, path: '$', kind: 'unknown-route', upstream: 200, sandbox: 'absent' },
  ]),
)

const delay = (name: string, lastOldMs: number | null, firstNewMs: number | null) => ({
  delay: name,
  sandboxMs: 5000,
  resources: 1,
  moved: firstNewMs === null ? 0 : 1,
  lastOldMs,
  firstNewMs,
  newStates: [],
})

/** The report of LINES, with delay bounds of its own (LINES are too few to show any). */
const REPORT: Report = {
  ...compareRecording(LINES),
  timing: [
    delay('card_issuing', 2000, 3499.6),
    delay('card_user_verification', 1000, null),
    delay('card_freeze', null, 10),
    // a delay no resource of the recording went through says nothing
    { ...delay('transaction_settlement', 4000, null), resources: 0 },
  ],
}

const transfer = (card: string) => ({
  amount: 15000,
  card_reference: card,
  reference: `order-${Math.random()}`,
  bank_id: 'SN012-01001-000123456789-12',
  bank_name: 'BICICI',
  bank_account_name: 'Moussa Ndiaye',
})

describe('scenarioFromReport', () => {
  it('writes a scenario the sandbox loads, one rule per route that drifted, with where it comes from', () => {
    const text = scenarioFromReport(REPORT, LINES)
    const scenario = parseScenario(text, 'pinned.yaml')
    expect(scenario.name).toBe('pinned-drift')
    expect(scenario.delays).toEqual({ card_issuing: 3500, card_user_verification: 1000 })
    // literal paths first (a template's rule would take their calls), else the report's order
    expect(scenario.rules).toEqual([
      {
        // one element's finding pins every element, with the recorded (masked) value
        match: { method: 'GET', path: '/v1/cards' },
        edit: { add: { '$.data[*].pan_suffix': '00' } },
      },
      {
        match: { method: 'POST', path: '/v1/cards/create' },
        edit: {
          add: { '$.data.card.last4': '0000' },
          drop: ['$.data.card.cvv2'],
          retype: { '$.data.card.balance': 'string' },
          message: 'Card created',
          status: 201,
        },
      },
      {
        match: { method: 'POST', path: '/v1/transactions/create/card-to-bank', nth: [2] },
        respond: { status: 422, body: refusal },
      },
      {
        match: { method: 'GET', path: '/v1/cards/:reference' },
        edit: { retype: { '$.data.card.expiry': 'null' } },
      },
    ])
    // each rule says where it comes from: route, kinds, counts, first instant
    expect(text).toContain(
      '# POST /v1/cards/create: extra-key, missing-key, type, message, status — 5 findings on 1 of 1 calls, first at 2026-11-28T17:00:01.000Z',
    )
    expect(text).toContain(
      '# GET /v1/cards/{reference}: null — 1 finding on 2 of 2 calls, first at 2026-11-28T17:00:02.000Z',
    )
    expect(text).toContain(
      '# POST /v1/transactions/create/card-to-bank: status 422 where the sandbox answers 200 — 1 of 3 calls (nth: those calls, counted per tenant), first at 2026-11-28T17:00:05.000Z',
    )
    // what an edit cannot pin is said, not dropped silently
    expect(text).toMatch(/# +header x-ratelimit-limit: upstream "absent", sandbox "60"/)
    expect(text).toMatch(/# +enum at \$\.data\.card\.status: upstream "pendin"/)
    expect(text).toMatch(/# +format at \$\.data\.card\.created_at/)
    expect(text).toContain('# GET /v1/cards/{reference}/statement: the sandbox has no such route')
    expect(text).toContain('# card_freeze: observed between ? ms and 10 ms (not a sandbox delay)')
    expect(text).toContain('# observed between 2000 ms and 3499.6 ms; the upper bound is pinned')
    expect(text).toContain(
      '# observed between 1000 ms and ? ms; the lower bound (no upper one seen) is pinned',
    )
  })

  it('a pinned route creates the resource with its own reference and answers as the upstream did', async () => {
    const file = join(tempDir(), 'pinned.yaml')
    writeFileSync(file, scenarioFromReport(REPORT, LINES))
    const s = newSandbox({ scenarios: [file] })
    cleanups.push(() => s.close())

    const user = await s.verifiedUser()
    const created = await s.call('POST', '/v1/cards/create', {
      card_user_reference: user,
      card_brand: 'visa',
      card_type: 'virtual',
    })
    expect(created.status).toBe(201)
    expect(created.headers.get('x-card-sandbox-scenario')).toBe('pinned-drift/rule 2')
    expect(created.body.message).toBe('Card created')
    const card = created.body.data.card
    expect(card.reference).toMatch(UUID)
    expect(card.last4).toBe('0000')
    expect(card.balance).toBe('0')
    expect('cvv2' in card).toBe(false)

    // read back: the card is the sandbox's, with the show route's own pin (expiry null)
    await s.call('POST', `/__sandbox/cards/${card.reference}/transition`, { to: 'issued' })
    const shown = await s.call('GET', `/v1/cards/${card.reference}`)
    expect(shown.status).toBe(200)
    expect(shown.body.data.card.reference).toBe(card.reference)
    expect(shown.body.data.card.status).toBe('issued')
    expect(shown.body.data.card.cvv2).toMatch(/^\d{3}$/)
    expect(shown.body.data.card.expiry).toBeNull()
    const listed = await s.call('GET', '/v1/cards')
    expect(listed.body.data.map((c: { reference: string }) => c.reference)).toEqual([
      card.reference,
    ])

    // the issuing delay pinned from the recording's bounds
    expect((await s.call('GET', '/__sandbox/delays')).body.data.card_issuing).toBe(3500)
  })

  it('pins the refused call as the upstream answered it, and only that call', async () => {
    const file = join(tempDir(), 'pinned.yaml')
    writeFileSync(file, scenarioFromReport(REPORT, LINES))
    const s = newSandbox({ scenarios: [file] })
    cleanups.push(() => s.close())
    const { reference } = await s.fundedCard()
    const first = await s.call('POST', '/v1/transactions/create/card-to-bank', transfer(reference))
    const second = await s.call('POST', '/v1/transactions/create/card-to-bank', transfer(reference))
    const third = await s.call('POST', '/v1/transactions/create/card-to-bank', transfer(reference))
    expect([first.status, second.status, third.status]).toEqual([200, 422, 200])
    expect(second.body).toEqual(refusal)
    const listed = await s.call('GET', '/v1/transactions?per_page=100')
    // funding made its own transactions: the refused call made no card-to-bank one
    const transfers = listed.body.data.transaction.filter(
      (t: { kind: string }) => t.kind === 'card_to_bank',
    )
    expect(transfers.map((t: { slug: string }) => t.slug).sort()).toEqual(
      [first.body.data.transaction.slug, third.body.data.transaction.slug].sort(),
    )
  })

  it("leaves a delay alone when the sandbox's default lies within the bounds the recording shows", () => {
    const clean = [line('2026-11-28T17:00:00.000Z', 'POST', '/v1/cards/create', 200, [])]
    const report = {
      ...compareRecording(clean),
      // the sandbox's 5000 ms: after the last old read, by the first new one
      timing: [delay('card_issuing', 4000, 6000), delay('card_user_verification', 6000, 7000)],
    }
    const scenario = parseScenario(scenarioFromReport(report, clean), 'x.yaml')
    expect(scenario.delays).toEqual({ card_user_verification: 7000 })
  })

  it('a report without findings pins nothing but the delays', () => {
    const clean = [line('2026-11-28T17:00:00.000Z', 'POST', '/v1/cards/create', 200, [])]
    const text = scenarioFromReport(compareRecording(clean), clean, { name: 'clean' })
    expect(parseScenario(text, 'clean.yaml')).toEqual({ name: 'clean', rules: [] })
  })
})
