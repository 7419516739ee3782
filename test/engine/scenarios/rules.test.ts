/**
 * Matching requests against scenario rules (src/engine/scenarios/rules.ts) on its own: each kind
 * of match at its boundary, the per-tenant counts of nth and times, the seeded rate, and how the
 * effects of rules that continue add up.
 */
import { describe, expect, it } from 'vitest'
import {
  createRuleMatcher,
  type ActiveScenario,
  type ScenarioRequest,
} from '../../../src/engine/scenarios/rules.js'
import { scenarioSchema } from '../../../src/engine/scenarios/schema.js'

/** A scenario from a file, as the loader parses it. */
const active = (rules: unknown[], name = 'test', source = 'file.yaml'): ActiveScenario => ({
  source,
  scenario: scenarioSchema.parse({ name, rules }),
})

const request = (over: Partial<ScenarioRequest> = {}): ScenarioRequest => ({
  method: 'POST',
  path: '/v1/cards/create',
  body: {},
  token: 'tok-a',
  tenantId: 'ten_a',
  ...over,
})

/** Whether one rule with `match` matches the request. */
function matches(match: object, over: Partial<ScenarioRequest> = {}): boolean {
  const matcher = createRuleMatcher(() => 0)
  const effects = matcher.evaluate([active([{ match, latency: 1 }])], request(over))
  return effects.matched.length === 1
}

describe('a rule matches', () => {
  it('by method and by the tenant’s token', () => {
    expect(matches({ method: 'post' })).toBe(true)
    expect(matches({ method: 'GET' })).toBe(false)
    expect(matches({ tenant: 'tok-a' })).toBe(true)
    expect(matches({ tenant: 'tok-b' })).toBe(false)
    expect(matches({})).toBe(true)
  })

  it('by path: a :param is one segment, * any run, a trailing slash either way, dots as dots', () => {
    expect(matches({ path: '/v1/cards/:ref' }, { path: '/v1/cards/c-1' })).toBe(true)
    expect(matches({ path: '/v1/cards/:ref' }, { path: '/v1/cards/c-1/x' })).toBe(false)
    expect(matches({ path: '/v1/*' }, { path: '/v1/cards/c-1/x' })).toBe(true)
    expect(matches({ path: '/v1/cards/' }, { path: '/v1/cards' })).toBe(true)
    expect(matches({ path: '/v1/cards' }, { path: '/v1/cards/' })).toBe(true)
    expect(matches({ path: '/v1/cards' }, { path: '/v1/cardsx' })).toBe(false)
    expect(matches({ path: '/v1/cards' }, { path: '/x/v1/cards' })).toBe(false)
    expect(matches({ path: '/v1/a.b' }, { path: '/v1/aXb' })).toBe(false)
    expect(matches({ path: '/v1/a.b' }, { path: '/v1/a.b' })).toBe(true)
  })

  it('by a body field, nested by dots, exactly or by eq', () => {
    const body = { amount: 5000, customer: { phone: '+2250700000404' }, flag: false }
    expect(matches({ body: { amount: 5000 } }, { body })).toBe(true)
    expect(matches({ body: { amount: 5001 } }, { body })).toBe(false)
    expect(matches({ body: { 'customer.phone': '+2250700000404' } }, { body })).toBe(true)
    expect(matches({ body: { 'customer.phone.x': 'a' } }, { body })).toBe(false)
    expect(matches({ body: { 'missing.deeper': null } }, { body })).toBe(false)
    expect(matches({ body: { 'gone.deeper': 'x' } }, { body: { gone: null } })).toBe(false)
    expect(matches({ body: { flag: { eq: false } } }, { body })).toBe(true)
    expect(matches({ body: { flag: { eq: true } } }, { body })).toBe(false)
    expect(matches({ body: { amount: { in: [1, 5000] } } }, { body })).toBe(true)
    expect(matches({ body: { amount: { in: [1, 2] } } }, { body })).toBe(false)
  })

  it('by every field given, not by the first alone', () => {
    const body = { a: 1, b: 2 }
    expect(matches({ body: { a: 1, b: 2 } }, { body })).toBe(true)
    expect(matches({ body: { a: 1, b: 3 } }, { body })).toBe(false)
  })

  it('by a pattern, on a string or a number only', () => {
    const body = { phone: '+2250700000404', amount: 4004, items: ['4004'] }
    expect(matches({ body: { phone: { pattern: '0404$' } } }, { body })).toBe(true)
    expect(matches({ body: { phone: { pattern: '^0404' } } }, { body })).toBe(false)
    expect(matches({ body: { amount: { pattern: '^40' } } }, { body })).toBe(true)
    expect(matches({ body: { items: { pattern: '4004' } } }, { body })).toBe(false)
  })

  it('by a range, each bound at its edge, a number only', () => {
    const at = (amount: unknown, range: object) =>
      matches({ body: { amount: range } }, { body: { amount } })
    expect(at(100, { gt: 99 })).toBe(true)
    expect(at(100, { gt: 100 })).toBe(false)
    expect(at(100, { gte: 100 })).toBe(true)
    expect(at(100, { gte: 101 })).toBe(false)
    expect(at(100, { lt: 101 })).toBe(true)
    expect(at(100, { lt: 100 })).toBe(false)
    expect(at(100, { lte: 100 })).toBe(true)
    expect(at(100, { lte: 99 })).toBe(false)
    expect(at(100, { gte: 50, lt: 150 })).toBe(true)
    expect(at(200, { gte: 50, lt: 150 })).toBe(false)
    expect(at('100', { gte: 50 })).toBe(false)
  })
})

