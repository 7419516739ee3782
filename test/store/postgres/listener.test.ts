/**
 * A replica's LISTEN connection (store/postgres/listener.ts) cut by the server is made again:
 * a job another replica writes afterwards still runs at its own instant, told by its
 * announcement, with the slow poll (which would find it by reading everything again) put off
 * past the test. Once stopped, it ends its connection and makes none again.
 */
import { eq } from 'drizzle-orm'
import pg from 'pg'
import { afterEach, describe, expect, it } from 'vitest'
import type { CardUser } from '../../../src/db/schema.js'
import { callAs, createSandbox, type Sandbox } from '../../../src/server/sandbox.js'
import { announcedOf, listenForWrites } from '../../../src/store/announced.js'
import { query } from '../../../src/store/statements.js'
import { fullIdentity } from '../../helpers.js'
import { freshSchema, pgStoreOnFreshSchema, TEST_PG } from '../../pg.js'
import { until } from '../../webhooks/receiver.js'

describe.skipIf(!TEST_PG)('a replica’s LISTEN connection (PostgreSQL)', () => {
  const cleanups: (() => unknown)[] = []
  afterEach(async () => {
    for (const cleanup of cleanups.splice(0).reverse()) await cleanup()
  })

  /** An admin connection, and the backends LISTENing on `schema`'s channel as it sees them. */
  async function listenersOn(schema: string) {
    const admin = new pg.Client({ connectionString: TEST_PG })
    await admin.connect()
    cleanups.push(() => admin.end())
    const pids = async () =>
      (
        await admin.query<{ pid: number }>('SELECT pid FROM pg_stat_activity WHERE query = $1', [
          `LISTEN "${schema}"`,
        ])
      ).rows.map((row) => row.pid)
    return { admin, pids }
  }

  it('is made again when the server ends it, and a job another replica writes then runs at its own instant', async () => {
    const schema = await freshSchema()
    cleanups.push(schema.drop)
    const replica = (ticking: boolean): Sandbox => {
      const made = createSandbox({ clock: 'real', db: schema.url, ticking, slowPollMs: 3_600_000 })
      cleanups.push(() => made.close())
      return made
    }
    // only the first ticks, and listens: it hears of the other's job by the announcement alone
    const listening = replica(true)
    const writing = replica(false)
    const { admin, pids: listenerPids } = await listenersOn(schema.name)
    await until(async () => (await listenerPids()).length === 1, 10_000, 'the LISTEN connection')
    const [cut] = await listenerPids()
    await admin.query('SELECT pg_terminate_backend($1)', [cut])
    // made again, and everything read once then: from now on only an announcement tells
    await until(
      async () => {
        const pids = await listenerPids()
        return pids.length === 1 && pids[0] !== cut
      },
      5_000,
      'the LISTEN connection made again',
    )

    const call = callAs(writing.app, 'listener-cut')
    await call('PUT', '/__sandbox/delays', { card_user_verification: '1s' })
    const created = await call('POST', '/v1/card-users/create', fullIdentity())
    const reference = (created.body as { data: { userCard: { reference: string } } }).data.userCard
      .reference
    // read from the store, not through the API: a request to the tenant would catch it up
    const user = () =>
      query<CardUser>(listening.deps.db, 'get', (db, t) =>
        db.select().from(t.cardUsers).where(eq(t.cardUsers.reference, reference)),
      )
    await until(
      async () => (await user()).status === 'passed',
      10_000,
      'the verification run by the listening replica',
    )
    const ran = await user()
    expect(ran.updatedAt).toBe(ran.createdAt + 1_000) // at its own instant
  })

  it('announces everything at each slow poll: what no announcement told of is read again', async () => {
    const { db } = await pgStoreOnFreshSchema(cleanups as (() => Promise<void>)[])
    const stop = listenForWrites(db, 50)!
    cleanups.push(stop)
    const announced = announcedOf(db)
    for (let poll = 0; poll < 2; poll++) {
      // as the tick leaves it once it has looked
      announced.everything = announced.webhooks = announced.retired = false
      await until(() => announced.everything, 2_000, 'the slow poll')
      expect(announced).toMatchObject({ webhooks: true, retired: true })
    }
  })

  it('once stopped, ends its connection and makes none again', async () => {
    const { db, url } = await pgStoreOnFreshSchema(cleanups as (() => Promise<void>)[])
    const { pids: listeners } = await listenersOn(
      new URL(url).searchParams.get('options')!.split('search_path=')[1],
    )
    const stop = listenForWrites(db, 3_600_000)!
    await until(async () => (await listeners()).length === 1, 10_000, 'the LISTEN connection')
    await stop()
    await until(async () => (await listeners()).length === 0, 5_000, 'the connection to end')
    await new Promise((resolve) => setTimeout(resolve, 500))
    expect(await listeners()).toEqual([])
  })
})
