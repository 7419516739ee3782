/**
 * Pinning drift: a report's findings written as a scenario file that the sandbox's own loader
 * reads, and that makes the sandbox answer as the upstream did while it keeps its references.
 */
import { writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { afterEach, describe, expect, it } from 'vitest'
import { parseScenario } from '../../src/engine/scenarios/load.js'
import { compareExchange, type Finding } from '../../src/drift/compare.js'
import { scenarioFromReport } from '../../src/drift/pin.js'
import { compareRecording, type RecordLine, type Report } from '../../src/drift/report.js'
import { fullIdentity, newSandbox, UUID } from '../helpers.js'
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

  it('pins a route refused on every recorded call for every call, not the first n', async () => {
    const CREATE_USER = 'POST /v1/card-users/create'
    const taken = { message: 'The phone is taken.', statusCode: 409 }
    const refused = (at: string) =>
      line(
        at,
        'POST',
        '/v1/card-users/create',
        409,
        [{ route: CREATE_USER, path: '$', kind: 'status', upstream: 409, sandbox: 200 }],
        taken,
      )
    const lines = [refused('2026-11-28T17:00:00.000Z'), refused('2026-11-28T17:00:01.000Z')]
    const text = scenarioFromReport(compareRecording(lines), lines)
    expect(parseScenario(text, 'pinned.yaml').rules).toEqual([
      {
        match: { method: 'POST', path: '/v1/card-users/create' },
        respond: { status: 409, body: taken },
      },
    ])
    expect(text).toContain('— 2 of 2 calls, first at 2026-11-28T17:00:00.000Z')

    const file = join(tempDir(), 'pinned.yaml')
    writeFileSync(file, text)
    const s = newSandbox({ scenarios: [file] })
    cleanups.push(() => s.close())
    // past the two calls recorded too
    for (let i = 0; i < 3; i++) {
      const answer = await s.call('POST', '/v1/card-users/create', fullIdentity())
      expect([answer.status, answer.body]).toEqual([409, taken])
    }
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

type Sandbox = ReturnType<typeof newSandbox>

/**
 * A sandbox's answer to a call, changed by `plant` as the real service would answer, recorded as
 * the proxy records it (findings from compare.ts, the request's body kept).
 */
async function recorded(
  s: Sandbox,
  method: string,
  path: string,
  body: unknown,
  plant: (answer: any) => void = () => undefined,
): Promise<RecordLine> {
  const answer = await s.call(method, path, body)
  plant(answer.body)
  const headers = Object.fromEntries(answer.headers)
  const exchange = { method, path, status: answer.status, headers, body: answer.body }
  return {
    at: '2026-11-28T17:00:00.000Z',
    method,
    path,
    status: answer.status,
    request: { headers: {}, body: body ?? null },
    response: { headers, body: answer.body },
    findings: compareExchange(exchange),
  }
}

/** A scenario file pinning the lines, and a fresh sandbox that loads it. */
function pinned(lines: RecordLine[]) {
  const text = scenarioFromReport(compareRecording(lines), lines)
  const file = join(tempDir(), 'pinned.yaml')
  writeFileSync(file, text)
  const s = newSandbox({ scenarios: [file] })
  cleanups.push(() => s.close())
  return { text, scenario: parseScenario(text, file), s }
}

/** A sandbox the recordings are made on, as the real service's stand-in. */
function upstream(): Sandbox {
  const s = newSandbox()
  cleanups.push(() => s.close())
  return s
}

describe('scenarioFromReport: renames, copies and placeholders', () => {
  it('pins a renamed key as rename in the shape the route gave, what differs inside it at its new name', async () => {
    const real = upstream()
    // the full-identity create: userCard called cardUser, without email, the phone a number;
    // a wallet before it, an object of other keys
    const wallet = { id: '6f1c2a34-5b6d-4e7f-8a9b-0c1d2e3f4a5b', currency: 'XOF' }
    const create = await recorded(real, 'POST', '/v1/card-users/create', fullIdentity(), (b) => {
      const { email: _email, phone, ...user } = b.data.userCard
      b.data = { message: b.data.message, wallet, cardUser: { ...user, phone: Number(phone) } }
    })
    const { reference: card } = await real.issuedCard()
    // a card's status called state, in place, and sent again first; cvv2 gone, last4 added
    const show = await recorded(real, 'GET', `/v1/cards/${card}`, undefined, (b) => {
      const { status, cvv2: _cvv2, ...rest } = b.data.card
      b.data.card = { was: status, ...rest, state: status, last4: '1017' }
    })

    const { scenario, s } = pinned([create, show])
    expect(scenario.rules).toEqual([
      {
        match: { method: 'POST', path: '/v1/card-users/create' },
        edit: {
          rename: { '$.data.userCard': 'cardUser' },
          // dropped before the rename, retyped after it
          drop: ['$.data.userCard.email'],
          retype: { '$.data.cardUser.phone': 'number' },
          add: { '$.data.wallet': { id: '00000000-0000-4000-8000-000000000000', currency: 'XOF' } },
        },
      },
      {
        match: { method: 'GET', path: '/v1/cards/:reference' },
        edit: {
          // a closed list's value in the old key's place is a rename; a plain string is not
          rename: { '$.data.card.status': 'state' },
          drop: ['$.data.card.cvv2'],
          copy: { '$.data.card.was': '$.data.card.state' },
          add: { '$.data.card.last4': '1017' },
        },
      },
    ])

    const created = await s.call('POST', '/v1/card-users/create', fullIdentity())
    const { cardUser } = created.body.data
    expect(cardUser.reference).toMatch(UUID)
    expect(cardUser.phone).toBe(221770000001)
    expect('email' in cardUser).toBe(false)
    const read = await s.call('GET', `/v1/card-users/${cardUser.reference}`)
    expect(read.body.data.cardUser.reference).toBe(cardUser.reference)
    await s.call('POST', `/__sandbox/card-users/${cardUser.reference}/transition`, { to: 'passed' })
    const mine = (
      await s.call('POST', '/v1/cards/create', {
        card_user_reference: cardUser.reference,
        card_brand: 'visa',
        card_type: 'virtual',
      })
    ).body.data.card.reference
    const shown = await s.call('GET', `/v1/cards/${mine}`)
    expect(shown.body.data.card).toMatchObject({
      reference: mine,
      state: 'issuing',
      was: 'issuing',
      last4: '1017',
    })
    expect(Object.keys(shown.body.data.card).slice(-3)).toEqual(['state', 'last4', 'was'])
  })

  it('pins a widget create as a widget create', async () => {
    const real = upstream()
    const widget = await recorded(
      real,
      'POST',
      '/v1/card-users/create',
      { phone: '+221770000002' },
      (b) => {
        b.cardUser = b.userCard
        delete b.userCard
      },
    )
    const { scenario, s } = pinned([widget])
    expect(scenario.rules.map((rule) => rule.edit)).toEqual([
      { rename: { '$.userCard': 'cardUser' } },
    ])
    const created = await s.call('POST', '/v1/card-users/create', { phone: '+221770000003' })
    expect(created.body.cardUser.reference).toMatch(UUID)
    expect(created.body.userCard).toBeUndefined()
  })

  it('does not take an added key of another type for the missing one renamed', async () => {
    const real = upstream()
    // the user in a list of one: not the same key under another name
    const create = await recorded(real, 'POST', '/v1/card-users/create', fullIdentity(), (b) => {
      b.data = { message: b.data.message, cardUsers: [b.data.userCard] }
    })
    const { scenario } = pinned([create])
    const [edit] = scenario.rules.map((rule) => rule.edit)
    expect(edit?.rename).toBeUndefined()
    expect(edit?.drop).toEqual(['$.data.userCard'])
    expect(Object.keys(edit?.add ?? {})).toEqual(['$.data.cardUsers'])
  })

  it('pins an added key equal to another key of each answer as a copy, each element its own', async () => {
    const real = upstream()
    for (let i = 0; i < 2; i++) await real.issuedCard()
    const list = await recorded(real, 'GET', '/v1/cards', undefined, (b) => {
      for (const card of b.data) card.id = card.reference
      // the first card's reference, and another value on the second: not a copy
      b.data[0].legacy = b.data[0].reference
      b.data[1].legacy = 'L-000042'
    })
    const { scenario, text, s } = pinned([list])
    expect(scenario.rules.map((rule) => rule.edit)).toEqual([
      {
        copy: { '$.data[*].id': '$.data[*].reference' },
        add: { '$.data[*].legacy': '00000000-0000-4000-8000-000000000000' },
      },
    ])
    expect(text).toContain(
      '#   $.data[*].id: a copy of $.data[*].reference, as in every answer recorded',
    )

    for (let i = 0; i < 2; i++) await s.issuedCard()
    const listed = await s.call('GET', '/v1/cards')
    expect(listed.body.data).toHaveLength(2)
    for (const card of listed.body.data) expect(card.id).toBe(card.reference)
    expect(listed.body.data[0].id).not.toBe(listed.body.data[1].id)
  })

  it('gives an added UUID, id, instant, amount or personal field a typed placeholder that the comment names', async () => {
    const real = upstream()
    const user = await real.verifiedUser()
    const create = await recorded(
      real,
      'POST',
      '/v1/cards/create',
      { card_user_reference: user, card_brand: 'visa', card_type: 'virtual' },
      (b) =>
        Object.assign(b.data.card, {
          wallet_id: '6f1c2a34-5b6d-4e7f-8a9b-0c1d2e3f4a5b',
          account_id: 'ACC-2026-77',
          issued_at: '2026-11-28T17:00:13.123456Z',
          fee: 150,
          holder: { email: 'awa.diop@example.com', phone: '+221770000001', kyc: 'full' },
          nickname: 'travel',
        }),
    )
    const { scenario, text } = pinned([create])
    expect(scenario.rules.map((rule) => rule.edit)).toEqual([
      {
        add: {
          '$.data.card.wallet_id': '00000000-0000-4000-8000-000000000000',
          '$.data.card.account_id': 'xxx-0000-00',
          '$.data.card.issued_at': '1970-01-01T00:00:00.000000Z',
          '$.data.card.fee': 0,
          '$.data.card.holder': {
            email: 'person@example.com',
            phone: '+000000000000',
            kyc: 'full',
          },
          // no resource's own: as recorded
          '$.data.card.nickname': 'travel',
        },
      },
    ])
    // each note whole, and no other
    const resource = "(the recorded one is one resource's)"
    const person = "(the recording's is never written)"
    expect(text.split('\n').filter((l) => l.startsWith('  #   '))).toEqual(
      [
        `$.data.card.wallet_id: "00000000-0000-4000-8000-000000000000", a placeholder for a UUID ${resource}`,
        `$.data.card.account_id: "xxx-0000-00", a placeholder for an id ${resource}`,
        `$.data.card.issued_at: "1970-01-01T00:00:00.000000Z", a placeholder for an instant ${resource}`,
        `$.data.card.fee: 0, a placeholder for an amount ${resource}`,
        `$.data.card.holder.email: "person@example.com", a placeholder for a personal field ${person}`,
        `$.data.card.holder.phone: "+000000000000", a placeholder for a personal field ${person}`,
      ].map((note) => `  #   ${note}`),
    )
  })

  it("writes no personal value of the recording: in an added value, a refused call's body, a message or a comment", () => {
    const person = fullIdentity()
    const taken = `The email ${person.email} is taken by ${person.first_name} ${person.last_name}.`
    const CREATE_USER = 'POST /v1/card-users/create'
    const lines: RecordLine[] = [
      {
        ...line(
          '2026-11-28T17:00:00.000Z',
          'POST',
          '/v1/card-users/create',
          200,
          [
            {
              route: CREATE_USER,
              path: '$.data.holder',
              kind: 'extra-key',
              upstream: 'object',
              sandbox: 'absent',
            },
            {
              route: CREATE_USER,
              path: '$.message',
              kind: 'message',
              upstream: `Welcome ${person.first_name}${person.last_name}`,
              sandbox: 'User verification in progress',
            },
            {
              route: CREATE_USER,
              path: '$.data.userCard.phone',
              kind: 'format',
              upstream: person.phone,
              sandbox: 'string (E.164)',
            },
          ],
          {
            message: `Welcome ${person.first_name}${person.last_name}`,
            data: { holder: `${person.first_name} ${person.last_name}, ${person.address}` },
          },
        ),
        request: { body: person },
      },
      line(
        '2026-11-28T17:00:01.000Z',
        'POST',
        '/v1/card-users/create',
        409,
        [{ route: CREATE_USER, path: '$', kind: 'status', upstream: 409, sandbox: 200 }],
        {
          message: taken,
          statusCode: 409,
          errors: { email: [taken] },
          customer: { phone: person.phone },
        },
      ),
    ]
    const text = scenarioFromReport(compareRecording(lines), lines)
    for (const value of Object.values(person)) expect(text).not.toContain(value)
    const rules = parseScenario(text, 'pinned.yaml').rules
    expect(rules).toEqual([
      {
        match: { method: 'POST', path: '/v1/card-users/create', nth: [2] },
        respond: {
          status: 409,
          body: {
            message: 'The email [personal] is taken by [personal] [personal].',
            statusCode: 409,
            // the keys of `errors` name fields, and their messages are texts
            errors: { email: ['The email [personal] is taken by [personal] [personal].'] },
            customer: { phone: '+000000000000' },
          },
        },
      },
      {
        match: { method: 'POST', path: '/v1/card-users/create' },
        edit: {
          add: { '$.data.holder': '[personal] [personal], [personal]' },
          // inside a word too
          message: 'Welcome [personal][personal]',
        },
      },
    ])
    expect(text).toContain('#   format at $.data.userCard.phone: upstream "+000000000000"')
  })
})

/** A scenario file's text: its two comment lines (`exchanges`: how many and when), then `rest`. */
const pinnedText = (exchanges: string, ...rest: string[]) =>
  [
    '# Pinned from a drift recording: each rule makes the sandbox answer as the real service did.',
    `# ${exchanges}. Load it with: card-sandbox --scenario <this file>`,
    'name: pinned-drift',
    ...rest,
  ].join('\n') + '\n'

const at = (second: number) => `2026-11-28T17:00:${String(second).padStart(2, '0')}.000Z`
const pin = (lines: RecordLine[]) => scenarioFromReport(compareRecording(lines), lines)
const status = (route: string, upstream: unknown): Finding => ({
  route,
  path: '$',
  kind: 'status',
  upstream,
  sandbox: 200,
})

describe('scenarioFromReport: the text it writes, line by line', () => {
  it('says how many exchanges it was pinned from and when: none, one, more', () => {
    expect(pin([])).toBe(pinnedText('0 exchanges recorded', 'rules: []'))
    const clean = (second: number) => line(at(second), 'GET', '/v1/cards', 200, [])
    expect(pin([clean(1)])).toBe(
      pinnedText(`1 exchange recorded, ${at(1)} to ${at(1)}`, 'rules: []'),
    )
    expect(pin([clean(1), clean(2)])).toBe(
      pinnedText(`2 exchanges recorded, ${at(1)} to ${at(2)}`, 'rules: []'),
    )
  })

  it('pins a delay at its bounds: a default equal to the last old read is outside, one equal to the first new read inside', () => {
    // each delay's default, here, 5000 ms
    const report = {
      ...compareRecording([]),
      timing: [
        delay('card_issuing', 5000, 6000),
        delay('card_user_verification', 4000, 5000),
        // no read in the old state: the move happened by the first new one
        delay('card_link_details', null, 6000),
        delay('transaction_settlement', null, null),
      ],
    }
    const text = scenarioFromReport(report, [])
    expect(text).toBe(
      pinnedText(
        '0 exchanges recorded',
        'delays:',
        '  # observed between 5000 ms and 6000 ms; the upper bound is pinned',
        '  card_issuing: 6000ms',
        "  # card_user_verification: observed between 4000 ms and 5000 ms; the sandbox's 5000 ms lies within (not pinned)",
        '  # observed between ? ms and 6000 ms; the upper bound is pinned',
        '  card_link_details: 6000ms',
        '  # transaction_settlement: observed between ? ms and ? ms (no bound)',
        'rules: []',
      ),
    )
    expect(parseScenario(text, 'x.yaml').delays).toEqual({
      card_issuing: 6000,
      card_link_details: 6000,
    })
  })

  it('a refusal pinned beside what differed on error answers only, a redirect, and what an edit cannot pin', () => {
    const FREEZE = 'POST /v1/cards/freeze'
    const UNFREEZE = 'POST /v1/cards/unfreeze'
    // longer than a YAML line of 80: written on one line all the same
    const tooMuch = {
      message:
        'The amount exceeds the available balance of the card; top the card up or lower the amount, then try again.',
      statusCode: 422,
    }
    const lines: RecordLine[] = [
      // a record line may hold no findings at all
      { at: at(0), method: 'POST', path: '/v1/cards/freeze', status: 200 },
      // 400, the first error status: refused, and what differs in the error answer only said
      line(
        at(1),
        'POST',
        '/v1/cards/freeze',
        400,
        [
          status(FREEZE, 400),
          {
            route: FREEZE,
            path: '$.hint',
            kind: 'extra-key',
            upstream: 'string',
            sandbox: 'absent',
          },
        ],
        { message: 'The card reference is malformed.', statusCode: 400, hint: 'see the docs' },
      ),
      line(at(2), 'POST', '/v1/cards/unfreeze', 302, [status(UNFREEZE, 302)]),
      line(
        at(3),
        'POST',
        '/v1/transactions/create/card-to-bank',
        422,
        [status(TRANSFER, 422)],
        tooMuch,
      ),
      line(
        at(4),
        'POST',
        '/v1/transactions/create/card-to-bank',
        422,
        [status(TRANSFER, 422)],
        tooMuch,
      ),
      line(at(5), 'GET', '/v1/cards/c-1', 200, [
        // a message that is not a text (a hand-edited record file) is said, not written
        { route: SHOW, path: '$.message', kind: 'message', upstream: null, sandbox: 'OK' },
        {
          route: SHOW,
          path: '$.data.card.status',
          kind: 'enum',
          upstream: 'pendin',
          sandbox: ['issuing', 'issued', 'failed'],
        },
        {
          route: SHOW,
          path: 'header:x-ratelimit-limit',
          kind: 'header',
          upstream: 'absent',
          sandbox: '60',
        },
        {
          route: SHOW,
          path: '$.data.card.created_at',
          kind: 'format',
          upstream: '2026-11-28T17:00:00Z',
          sandbox: undefined,
        },
      ]),
    ]
    const text = pin(lines)
    expect(text).toBe(
      pinnedText(
        `6 exchanges recorded, ${at(0)} to ${at(5)}`,
        'rules:',
        `  # POST /v1/cards/freeze: status 400 where the sandbox answers 200 — 1 of 2 calls (nth: those calls, counted per tenant), first at ${at(1)}`,
        '  - match:',
        '      method: POST',
        '      path: /v1/cards/freeze',
        '      nth:',
        '        - 2',
        '    respond:',
        '      status: 400',
        '      body:',
        '        message: The card reference is malformed.',
        '        statusCode: 400',
        '        hint: see the docs',
        '  # POST /v1/cards/freeze: nothing an edit can pin',
        '  #   extra-key at $.hint: seen on error answers only (not pinned)',
        '  # POST /v1/cards/unfreeze: nothing an edit can pin',
        '  #   status 302 where the sandbox answers 200',
        `  # POST /v1/transactions/create/card-to-bank: status 422 where the sandbox answers 200 — 2 of 2 calls, first at ${at(3)}`,
        '  - match:',
        '      method: POST',
        '      path: /v1/transactions/create/card-to-bank',
        '    respond:',
        '      status: 422',
        '      body:',
        `        message: ${tooMuch.message}`,
        '        statusCode: 422',
        '  # GET /v1/cards/{reference}: nothing an edit can pin',
        '  #   message at $.message: null (not pinned)',
        '  #   enum at $.data.card.status: upstream "pendin", sandbox ["issuing","issued","failed"] (not pinned: a fixed value would stop it following the resource)',
        '  #   header x-ratelimit-limit: upstream "absent", sandbox "60" (edits change bodies, not headers)',
        '  #   format at $.data.card.created_at: upstream "2026-11-28T17:00:00Z", sandbox nothing (not pinned: an instant, a format or an order differs per answer)',
      ),
    )
    expect(parseScenario(text, 'x.yaml').rules).toEqual([
      {
        match: { method: 'POST', path: '/v1/cards/freeze', nth: [2] },
        respond: {
          status: 400,
          body: {
            message: 'The card reference is malformed.',
            statusCode: 400,
            hint: 'see the docs',
          },
        },
      },
      {
        match: { method: 'POST', path: '/v1/transactions/create/card-to-bank' },
        respond: { status: 422, body: tooMuch },
      },
    ])
  })

  it('pins a 299 answer, the last success status, as an edit with what else differs in it', () => {
    const LINK = 'POST /v1/cards/link'
    const lines = [
      line(
        at(0),
        'POST',
        '/v1/cards/link',
        299,
        [
          status(LINK, 299),
          {
            route: LINK,
            path: '$.data.card.region',
            kind: 'extra-key',
            upstream: 'string',
            sandbox: 'absent',
          },
        ],
        { data: { card: { region: 'EU' } } },
      ),
    ]
    expect(pin(lines)).toBe(
      pinnedText(
        `1 exchange recorded, ${at(0)} to ${at(0)}`,
        'rules:',
        `  # POST /v1/cards/link: status, extra-key — 2 findings on 1 of 1 calls, first at ${at(0)}`,
        '  - match:',
        '      method: POST',
        '      path: /v1/cards/link',
        '    edit:',
        '      status: 299',
        '      add:',
        '        $.data.card.region: EU',
      ),
    )
  })

  it('retypes to the JSON type the upstream sent: each of the six, and a string when the record holds none', () => {
    const type = (path: string, upstream: unknown): Finding => ({
      route: SHOW,
      path,
      kind: 'type',
      upstream,
      sandbox: 'string',
    })
    const lines = [
      line(
        at(0),
        'GET',
        '/v1/cards/c-1',
        200,
        [
          type('$.data.card.limits', 'array'),
          type('$.data.card.frozen', 'boolean'),
          type('$.data.card.brand', 'object'),
          type('$.data.card.balance', 'number'),
          type('$.data.card.expiry', 'null'),
          type('$.data.card.last4', 'string'),
          // nothing recorded to read the type from
          type('$.data.card.nickname', undefined),
        ],
        {
          data: {
            card: {
              limits: [1],
              frozen: true,
              brand: { name: 'visa' },
              balance: 5,
              expiry: null,
              last4: '1017',
            },
          },
        },
      ),
    ]
    const text = pin(lines)
    expect(text).toBe(
      pinnedText(
        `1 exchange recorded, ${at(0)} to ${at(0)}`,
        'rules:',
        `  # GET /v1/cards/{reference}: type — 7 findings on 1 of 1 calls, first at ${at(0)}`,
        '  - match:',
        '      method: GET',
        '      path: /v1/cards/:reference',
        '    edit:',
        '      retype:',
        '        $.data.card.limits: array',
        '        $.data.card.frozen: boolean',
        '        $.data.card.brand: object',
        '        $.data.card.balance: number',
        '        $.data.card.expiry: "null"',
        '        $.data.card.last4: string',
        '        $.data.card.nickname: string',
      ),
    )
    expect(parseScenario(text, 'x.yaml').rules[0].edit?.retype).toEqual({
      '$.data.card.limits': 'array',
      '$.data.card.frozen': 'boolean',
      '$.data.card.brand': 'object',
      '$.data.card.balance': 'number',
      '$.data.card.expiry': 'null',
      '$.data.card.last4': 'string',
      '$.data.card.nickname': 'string',
    })
  })

  it("a template route pins its own findings, not those of a call it takes that the sandbox has no route for; a literal path's dot is a dot", () => {
    const unknown = (second: number, path: string) =>
      line(
        at(second),
        'GET',
        path,
        200,
        compareExchange({ method: 'GET', path, status: 200, headers: {}, body: {} }),
      )
    const lines = [
      // the sandbox has POST /v1/cards/create; GET /v1/cards/{reference} takes its path too
      unknown(0, '/v1/cards/create'),
      line(at(1), 'GET', '/v1/cards/c-1', 200, showFindings.slice(0, 1)),
      unknown(2, '/v1/cards/c-1/statement.pdf'),
      unknown(3, '/v1/cards/c-1/statementXpdf'),
    ]
    expect(lines[0].findings?.map((f) => f.kind)).toEqual(['unknown-route'])
    const text = pin(lines)
    expect(text).toBe(
      pinnedText(
        `4 exchanges recorded, ${at(0)} to ${at(3)}`,
        'rules:',
        '  # GET /v1/cards/c-1/statement.pdf: the sandbox has no such route; nothing to pin (1 calls)',
        '  # GET /v1/cards/c-1/statementXpdf: the sandbox has no such route; nothing to pin (1 calls)',
        '  # GET /v1/cards/create: the sandbox has no such route; nothing to pin (1 calls)',
        // the rule takes GET /v1/cards/create in the sandbox too: a call of the route
        `  # GET /v1/cards/{reference}: null — 1 finding on 1 of 2 calls, first at ${at(1)}`,
        '  - match:',
        '      method: GET',
        '      path: /v1/cards/:reference',
        '    edit:',
        '      retype:',
        '        $.data.card.expiry: "null"',
      ),
    )
  })

  it('reads a status the record file gives as text: three digits, else the answer recorded', () => {
    const FREEZE = 'POST /v1/cards/freeze'
    const UNFREEZE = 'POST /v1/cards/unfreeze'
    const LINK = 'POST /v1/cards/link'
    const refused = (second: number, route: string, code: number, upstream: string) =>
      line(at(second), 'POST', route.split(' ')[1], code, [status(route, upstream)], {
        statusCode: code,
      })
    const lines = [
      refused(0, FREEZE, 429, '429'),
      refused(1, UNFREEZE, 422, '422 Unprocessable Entity'),
      refused(2, LINK, 409, 'n/a'),
    ]
    const rule = (route: string, code: number, second: number) => [
      `  # ${route}: status ${code} where the sandbox answers 200 — 1 of 1 calls, first at ${at(second)}`,
      '  - match:',
      '      method: POST',
      `      path: ${route.split(' ')[1]}`,
      '    respond:',
      `      status: ${code}`,
      '      body:',
      `        statusCode: ${code}`,
    ]
    expect(pin(lines)).toBe(
      pinnedText(
        `3 exchanges recorded, ${at(0)} to ${at(2)}`,
        'rules:',
        ...rule(FREEZE, 429, 0),
        ...rule(LINK, 409, 2),
        ...rule(UNFREEZE, 422, 1),
      ),
    )
  })

  it('pins from record lines without an answer: a refusal without a body, an added value from the answer that has it', () => {
    const FREEZE = 'POST /v1/cards/freeze'
    const region: Finding = {
      route: SHOW,
      path: '$.data.card.region',
      kind: 'extra-key',
      upstream: 'string',
      sandbox: 'absent',
    }
    const lines: RecordLine[] = [
      { at: at(0), method: 'GET', path: '/v1/cards/c-1', status: 200, findings: [region] },
      line(at(1), 'GET', '/v1/cards/c-2', 200, [region], {
        data: { card: { reference: 'c-2', region: 'EU' } },
      }),
      {
        at: at(2),
        method: 'POST',
        path: '/v1/cards/freeze',
        status: 403,
        findings: [status(FREEZE, 403)],
      },
    ]
    expect(pin(lines)).toBe(
      pinnedText(
        `3 exchanges recorded, ${at(0)} to ${at(2)}`,
        'rules:',
        `  # POST /v1/cards/freeze: status 403 where the sandbox answers 200 — 1 of 1 calls, first at ${at(2)}`,
        '  - match:',
        '      method: POST',
        '      path: /v1/cards/freeze',
        '    respond:',
        '      status: 403',
        `  # GET /v1/cards/{reference}: extra-key — 1 finding on 2 of 2 calls, first at ${at(0)}`,
        '  - match:',
        '      method: GET',
        '      path: /v1/cards/:reference',
        '    edit:',
        '      add:',
        '        $.data.card.region: EU',
      ),
    )
  })
})

describe('scenarioFromReport: renames said as such', () => {
  it('counts the calls a rename was seen on, of two renames either, and says each', async () => {
    const real = upstream()
    const { reference: card } = await real.issuedCard()
    /** The card's keys renamed where they stand (a closed list's value: a rename, not a drop and an add). */
    const renaming =
      (names: Record<string, string>) => (b: { data: { card: Record<string, unknown> } }) => {
        b.data.card = Object.fromEntries(
          Object.entries(b.data.card).map(([key, value]) => [names[key] ?? key, value]),
        )
      }
    const show = (second: number, names: Record<string, string>) =>
      recorded(real, 'GET', `/v1/cards/${card}`, undefined, renaming(names)).then((line) => ({
        ...line,
        at: at(second),
      }))
    const lines = [
      await show(0, { status: 'state' }),
      await show(1, { status: 'state', card_type: 'kind' }),
      // the same route answered as the sandbox does
      await show(2, {}),
    ]
    expect(lines[2].findings).toEqual([])
    const { text, scenario } = pinned(lines)
    expect(scenario.rules).toEqual([
      {
        match: { method: 'GET', path: '/v1/cards/:reference' },
        edit: { rename: { '$.data.card.status': 'state', '$.data.card.card_type': 'kind' } },
      },
    ])
    expect(text).toBe(
      pinnedText(
        `3 exchanges recorded, ${at(0)} to ${at(2)}`,
        'rules:',
        `  # GET /v1/cards/{reference}: rename — 2 findings on 2 of 3 calls, first at ${at(0)}`,
        "  #   rename at $.data.card.status: the real service answers it as $.data.card.state (each answer's own value moves under the new name)",
        "  #   rename at $.data.card.card_type: the real service answers it as $.data.card.kind (each answer's own value moves under the new name)",
        '  - match:',
        '      method: GET',
        '      path: /v1/cards/:reference',
        '    edit:',
        '      rename:',
        '        $.data.card.status: state',
        '        $.data.card.card_type: kind',
      ),
    )
  })
})