describe('counts and rates', () => {
  it('applies nth to the nth matching call of each tenant, and a list of them', () => {
    const matcher = createRuleMatcher(() => 0)
    const scenario = [active([{ match: { path: '/v1/cards/create', nth: [2, 4] }, latency: 5 }])]
    const hits = (tenantId: string) =>
      matcher.evaluate(scenario, request({ tenantId })).matched.length
    expect([hits('ten_a'), hits('ten_a'), hits('ten_b'), hits('ten_a'), hits('ten_a')]).toEqual([
      0, 1, 0, 0, 1,
    ])
    // a call that does not match the rule is not counted
    matcher.evaluate(scenario, request({ tenantId: 'ten_b', path: '/v1/cards' }))
    expect(hits('ten_b')).toBe(1)
  })

  it('applies times to the first n matching calls, and starts again after a reset', () => {
    const matcher = createRuleMatcher(() => 0)
    const scenario = [active([{ match: { times: 2 }, latency: 5 }])]
    const hits = (tenantId = 'ten_a') => matcher.evaluate(scenario, request({ tenantId })).matched
    expect([hits(), hits(), hits()].map((m) => m.length)).toEqual([1, 1, 0])
    expect(hits('ten_ab').length).toBe(1)
    matcher.resetCounts('ten_a')
    expect(hits().length).toBe(1)
    // another tenant's count, whose id starts the same, is kept
    expect([hits('ten_ab'), hits('ten_ab')].map((m) => m.length)).toEqual([1, 0])
  })

  it('counts each scenario and rule apart', () => {
    const matcher = createRuleMatcher(() => 0)
    const rule = { match: { nth: 1 }, latency: 1, continue: true }
    const scenarios = [active([rule, rule], 'one'), active([rule], 'two', 'other.yaml')]
    expect(matcher.evaluate(scenarios, request()).matched).toEqual([
      'one/rule 1',
      'one/rule 2',
      'two/rule 1',
    ])
    expect(matcher.evaluate(scenarios, request()).matched).toEqual([])
  })

  it('applies a rate when the seeded draw is below it', () => {
    const draws = [0.49, 0.5, 0.51]
    const matcher = createRuleMatcher(() => draws.shift()!)
    const scenario = [active([{ match: { rate: 0.5 }, latency: 1 }])]
    const hits = () => matcher.evaluate(scenario, request()).matched.length
    expect([hits(), hits(), hits()]).toEqual([1, 0, 0])
  })
})

describe('effects', () => {
  it('stops at the first rule that matches, unless it continues', () => {
    const matcher = createRuleMatcher(() => 0)
    const rules = [
      { name: 'first', match: { method: 'GET' }, latency: 1 },
      { name: 'second', latency: 10 },
      { name: 'third', latency: 100 },
    ]
    expect(matcher.evaluate([active(rules)], request())).toMatchObject({
      matched: ['test/second'],
      latencyMs: 10,
    })
  })

  it('adds the effects of rules that continue: latency summed, first answer and outcome kept, edits in order, drop if any', () => {
    const matcher = createRuleMatcher(() => 0)
    const rules = [
      { latency: 100, edit: { add: { '$.a': 1 } }, continue: true },
      { respond: { status: 503 }, outcome: 'failed', continue: true },
      { latency: '1s', drop: true, edit: { add: { '$.b': 2 } }, continue: true },
      {
        respond: { status: 200, headers: { 'x-a': '1' }, body: { ok: true } },
        outcome: 'success',
        outcome_after: '2s',
        drop: false,
      },
    ]
    expect(matcher.evaluate([active(rules)], request())).toEqual({
      respond: {
        status: 503,
        headers: {},
        body: { message: 'Service Unavailable', statusCode: 503 },
      },
      latencyMs: 1100,
      drop: true,
      edits: [{ add: { '$.a': 1 } }, { add: { '$.b': 2 } }],
      outcome: { to: 'failed', afterMs: undefined },
      matched: ['test/rule 1', 'test/rule 2', 'test/rule 3', 'test/rule 4'],
    })
  })

  it('keeps an answer’s own headers, body and outcome delay', () => {
    const matcher = createRuleMatcher(() => 0)
    const rules = [
      {
        respond: { status: 201, headers: { 'x-a': '1' }, body: { ok: true } },
        outcome: 'expired',
        outcome_after: '2s',
      },
    ]
    expect(matcher.evaluate([active(rules)], request())).toMatchObject({
      respond: { status: 201, headers: { 'x-a': '1' }, body: { ok: true } },
      outcome: { to: 'expired', afterMs: 2000 },
      drop: false,
      edits: [],
    })
  })

  it('gives an answer without a body the message of its status, Server Error or Error otherwise', () => {
    const messageOf = (status: number) => {
      const matcher = createRuleMatcher(() => 0)
      const effects = matcher.evaluate([active([{ respond: { status } }])], request())
      return (effects.respond?.body as { message: string }).message
    }
    expect(messageOf(404)).toBe('Not Found')
    expect(messageOf(422)).toBe('The given data was invalid.')
    expect(messageOf(504)).toBe('Gateway Timeout')
    expect(messageOf(500)).toBe('Server Error')
    expect(messageOf(507)).toBe('Server Error')
    expect(messageOf(499)).toBe('Error')
    expect(messageOf(200)).toBe('Error')
  })

  it('has no effect when no rule matches', () => {
    const matcher = createRuleMatcher(() => 0)
    expect(
      matcher.evaluate([active([{ match: { method: 'GET' }, latency: 5 }])], request()),
    ).toEqual({
      latencyMs: 0,
      drop: false,
      edits: [],
      matched: [],
    })
  })
})
