/**
 * An idle replica on PostgreSQL (no requests, nothing due, no lease held, no retired tenant left
 * to sweep) sends at most 2 statements a second, however many jobs are pending: counted at the
 * wire, by the relay between the replica and PostgreSQL (bench/pg-wire-relay.mjs), whatever the
 * driver does.
 */
import pg from 'pg'
import { afterEach, describe, expect, it } from 'vitest'
import { startSandbox, type RunningSandbox } from '../../../src/server/sandbox.js'
import { SLOW_POLL_MS } from '../../../src/store/postgres/listener.js'
import { fullIdentity } from '../../helpers.js'
import { startPgWireRelay } from '../../../bench/pg-wire-relay.mjs'
import { freshSchema, TEST_PG } from '../../pg.js'

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms))

describe.skipIf(!TEST_PG)('an idle replica on PostgreSQL', () => {
  const cleanups: (() => Promise<unknown>)[] = []
  afterEach(async () => {
    for (const cleanup of cleanups.splice(0).reverse()) await cleanup()
  })

  it('sends at most 2 statements a second, with 10,000 jobs pending on real and manual clocks', async () => {
    const schema = await freshSchema()
    cleanups.push(schema.drop)
    const relay = await startPgWireRelay(TEST_PG!)
    cleanups.push(() => relay.close())
    const sandbox: RunningSandbox = await startSandbox({
      port: 0,
      db: relay.urlOf(schema.url),
      clock: 'real',
    })
    cleanups.push(() => sandbox.close())
    const call = (token: string, method: string, path: string, body?: unknown) =>
      fetch(`${sandbox.url}${path}`, {
        method,
        headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
        body: body === undefined ? undefined : JSON.stringify(body),
      })
    // tenants with verifications a day ahead, one of them on a manual clock
    for (const token of ['idle-a', 'idle-b', 'idle-manual']) {
      await call(token, 'PUT', '/__sandbox/delays', { card_user_verification: '1d' })
      if (token === 'idle-manual') await call(token, 'PUT', '/__sandbox/clock', { mode: 'manual' })
      for (let i = 0; i < 3; i++) await call(token, 'POST', '/v1/card-users/create', fullIdentity())
    }
    // and 10,000 more jobs a day ahead, written by another process
    const other = new pg.Client({ connectionString: schema.url })
    await other.connect()
    await other.query(
      `INSERT INTO jobs (tenant_id, resource, key, action, due_at, resource_seq)
       SELECT j.tenant_id, j.resource, j.key, j.action, j.due_at + n, j.resource_seq
       FROM (SELECT * FROM jobs LIMIT 3) j, generate_series(1, 3334) n`,
    )
    const { rows } = await other.query<{ n: number }>('SELECT count(*)::int AS n FROM jobs')
    await other.end()
    expect(rows[0].n).toBeGreaterThan(10_000)
    await sleep(1_000) // what the writes announced is taken in

    relay.reset()
    const seconds = (SLOW_POLL_MS + 1_000) / 1_000
    await sleep(seconds * 1_000)
    expect(relay.counts().statements).toBeLessThanOrEqual(2 * seconds)
  })
})
