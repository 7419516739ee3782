/**
 * The store on PostgreSQL (issue 20, the team sandbox): a pool of node-postgres connections
 * handed around as a `Db`, so that the domain and the HTTP layers stay as they are; only the
 * store looks inside (`pgOf`). A statement of the store is built by the same drizzle builder as
 * on SQLite, given the PostgreSQL tables (db/pg-schema.ts) instead of SQLite's, and run async.
 * The schema is migrated once, before the first statement (open-pg.ts, under an advisory lock).
 */
import type { Db } from '../db/open.js'
import type { PgStore } from '../db/open-pg.js'

export type { PgStore }

const PG = Symbol('postgres')

/** The store behind `db`, when it is PostgreSQL. */
export function pgOf(db: Db): PgStore | undefined {
  return (db as { [PG]?: PgStore })[PG]
}

/** A PostgreSQL store as the `Db` the rest of the sandbox passes around. */
export function pgDb(store: PgStore): Db {
  return { [PG]: store } as unknown as Db
}

const pools = new WeakMap<object, Db>()

/**
 * The one `Db` of a PostgreSQL store's pool, whichever transaction's handle `db` is: what
 * per-connection values (the outbox's count, the due index) are kept under.
 */
export function pgPoolDb(pg: PgStore): Db {
  let db = pools.get(pg.poolKey)
  if (!db) pools.set(pg.poolKey, (db = pgDb(pg)))
  return db
}

/** A drizzle prepared query of node-postgres. */
type PgPrepared = { execute(values?: Record<string, unknown>): Promise<unknown> }

/**
 * The SQLite statement's `get`, `all` and `run` over a PostgreSQL query built by the same
 * builder (`build`, once, when it first runs): the first row, every row, the count of rows
 * changed.
 */
export function pgStatement(store: PgStore, build: () => unknown) {
  let prepared: PgPrepared | undefined
  const execute = async (values?: Record<string, unknown>) => {
    await store.ready
    prepared ??= build() as PgPrepared
    return await prepared.execute(values)
  }
  return {
    async get(values?: Record<string, unknown>) {
      return ((await execute(values)) as unknown[])[0]
    },
    async all(values?: Record<string, unknown>) {
      return (await execute(values)) as unknown[]
    },
    async run(values?: Record<string, unknown>) {
      const result = (await execute(values)) as { rowCount?: number | null } | unknown[]
      return { changes: Array.isArray(result) ? result.length : (result.rowCount ?? 0) }
    },
  }
}
