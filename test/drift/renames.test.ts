/**
 * Keys the real service renamed (drift/renames.ts), read from recorded answers of the card create:
 * a key of the sandbox's missing beside one added in the same object is a rename when the value
 * under the new name passes the old key's schema.
 */
import { describe, expect, it } from 'vitest'
import { compareExchange } from '../../src/drift/compare.js'
import type { RecordLine } from '../../src/drift/report.js'
import { findRenames, newName, renamedIn, withRenames } from '../../src/drift/renames.js'

const CREATE = 'POST /v1/cards/create'

/** The sandbox's card create answer, as SPEC.md shows it. */
const card = () => ({
  reference: '5b8f3c1e-8a0e-4d8b-9a51-3f0c4e2b7d10',
  card_number: null as unknown,
  card_brand: 'Visa',
  card_type: 'virtual',
  cvv2: null as unknown,
  expiry: null as unknown,
  balance: 0 as unknown,
  status: 'issuing',
})

const answer = (data: object) => ({ message: 'Card is being generated', statusCode: 200, data })

/** A recorded card create with `body` as the upstream's answer, and its findings. */
function recorded(body: object, status = 200): RecordLine {
  const headers = { 'content-type': 'application/json' }
  return {
    at: '2026-12-01T10:00:00.000Z',
    method: 'POST',
    path: '/v1/cards/create',
    status,
    response: { headers, body },
    findings: compareExchange({ method: 'POST', path: '/v1/cards/create', status, headers, body }),
  }
}

/** A recorded card list (GET /v1/cards) with `body` as the upstream's answer. */
function recordedList(body: object): RecordLine {
  const headers = { 'content-type': 'application/json' }
  return {
    at: '2026-12-01T10:00:00.000Z',
    method: 'GET',
    path: '/v1/cards',
    status: 200,
    response: { headers, body },
    findings: compareExchange({ method: 'GET', path: '/v1/cards', status: 200, headers, body }),
  }
}

const listed = () => ({
  reference: '5b8f3c1e-8a0e-4d8b-9a51-3f0c4e2b7d10',
  balance: 0 as unknown,
  last_four: '1017',
  status: 'issued',
  card_type: 'Visa',
  card_brand: 'virtual',
})

const META = { current_page: 1, from: 1, last_page: 1, per_page: 20, to: 1, total: 1 }

/** The card with its keys in the reverse order. */
const reversed = (object: object) => Object.fromEntries(Object.entries(object).reverse())

/** The card with `from` renamed `to`, in its place. */
function renamed(object: Record<string, unknown>, from: string, to: string) {
  return Object.fromEntries(Object.entries(object).map(([k, v]) => [k === from ? to : k, v]))
}

/**
 * The card without `status`, its value under two new keys: `middle` after the card's second key,
 * `last` where `status` was (its place).
 */
function twoCandidates(middle: string, last: string) {
  const { status, ...rest } = card()
  const entries = Object.entries(rest)
  return Object.fromEntries([
    ...entries.slice(0, 2),
    [middle, status],
    ...entries.slice(2),
    [last, status],
  ])
}

