/**
 * The store's driver for PostgreSQL (store/driver.ts), the team sandbox: a pool of
 * node-postgres connections (open.ts, which loads node-postgres only when a PostgreSQL
 * store opens). A statement is built by the same drizzle builder as on SQLite, given the
 * PostgreSQL tables (db/pg-schema.ts) instead of SQLite's, and run async. Other replicas write
 * to the same database: the driver has `replicas`, and status moves take row locks. Here the
 * handle and what the seam asks; its statements (compiled.ts), transactions (transactions.ts),
 * rows (rows.ts) and a tenant's rows whole (snapshots.ts) each in a file of its own, as on SQLite.
 */
import { sql } from 'drizzle-orm'
import type {
  Builder,
  Db,
  Dialect,
  Driver,
  EitherStatement,
  MakeStatement,
  Replicas,
} from '../driver.js'
import { pgStatement } from './compiled.js'
import { earliestDueOf, earliestDueOnRealClocks, earliestEventToAttempt } from './due-index.js'
import type { PgStore } from './open.js'
import { insertMany, insertRow, insertWithJob, updateManyBySeq, updateRows } from './rows.js'
import { deleteTenantRows, restoreSnapshot, tenantRowsJson } from './snapshots.js'
import { own, run, text, transaction, writes, type PgDb } from './transactions.js'

/** A handle on the store (or a transaction's client of it). */
export function pgDb(store: PgStore): Db {
  return { driver: postgresDriver, pg: store } as PgDb
}

const dialect: Dialect = {
  forUpdate: (select, options) =>
    (select as { for(strength: 'update', config?: { skipLocked?: boolean }): typeof select }).for(
      'update',
      options,
    ),
  inJsonArray: (column, jsonArray) =>
    sql`${column} IN (SELECT json_array_elements_text(${jsonArray}::json))`,
  // the planner has the table's statistics: the column as it is
  filterOnly: (column) => sql`${column}`,
  startsWith: (column, prefix) => sql`starts_with(${column}, ${prefix})`,
  nowMs: sql`(extract(epoch from clock_timestamp()) * 1000)::bigint`,
  snapshot: sql`pg_current_snapshot()::text`,
}

/** What replicas of one database do beside each other (Driver.replicas). */
const replicas: Replicas = {
  earliestDue: (db, ids) => (ids ? earliestDueOf(own(db), ids) : earliestDueOnRealClocks(own(db))),
  earliestEventToAttempt: (db) => earliestEventToAttempt(own(db)),
  listenForWrites(db, heard, slowPollMs) {
    // node-postgres's own client, for the listening connection: loaded only here
    let stop: (() => Promise<void>) | undefined
    let stopped = false
    void import('./listener.js').then(({ listenForWrites }) => {
      if (!stopped) stop = listenForWrites(own(db), heard, slowPollMs)
    })
    return async () => {
      stopped = true
      await stop?.()
    }
  },
  async join(db, settings) {
    // node-postgres's own client, for the membership connection: loaded only here
    const { joinReplicas } = await import('./replicas.js')
    return await joinReplicas(own(db), settings)
  },
}

let asks = 0

export const postgresDriver: Driver = {
  name: 'PostgreSQL',
  replicas,
  rowLocks: true,
  dueSliceJobs: 500,
  dialect,

  connection: (db) => own(db).poolKey,

  statement<T extends object>(db: Db, make: MakeStatement<T>, slot: WeakMap<object, unknown>) {
    const store = own(db)
    // built once per pool client (or for the pool), when it first runs, and kept with it
    let built = slot.get(store.queryable) as EitherStatement<T> | undefined
    if (!built)
      slot.set(
        store.queryable,
        (built = pgStatement(store, () =>
          make(store.drizzle as Builder, store.tables, dialect),
        ) as EitherStatement<T>),
      )
    return built
  },

  query: (db, method, build) => run(db, method, (b) => build(b, own(db).tables, dialect)),

  transaction: (db, body) => transaction(db, body),

  inTransaction: (db) => own(db).inTransaction,

  insert: insertRow,
  insertWithJob,
  update: updateRows,
  insertMany,
  updateManyBySeq,

  async lockName(db, name) {
    await text(own(db), 'SELECT pg_advisory_xact_lock(hashtext($1))', [name])
  },

  async tryLockName(db, name) {
    const { rows } = await text(own(db), 'SELECT pg_try_advisory_xact_lock(hashtext($1)) AS got', [
      name,
    ])
    return (rows[0] as { got: boolean }).got
  },

  deleteTenantRows,
  tenantRowsJson,
  restoreTenantRows: restoreSnapshot,
  // nothing is staged: a restore writes from the stored JSON
  stageSnapshot: async () => {},
  unstageSnapshot: async () => {},

  /**
   * Another replica may write at any time, so a read is kept only under the snapshot a request
   * read with its tenant (readingAt): a later request that reads an equal snapshot is sure no
   * transaction committed in between, anywhere; with this process's own writes since counted
   * in, a request that wrote reads again. Without a snapshot, or in a transaction, nothing is kept.
   */
  writeStamp(db) {
    const { snapshot, writesAt, pg } = db as PgDb
    if (snapshot === undefined || pg.inTransaction || writesAt !== writes.here) return undefined
    return snapshot
  },

  readingAt: (db, snapshot) =>
    snapshot == null
      ? db
      : ({ driver: postgresDriver, pg: own(db), snapshot, writesAt: writes.here } as PgDb),

  // other replicas write unseen: it changes at every ask, so what is kept is read again
  commitsOfOthers: async () => ++asks,

  close: (db) => own(db).close(),
}
