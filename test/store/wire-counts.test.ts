/**
 * What the team sandbox sends PostgreSQL, counted at the wire: a served sandbox on a fresh schema
 * whose --db URL points at a wire relay (bench/pg-wire-relay.mjs), which counts statements
 * (Query + Execute messages) and round trips (a client sending again after a ReadyForQuery),
 * whatever the driver. In the steady state (tenant made, caches warm, nothing due, nothing
 * changed by the control plane since the last request), on the manual and on the real clock:
 * one GET /v1/cards, one GET /v1/cards/:reference, one POST /v1/cards/create, and an idle
 * replica's statements a tick of its ticker. Each count must stay at most what it is today, so
 * a change that adds one fails.
 *
 * The ticker runs beside the requests (every 100 ms) on the same pool: its statements can only
 * add to a request's window, so a request's count is the least over a few of them, each sent
 * just after a tick has finished.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { startPgWireRelay, type PgWireRelay, type WireCounts } from '../../bench/pg-wire-relay.mjs'
import { TICK_MS } from '../../src/engine/ticker.js'
import { startSandbox, type RunningSandbox } from '../../src/server/sandbox.js'
import { fullIdentity } from '../helpers.js'
import { freshSchema, TEST_PG } from '../pg.js'

/**
 * The counts, per request in the steady state and per tick idle; a change that adds one fails.
 * A read: the tenant with its stamps (scenarios, due instant), then the page with its total and
 * each card's balance (or the card with its balance) in one statement. A create: the tenant
 * (read once the body has arrived with the headers, so not again after it is read), then BEGIN,
 * the card user, the card with its issuing job (one statement), COMMIT. These are the targets:
 * a read in at most 2 statements and 2 round trips, a card create in at most 5 and 5. An idle
 * replica sends at most 2 a second (it hears of other replicas' writes:
 * store/postgres/listener.ts).
 */
const IDLE_PER_SECOND = 2
const COUNTS = {
  manual: {
    list: { statements: 2, roundTrips: 2 },
    card: { statements: 2, roundTrips: 2 },
    create: { statements: 5, roundTrips: 5 },
  },
  real: {
    list: { statements: 2, roundTrips: 2 },
    card: { statements: 2, roundTrips: 2 },
    create: { statements: 5, roundTrips: 5 },
  },
}

/** Requests measured per count: the least of them is the request's own. */
const TRIES = 5
/** The idle window: longer than the slow poll (5 s), so that one falls in it. */
const IDLE_MS = 60 * TICK_MS

const TOKEN = 'wire-counts'

for (const clock of ['manual', 'real'] as const)
  describe.skipIf(!TEST_PG)(`what a replica sends PostgreSQL, ${clock} clock`, () => {
    let relay: PgWireRelay
    let sandbox: RunningSandbox
    let dropSchema: () => Promise<void>
    let card: string
    let createBody: unknown

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

    /** The least statements and round trips of TRIES sends of one request. */
    const countsOf = async (send: () => Promise<unknown>) => {
      const tries: WireCounts[] = []
      for (let i = 0; i < TRIES; i++) {
        await relay.afterTraffic(15)
        relay.reset()
        await send()
        tries.push(relay.counts())
      }
      return {
        statements: Math.min(...tries.map((t) => t.statements)),
        roundTrips: Math.min(...tries.map((t) => t.roundTrips)),
      }
    }

    beforeAll(async () => {
      const schema = await freshSchema()
      dropSchema = schema.drop
      relay = await startPgWireRelay(TEST_PG!)
      sandbox = await startSandbox({ port: 0, db: relay.urlOf(schema.url), clock, log: 'silent' })
      // the tenant, its cards never falling due while measured, a passed card user, a card
      await call('PUT', '/__sandbox/delays', { card_issuing: '1h' })
      const user = (await call('POST', '/v1/card-users/create', fullIdentity())).data.userCard
        .reference
      await call('POST', `/__sandbox/card-users/${user}/transition`, { to: 'passed' })
      createBody = { card_user_reference: user, card_brand: 'visa', card_type: 'virtual' }
      card = (await call('POST', '/v1/cards/create', createBody)).data.card.reference
      // warm: every request measured below answered once since the control plane last moved
      for (let i = 0; i < 2; i++) {
        await call('GET', '/v1/cards')
        await call('GET', `/v1/cards/${card}`)
        await call('POST', '/v1/cards/create', createBody)
      }
    }, 60_000)

    afterAll(async () => {
      await sandbox?.close()
      await relay?.close()
      await dropSchema?.()
    })

    it(`GET /v1/cards sends at most ${COUNTS[clock].list.statements} statements in ${COUNTS[clock].list.roundTrips} round trips`, async () => {
      const counts = await countsOf(() => call('GET', '/v1/cards'))
      expect(counts.statements).toBeLessThanOrEqual(COUNTS[clock].list.statements)
      expect(counts.roundTrips).toBeLessThanOrEqual(COUNTS[clock].list.roundTrips)
    })

    it(`GET /v1/cards/:reference sends at most ${COUNTS[clock].card.statements} statements in ${COUNTS[clock].card.roundTrips} round trips`, async () => {
      const counts = await countsOf(() => call('GET', `/v1/cards/${card}`))
      expect(counts.statements).toBeLessThanOrEqual(COUNTS[clock].card.statements)
      expect(counts.roundTrips).toBeLessThanOrEqual(COUNTS[clock].card.roundTrips)
    })

    it(`POST /v1/cards/create sends at most ${COUNTS[clock].create.statements} statements in ${COUNTS[clock].create.roundTrips} round trips`, async () => {
      const counts = await countsOf(() => call('POST', '/v1/cards/create', createBody))
      expect(counts.statements).toBeLessThanOrEqual(COUNTS[clock].create.statements)
      expect(counts.roundTrips).toBeLessThanOrEqual(COUNTS[clock].create.roundTrips)
    })

    it(`an idle replica sends at most ${IDLE_PER_SECOND} statements a second`, async () => {
      await relay.afterTraffic(15)
      relay.reset()
      const started = performance.now()
      await new Promise((resolve) => setTimeout(resolve, IDLE_MS))
      const { statements } = relay.counts()
      const seconds = (performance.now() - started) / 1000
      expect(statements).toBeLessThanOrEqual(IDLE_PER_SECOND * seconds)
    })
  })
