/**
 * The PostgreSQL the tests of the team sandbox run against: the server
 * CARD_SANDBOX_TEST_PG names (`postgres://root@127.0.0.1:5432/test` on the development and CI
 * machines; .ci/run sets it). Without it those tests are skipped, and the run says so once.
 * Each test works in a schema of its own, dropped afterwards. Beside it, the SQLite store in
 * memory that a test of both stores opens the same way (memoryStore).
 */
import pg from 'pg'
import { openPgStore } from '../src/store/postgres/open.js'
import type { Db } from '../src/store/driver.js'
import { pgDb } from '../src/store/postgres/driver.js'
import { closeStore, openStore } from '../src/store/open.js'
import { atomically } from '../src/store/statements.js'

export const TEST_PG = process.env.CARD_SANDBOX_TEST_PG

if (!TEST_PG)
  console.log(
    'PostgreSQL tests skipped: set CARD_SANDBOX_TEST_PG=postgres://user@host:port/db to run them',
  )

/** PostgreSQL's deadlock_detected. */
const DEADLOCK = '40P01'

let schemas = 0

/** A new, empty schema; `url` connects with it as the search path. */
export async function freshSchema(): Promise<{
  name: string
  url: string
  drop(): Promise<void>
}> {
  const name = `card_sandbox_test_${process.pid}_${++schemas}_${Date.now().toString(36)}`
  const admin = new pg.Client({ connectionString: TEST_PG })
  await admin.connect()
  try {
    await admin.query(`CREATE SCHEMA "${name}"`)
  } finally {
    await admin.end()
  }
  const url = new URL(TEST_PG!)
  url.searchParams.set('options', `-c search_path=${name}`)
  return {
    name,
    url: url.toString(),
    async drop() {
      const client = new pg.Client({ connectionString: TEST_PG })
      await client.connect()
      try {
        // a replica still closing may hold a lock the drop waits for in a circle: again
        for (let attempt = 1; ; attempt++) {
          try {
            await client.query(`DROP SCHEMA IF EXISTS "${name}" CASCADE`)
            break
          } catch (error) {
            if ((error as { code?: string }).code !== DEADLOCK || attempt === 3) throw error
          }
        }
      } finally {
        await client.end()
      }
    },
  }
}

/**
 * A URL of TEST_PG on a new schema, at once: the store makes the schema before its first
 * statement (store/postgres/open.ts). Schemas of earlier runs are dropped by dropTestSchemas.
 */
export function pgSchemaUrl(): string {
  if (!TEST_PG) throw new Error('CARD_SANDBOX_TEST_STORE=postgres needs CARD_SANDBOX_TEST_PG')
  const url = new URL(TEST_PG)
  const name = `${SANDBOX_SCHEMA_PREFIX}${process.pid}_${++schemas}_${Date.now().toString(36)}`
  url.searchParams.set('options', `-c search_path=${name}`)
  return url.toString()
}

export const SANDBOX_SCHEMA_PREFIX = 'card_sandbox_s_'

/**
 * A PostgreSQL store on a fresh schema, as the store's handle, and the schema's URL; what closes
 * and drops them is pushed on `cleanups` (run in reverse: the store closes, then the schema goes).
 */
export async function pgStoreOnFreshSchema(
  cleanups: (() => Promise<void>)[],
  /** The URL the store connects with, from the schema's (a wire relay's, say). */
  via: (url: string) => string = (url) => url,
): Promise<{ db: Db; url: string }> {
  const schema = await freshSchema()
  const store = openPgStore(via(schema.url))
  cleanups.push(schema.drop, () => store.close())
  return { db: pgDb(store), url: schema.url }
}

/** A SQLite store in memory, its close pushed on `cleanups`: pgStoreOnFreshSchema's counterpart. */
export function memoryStore(cleanups: (() => unknown)[]): Db {
  const db = openStore(':memory:')
  cleanups.push(() => closeStore(db))
  return db
}

/**
 * Runs `meanwhile` while a transaction on `db` holds the rows `hold` locked, then ends that
 * transaction: what `hold` answered, what `meanwhile` answered within `waitMs` ('waiting' if it
 * was still waiting for those rows), and what it answered in the end.
 */
export async function whileHeld<H, T>(
  db: Db,
  hold: (tx: Db) => Promise<H>,
  meanwhile: () => Promise<T>,
  waitMs = 1_000,
): Promise<{ held: H; beforeRelease: { result: T } | 'waiting'; result: T }> {
  let release = () => {}
  const released = new Promise<void>((resolve) => (release = resolve))
  let took!: (held: H) => void
  const holding = new Promise<H>((resolve) => (took = resolve))
  const holder = atomically(db, async (tx) => {
    took(await hold(tx))
    await released
  })
  const held = await holding
  const running = meanwhile()
  const beforeRelease = await Promise.race([
    running.then((result) => ({ result })),
    new Promise<'waiting'>((resolve) => setTimeout(() => resolve('waiting'), waitMs)),
  ])
  release()
  await holder
  return { held, beforeRelease, result: await running }
}