describe('findRenames', () => {
  it('finds an object renamed, and names its new key', () => {
    const renames = findRenames(CREATE, [recorded(answer({ issued: card() }))])
    expect(renames).toEqual([{ path: '$.data.card', renamed: '$.data.issued' }])
    expect(newName(renames[0])).toBe('issued')
  })

  it('finds a scalar renamed when its schema says more than a type, not a bare integer', () => {
    expect(
      findRenames(CREATE, [recorded(answer({ card: renamed(card(), 'status', 'state') }))]),
    ).toEqual([{ path: '$.data.card.status', renamed: '$.data.card.state' }])
    expect(
      findRenames(CREATE, [recorded(answer({ card: renamed(card(), 'expiry', 'expires') }))]),
    ).toEqual([{ path: '$.data.card.expiry', renamed: '$.data.card.expires' }])
    // `integer`: a drop and an add
    expect(
      findRenames(CREATE, [recorded(answer({ card: renamed(card(), 'balance', 'amount') }))]),
    ).toEqual([])
  })

  it('takes no rename whose value fails the old key’s schema', () => {
    const state = { ...renamed(card(), 'status', 'state'), state: 'pending' }
    expect(findRenames(CREATE, [recorded(answer({ card: state }))])).toEqual([])
  })

  it('takes an object whose keys differ inside at most by half, not by more', () => {
    const changed = (n: number) => {
      const values = { card_number: 5, cvv2: 5, expiry: 5, balance: '0', status: 'unknown' }
      return { ...card(), ...Object.fromEntries(Object.entries(values).slice(0, n)) }
    }
    // the card has 8 keys: 4 differing inside is half
    expect(findRenames(CREATE, [recorded(answer({ item: changed(4) }))])).toEqual([
      { path: '$.data.card', renamed: '$.data.item' },
    ])
    expect(findRenames(CREATE, [recorded(answer({ item: changed(5) }))])).toEqual([])
  })

  it('reads success answers only', () => {
    const line = recorded(answer({ card: renamed(card(), 'status', 'state') }))
    for (const status of [199, 300, 404, 502])
      expect(findRenames(CREATE, [{ ...line, status }])).toEqual([])
  })

  it('takes a rename only if every answer that shows it is explained by it', () => {
    const good = recorded(answer({ card: renamed(card(), 'status', 'state') }))
    const bad = recorded(answer({ card: { ...renamed(card(), 'status', 'state'), state: 'x' } }))
    expect(findRenames(CREATE, [good, good])).toHaveLength(1)
    expect(findRenames(CREATE, [good, bad])).toEqual([])
  })

  it('counts keys in another order inside as one difference, and refuses the rename for no more', () => {
    const changed = (n: number) => {
      const values = { card_number: 5, cvv2: 5, expiry: 5, balance: '0' }
      return reversed({ ...card(), ...Object.fromEntries(Object.entries(values).slice(0, n)) })
    }
    expect(findRenames(CREATE, [recorded(answer({ item: changed(0) }))])).toEqual([
      { path: '$.data.card', renamed: '$.data.item' },
    ])
    // 3 values and the order: half of the 8 keys
    expect(findRenames(CREATE, [recorded(answer({ item: changed(3) }))])).toHaveLength(1)
    expect(findRenames(CREATE, [recorded(answer({ item: changed(4) }))])).toEqual([])
  })

  it('keeps a rename that failed answers show as well', () => {
    const line = recorded(answer({ issued: card() }))
    expect(findRenames(CREATE, [line, { ...line, status: 500 }])).toEqual([
      { path: '$.data.card', renamed: '$.data.issued' },
    ])
  })

  it('pairs no keys of two different objects', () => {
    const { status, ...rest } = card()
    expect(findRenames(CREATE, [recorded(answer({ card: rest, state: status }))])).toEqual([])
  })

  it('of two new keys that could be the old one, takes the one in its place', () => {
    // `phase` comes first in the answer, `state` where `status` was (last)
    expect(
      findRenames(CREATE, [recorded(answer({ card: twoCandidates('phase', 'state') }))]),
    ).toEqual([{ path: '$.data.card.status', renamed: '$.data.card.state' }])
  })

  it('takes the key in its place in every answer over one moved in some', () => {
    // `state` moved, `phase` in the place of `status`; then `state` alone, in its place
    const phaseInPlace = twoCandidates('state', 'phase')
    const stateAlone = renamed(card(), 'status', 'state')
    expect(
      findRenames(CREATE, [
        recorded(answer({ card: stateAlone })),
        recorded(answer({ card: phaseInPlace })),
      ]),
    ).toEqual([{ path: '$.data.card.status', renamed: '$.data.card.phase' }])
  })

  it('counts a key in its place when the answer had the other keys out of order already', () => {
    const { status, ...rest } = card()
    const entries = Object.entries(rest)
    const phaseFirst = twoCandidates('phase', 'state')
    // `state` alone, in the place of `status`, in an answer whose first two keys are swapped
    const swapped = Object.fromEntries([
      entries[1],
      entries[0],
      ...entries.slice(2),
      ['state', status],
    ])
    expect(
      findRenames(CREATE, [
        recorded(answer({ card: phaseFirst })),
        recorded(answer({ card: swapped })),
      ]),
    ).toEqual([{ path: '$.data.card.status', renamed: '$.data.card.state' }])
  })
})

describe('renamedIn and withRenames', () => {
  const rename = { path: '$.data.card', renamed: '$.data.issued' }

  it('tells whether an answer had the key renamed', () => {
    expect(renamedIn(recorded(answer({ issued: card() })), rename)).toBe(true)
    expect(renamedIn(recorded(answer({ card: card() })), rename)).toBe(false)
    expect(renamedIn(recorded(answer({})), rename)).toBe(false)
    // the old key there with another type, or there at all: no rename
    expect(renamedIn(recorded(answer({ card: 'text', issued: card() })), rename)).toBe(false)
    expect(renamedIn(recorded(answer({ card: card(), issued: card() })), rename)).toBe(false)
    // another key missing and another added
    expect(renamedIn(recorded(answer({ card: renamed(card(), 'status', 'state') })), rename)).toBe(
      false,
    )
  })

  it('reports keys in another order inside the renamed key under its new name', () => {
    const findings = withRenames(
      recorded(answer({ issued: reversed(card()) })),
      [rename],
      CREATE,
    ).findings!
    expect(
      findings.filter((f) => !f.path.startsWith('header:')).map((f) => [f.path, f.kind]),
    ).toEqual([['$.data.issued', 'key-order']])
  })

  it('renames a list: what differs in its items is found under the new name', () => {
    const list = { path: '$.data', renamed: '$.items' }
    const line = recordedList({
      message: 'Cards fetched successfully',
      statusCode: 200,
      items: [{ ...listed(), balance: '0' }],
      meta: META,
    })
    expect(findRenames('GET /v1/cards', [line])).toEqual([list])
    const findings = withRenames(line, [list], 'GET /v1/cards').findings!
    expect(
      findings.filter((f) => !f.path.startsWith('header:')).map((f) => [f.path, f.kind]),
    ).toEqual([['$.items[*].balance', 'type']])
  })

  it('drops the missing and added keys a rename explains, and reports inside under the new name', () => {
    const line = recorded(answer({ issued: { ...card(), balance: '0' } }))
    const findings = withRenames(line, [rename], CREATE).findings!
    const body = findings.filter((f) => !f.path.startsWith('header:'))
    expect(body.map((f) => [f.path, f.kind])).toEqual([['$.data.issued.balance', 'type']])
  })

  it('keeps a drop inside the renamed key at its old path', () => {
    const { cvv2: _, ...noCvv } = card()
    const line = recorded(answer({ issued: noCvv }))
    const findings = withRenames(line, [rename], CREATE).findings!
    expect(findings.filter((f) => f.kind === 'missing-key').map((f) => f.path)).toEqual([
      '$.data.card.cvv2',
    ])
  })

  it('leaves a failed answer and one without the rename as they are', () => {
    const failed = { ...recorded(answer({ issued: card() })), status: 500 }
    expect(withRenames(failed, [rename], CREATE)).toBe(failed)
    const plain = recorded(answer({ card: { ...card(), balance: '0' } }))
    expect(withRenames(plain, [rename], CREATE)).toBe(plain)
  })
})
