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
    for (const note of [
      '$.data.card.wallet_id: "00000000-0000-4000-8000-000000000000", a placeholder for a UUID',
      '$.data.card.account_id: "xxx-0000-00", a placeholder for an id',
      '$.data.card.issued_at: "1970-01-01T00:00:00.000000Z", a placeholder for an instant',
      '$.data.card.fee: 0, a placeholder for an amount',
      '$.data.card.holder.email: "person@example.com", a placeholder for a personal field',
      '$.data.card.holder.phone: "+000000000000", a placeholder for a personal field',
    ])
      expect(text).toContain(`#   ${note}`)
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
