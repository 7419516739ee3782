/**
 * PostgreSQL going away under load: two replicas on one schema take card creates and reads while
 * their backends are terminated again and again (pg_terminate_backend, as a restart, a failover
 * or an operator does to each connection; the shared server itself is never restarted). Every
 * answer is a success or the documented 503, never a 500; every card acknowledged exists
 * afterwards on both replicas; both processes live on and serve. PostgreSQL only.
 */
import pg from 'pg'
import { afterEach, describe, expect, it } from 'vitest'
import { STORE_UNREACHABLE } from '../../src/http/errors.js'
import { fullIdentity } from '../helpers.js'
import { TEST_PG } from '../pg.js'
import { startReceiver } from '../webhooks/receiver.js'
import { inParallel, roundRobin, startReplicas, type Answer } from './replicas.js'

const TOKEN = 'pg-faults'
const REQUESTS = 600
const WIDTH = 16
const cleanups: (() => Promise<void>)[] = []
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup()
})

/** An answer, or what fetch threw (the replica closed the connection, or is gone). */
type Outcome = Answer & { request: string }

async function outcome(
  call: ReturnType<typeof roundRobin>,
  method: string,
  path: string,
  body?: unknown,
): Promise<Outcome> {
  const request = `${method} ${path}`
  try {
    return { request, ...(await call(method, path, body)) }
  } catch (error) {
    return { request, status: 0, body: String(error) }
  }
}

/** Every card reference one replica lists. */
async function listedCards(url: string): Promise<Set<string>> {
  const read = roundRobin([url], TOKEN)
  const references = new Set<string>()
  for (let page = 1; ; page++) {
    const answer = await read('GET', `/v1/cards?page=${page}&per_page=100`)
    expect(answer.status).toBe(200)
    for (const card of answer.body.data) references.add(card.reference)
    if (answer.body.data.length < 100) return references
  }
}

/**
 * A card create sent until it is not a 503, at most 30 times: once the faults stop, a replica
 * serves again on new connections (the shared server may be full for a moment with other tests').
 */
async function servedAgain(call: ReturnType<typeof roundRobin>, cardUser: string) {
  for (let tries = 1; ; tries++) {
    const answer = await call('POST', '/v1/cards/create', {
      card_user_reference: cardUser,
      card_brand: 'visa',
      card_type: 'virtual',
    })
    if (answer.status !== 503 || tries === 30) return answer
    await new Promise((resolve) => setTimeout(resolve, 100))
  }
}

describe.skipIf(!TEST_PG)('PostgreSQL going away under load (PostgreSQL, 2 replicas)', () => {
  it('answers 503 in the error shape, never 500, loses no acknowledged card, and keeps serving', async () => {
    const receiver = await startReceiver()
    cleanups.push(receiver.close)
    const names = [0, 1].map((i) => `pgf-${process.pid}-${Date.now().toString(36)}-${i}`)
    // a real clock: each replica's tick runs the cards' issuings and their webhooks meanwhile
    const replicas = await startReplicas(
      () => ['--webhook-url', receiver.url],
      (i) => ({ application_name: names[i] }),
      2,
    )
    cleanups.push(replicas.stop)
    const admin = new pg.Client({ connectionString: TEST_PG })
    await admin.connect()
    cleanups.push(() => admin.end())
    const call = roundRobin(replicas.urls, TOKEN)
    const user = await call('POST', '/v1/card-users/create', fullIdentity())
    const cardUser = user.body.data.userCard.reference as string
    const passed = await call('POST', `/__sandbox/card-users/${cardUser}/transition`, {
      to: 'passed',
    })
    expect(passed.status).toBe(200)

    /**
     * Terminates the replicas' backends as the load goes: after every 6th answer one that is
     * idle inside a transaction (between two of its statements, or before its COMMIT), after
     * every 150th all of them (as a restart does).
     */
    let answered = 0
    let terminated = 0
    const terminate = async (everyOne: boolean) => {
      const { rows } = await admin.query<{ ended: boolean }>(
        `SELECT pg_terminate_backend(pid) AS ended FROM (
             SELECT pid FROM pg_stat_activity
             WHERE application_name = ANY($1) AND ($2 OR state = 'idle in transaction')
             LIMIT CASE WHEN $2 THEN NULL ELSE 1 END) AS chosen`,
        [names, everyOne],
      )
      terminated += rows.filter((row) => row.ended).length
    }
    let loading = true
    const storm = (async () => {
      for (let faults = 0; loading;) {
        if (answered < (faults + 1) * 6) await new Promise((resolve) => setTimeout(resolve, 5))
        else await terminate(++faults % 25 === 0)
      }
    })()

    // two creates for each read; the reads are of cards acknowledged so far
    const acknowledged: string[] = []
    const send = async (i: number): Promise<Outcome> => {
      if (i % 3 === 2 && acknowledged.length > 0) {
        const reference = acknowledged[i % acknowledged.length]
        return outcome(call, 'GET', i % 2 ? `/v1/cards/${reference}` : '/v1/cards?per_page=5')
      }
      const answer = await outcome(call, 'POST', '/v1/cards/create', {
        card_user_reference: cardUser,
        card_brand: 'visa',
        card_type: 'virtual',
      })
      if (answer.status === 200) acknowledged.push(answer.body.data.card.reference)
      return answer
    }
    const outcomes = await inParallel(REQUESTS, WIDTH, async (i) => {
      const answer = await send(i)
      answered++
      return answer
    })
    loading = false
    await storm

    const unavailable = outcomes.filter((o) => o.status === 503)
    expect(terminated).toBeGreaterThan(0)
    expect(unavailable.length).toBeGreaterThan(0)
    expect(outcomes.filter((o) => o.status !== 200 && o.status !== 503)).toEqual([])
    for (const answer of unavailable)
      expect(answer.body).toEqual({ message: STORE_UNREACHABLE, statusCode: 503 })

    // both processes live on, serve, and know every card they acknowledged
    for (const child of replicas.children) {
      expect(child.exitCode).toBeNull()
      expect(child.signalCode).toBeNull()
    }
    for (const url of replicas.urls) {
      const after = await servedAgain(roundRobin([url], TOKEN), cardUser)
      expect(after.status).toBe(200)
      acknowledged.push(after.body.data.card.reference)
    }
    for (const url of replicas.urls) {
      const listed = await listedCards(url)
      expect(acknowledged.filter((reference) => !listed.has(reference))).toEqual([])
    }
    // what the processes said: the database was unreachable, nothing unexpected failed
    for (const said of replicas.stderr) {
      expect(said).not.toMatch(/unexpected error|tick failed|unhandled/i)
    }
  }, 120_000)
})
