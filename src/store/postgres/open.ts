/**
 * The team sandbox's PostgreSQL store, opened at once on the database a `postgres://`
 * URL names. node-postgres and drizzle's driver are loaded then (pool.ts), not before: a
 * sandbox on SQLite never loads them. The pool is made once they have loaded, and the schema is
 * migrated (the schema of the URL's search_path made first if missing) before the first
 * statement runs (`ready`); a failure there fails every statement with it. With a wait
 * (`--db-wait`, wait.ts), that first step is tried again while PostgreSQL is not up yet.
 */
import type pg from 'pg'
import type * as PgDriver from './pool.js'
import { untilPgUp, type PgWaitOptions } from './wait.js'
import type * as schema from '../../db/schema.js'

/** What a PostgreSQL store needs of node-postgres: a pool, or a client inside a transaction. */
export type PgQueryable = {
  query(text: string, values?: unknown[]): Promise<{ rows: unknown[]; rowCount: number | null }>
}

export type PgStore = {
  /** The database's URL, as the store was opened on it (a replica's own connection uses it). */
  url: string
  /**
   * drizzle on the pool, or on the client of the transaction this handle runs in (one per
   * client); once `ready` has settled.
   */
  drizzle: unknown
  /** One object for every handle of the store: what per-pool values are kept under. */
  poolKey: object
  /** The pool, or the transaction's client; the pool's waits for the driver to load. */
  queryable: PgQueryable
  /** The tables of db/pg-schema.ts under schema.ts's names; once `ready` has settled. */
  tables: typeof schema
  /** Whether this handle runs in a transaction (a nested one is then a savepoint). */
  inTransaction: boolean
  /** Settles once the driver has loaded and the schema is migrated; every statement waits for it. */
  ready: Promise<void>
  /** Opens a transaction on a client of its own: a handle on it, and what ends it (once). */
  begin(): Promise<{ store: PgStore; end(commit: boolean): Promise<void> }>
  close(): Promise<void>
}

/**
 * The sandbox's store on the database `url` names, at once (see above); `wait`: how long its
 * first connection waits for a PostgreSQL that is not up yet (default: not at all).
 */
export function openPgStore(url: string, wait: PgWaitOptions = { ms: 0 }): PgStore {
  let loaded: { driver: typeof PgDriver; pool: pg.Pool } | undefined
  const loading = import('./pool.js').then((driver) => {
    loaded = { driver, pool: driver.openPgPool(url) }
    return loaded
  })
  const ready = loading.then(async ({ driver, pool }) => {
    await untilPgUp(url, () => driver.prepareSchema(pool), wait)
  })
  // a ready that fails is reported by the statements that wait for it, not as unhandled
  ready.catch(() => {})
  const now = () => {
    if (!loaded) throw new Error('the PostgreSQL store is not ready: await its ready first')
    return loaded
  }
  const poolKey = {}
  let ended: Promise<void> | undefined
  // one drizzle per pool client (a pool reuses its few clients): statements built on it are
  // kept with it (store/statements.ts)
  const drizzles = new WeakMap<pg.Pool | pg.PoolClient, unknown>()
  const drizzleOn = (queryable: pg.Pool | pg.PoolClient) => {
    let made = drizzles.get(queryable)
    if (!made) drizzles.set(queryable, (made = now().driver.drizzleOn(queryable)))
    return made
  }
  const on = (
    queryable: PgQueryable,
    connection: () => pg.Pool | pg.PoolClient,
    inTransaction: boolean,
  ): PgStore => ({
    url,
    poolKey,
    get drizzle() {
      return drizzleOn(connection())
    },
    queryable,
    get tables() {
      return now().driver.pgTablesBySchemaName() as unknown as typeof schema
    },
    inTransaction,
    ready,
    begin: async () => {
      await ready
      const client = await now().pool.connect()
      let ended = false
      try {
        await client.query('BEGIN')
      } catch (error) {
        client.release(error as Error)
        throw error
      }
      return {
        store: on(client as PgQueryable, () => client, true),
        async end(commit) {
          if (ended) return
          ended = true
          try {
            await client.query(commit ? 'COMMIT' : 'ROLLBACK')
            client.release()
          } catch (error) {
            client.release(error as Error)
            throw error
          }
        },
      }
    },
    close: () =>
      (ended ??= loading.then(
        ({ pool }) => pool.end(),
        () => {},
      )),
  })
  const onPool: PgQueryable = {
    query: async (text, values) => (await loading).pool.query(text, values),
  }
  return on(onPool, () => now().pool, false)
}
