/**
 * The bounds of what a request sends PostgreSQL outside the steady state, counted at the wire
 * (bench/pg-wire-relay.mjs): the first request after a control-plane change reloads what the
 * replica keeps under the tenant's stamps, and a request on a real clock that finds work due
 * runs it (the catch-up) before it answers. No tick runs here, so only the request does that
 * work. Each bound is what it costs today: a change that adds a statement fails.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { startPgWireRelay, type PgWireRelay } from '../../bench/pg-wire-relay.mjs'
import { startSandbox, type RunningSandbox } from '../../src/server/sandbox.js'
import { fullIdentity } from '../helpers.js'
import { freshSchema, TEST_PG } from '../pg.js'

/** Statements (and round trips) at most, each request: see above. */
const BOUNDS = {
  // the steady state's two: the tenant row is read by every request anyway
  afterDelaysChange: 2,
  // the tenant, the scenarios read again under the new stamp, the tenant again (a request with
  // scenarios in force reads it after they applied), the page
  afterScenarioPosted: 4,
  // the read's two, and the catch-up: its transaction (BEGIN, the claim of the due slice, the
  // set's statements, COMMIT) and the tenant's next due instant read again
  catchUpOfOneCardIssuing: 16,
}

const TOKEN = 'wire-bounds'

describe.skipIf(!TEST_PG)('what a request sends PostgreSQL outside the steady state', () => {
  let relay: PgWireRelay
  let sandbox: RunningSandbox
  let dropSchema: () => Promise<void>
  let user: string

  const call = async (method: string, path: string, body?: unknown) => {
    const res = await fetch(sandbox.url + path, {
      method,
      headers: { Authorization: `Bearer ${TOKEN}`, 'Content-Type': 'application/json' },
      body: body === undefined ? undefined : JSON.stringify(body),
    })
    const json: any = await res.json()
    expect(res.status, JSON.stringify(json)).toBe(200)
    return json
  }

  const counted = async (send: () => Promise<unknown>) => {
    await relay.afterTraffic(15)
    relay.reset()
    await send()
    return relay.counts()
  }

  beforeAll(async () => {
    const schema = await freshSchema()
    dropSchema = schema.drop
    relay = await startPgWireRelay(TEST_PG!)
    sandbox = await startSandbox({
      port: 0,
      db: relay.urlOf(schema.url),
      clock: 'real',
      log: 'silent',
      ticking: false,
    })
    user = (await call('POST', '/v1/card-users/create', fullIdentity())).data.userCard.reference
    await call('POST', `/__sandbox/card-users/${user}/transition`, { to: 'passed' })
    for (let i = 0; i < 2; i++) await call('GET', '/v1/cards')
  }, 60_000)

  afterAll(async () => {
    await sandbox?.close()
    await relay?.close()
    await dropSchema?.()
  })

  it(`answers the first GET after the tenant's delays changed in at most ${BOUNDS.afterDelaysChange} statements`, async () => {
    await call('PUT', '/__sandbox/delays', { card_issuing: '1h' })
    const counts = await counted(() => call('GET', '/v1/cards'))
    expect(counts.statements).toBeLessThanOrEqual(BOUNDS.afterDelaysChange)
    expect(counts.roundTrips).toBeLessThanOrEqual(BOUNDS.afterDelaysChange)
  })

  it(`answers the first GET after a scenario was posted in at most ${BOUNDS.afterScenarioPosted} statements (the scenarios read again)`, async () => {
    await call('POST', '/__sandbox/scenarios', {
      name: 'elsewhere',
      rules: [{ match: { method: 'GET', path: '/v1/payments' }, respond: { status: 418 } }],
    })
    const counts = await counted(() => call('GET', '/v1/cards'))
    expect(counts.statements).toBeLessThanOrEqual(BOUNDS.afterScenarioPosted)
    expect(counts.roundTrips).toBeLessThanOrEqual(BOUNDS.afterScenarioPosted)
  })

  it(`runs a card issuing that fell due within the next request, in at most ${BOUNDS.catchUpOfOneCardIssuing} statements`, async () => {
    await call('PUT', '/__sandbox/delays', { card_issuing: '20ms' })
    const card = (
      await call('POST', '/v1/cards/create', {
        card_user_reference: user,
        card_brand: 'visa',
        card_type: 'virtual',
      })
    ).data.card.reference
    await new Promise((resolve) => setTimeout(resolve, 50))
    let status = ''
    const counts = await counted(async () => {
      status = (await call('GET', `/v1/cards/${card}`)).data.card.status
    })
    expect(status).toBe('issued')
    expect(counts.statements).toBeLessThanOrEqual(BOUNDS.catchUpOfOneCardIssuing)
    expect(counts.roundTrips).toBeLessThanOrEqual(BOUNDS.catchUpOfOneCardIssuing)
  })
})
