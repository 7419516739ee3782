/**
 * The store's driver for SQLite (store/driver.ts): one better-sqlite3 connection, the default
 * and embedded store. Statements are prepared once per connection and run at once, without
 * drizzle's per-call work (compiled.ts). The store is asynchronous (PostgreSQL's driver is), so
 * a transaction's body may await; on SQLite's one connection no other request's statement may
 * run between its BEGIN and COMMIT: the connection's lock (transactions.ts) makes statements
 * outside it wait, which is the one place that rule is written.
 */
import { sql } from 'drizzle-orm'
import { openDb } from './open.js'
import * as sqliteTables from '../../db/schema.js'
import type {
  Db,
  Dialect,
  Driver,
  EitherStatement,
  MakeStatement,
  Method,
  StatementSlot,
} from '../driver.js'
import { compiled } from './compiled.js'
import { insertMany, insertRow, updateManyBySeq, updateRows } from './rows.js'
import { restoreSnapshot, stageSnapshot, tenantRowsJson, unstageSnapshot } from './snapshots.js'
import {
  connectionOf,
  perConnection,
  prepared,
  runInTransaction,
  untilNoTransaction,
  withoutTransaction,
  type SqliteDb,
} from './transactions.js'

export type { SqliteDb }

const dialect: Dialect = {
  forUpdate: (select) => select,
  inJsonArray: (column, jsonArray) => sql`${column} IN (SELECT value FROM json_each(${jsonArray}))`,
  filterOnly: (column) => sql`+${column}`,
  // GLOB, where LIKE would ignore case (ids are mixed case); a prefix has no wildcard
  startsWith: (column, prefix) => sql`${column} GLOB (${prefix} || '*')`,
  nowMs: sql`CAST((julianday('now') - 2440587.5) * 86400000 AS INTEGER)`,
  // one process writes: the write counters stamp every read (writeStamp)
  snapshot: sql`NULL`,
}

const own = (db: Db) => db as SqliteDb

const control = perConnection((connection) => ({
  totalChanges: connection.$client.prepare('SELECT total_changes()').pluck(),
  writeCounts: connection.$client
    .prepare('SELECT total_changes(), data_version FROM pragma_data_version')
    .raw(),
  dataVersion: connection.$client.prepare('PRAGMA data_version').pluck(),
}))

type Runnable = { get(): unknown; all(): unknown; run(): unknown }

export const sqliteDriver: Driver = {
  name: 'SQLite',
  // no `replicas`: one process serves the database (a file's lock, lock.ts, taken by
  // store/open.ts claimStore), so every write is its own and there is nothing to hear of
  rowLocks: false,
  // about 5 ms of work at 0.1 ms a job, and as many jobs whatever the tenant holds (a set reads
  // its rows by key: store/due-sets.ts rowsForMove); another tenant's GET waits behind the one
  // slice under way when it arrives, a median 4-9 ms in a 20,000-job advance (docs/performance.md)
  dueSliceJobs: 50,
  dialect,

  connection: (db) => connectionOf(own(db)),

  statement<T extends object>(db: Db, make: MakeStatement<T>, slot: StatementSlot) {
    const connection = connectionOf(own(db))
    let built = slot.get(connection) as T | undefined
    if (built === undefined)
      slot.set(connection, (built = compiled(make(connection, sqliteTables, dialect))))
    return withoutTransaction(own(db), built) as EitherStatement<T>
  },

  async query<R>(db: Db, method: Method, build: Parameters<Driver['query']>[2]) {
    await untilNoTransaction(own(db))
    return (build(own(db), sqliteTables, dialect) as Runnable)[method]() as R
  },

  transaction: (db, body, options) => runInTransaction(own(db), body, options),

  inTransaction: (db) => own(db).$client.inTransaction,

  async insert(db, table, values, returning) {
    await untilNoTransaction(own(db))
    return insertRow(own(db), table, values, returning)
  },

  async insertWithJob(db, table, values, job) {
    await untilNoTransaction(own(db))
    // two statements with nothing between them: no other request's statement can come in
    const row = insertRow(own(db), table, values, true) as { seq: number }
    insertRow(own(db), sqliteTables.jobs, { ...job, resourceSeq: row.seq }, false)
    return row
  },

  async update(db, table, by, value, changes, returning) {
    await untilNoTransaction(own(db))
    return updateRows(own(db), table, by, value, changes, returning)
  },

  async insertMany(db, table, rows) {
    await untilNoTransaction(own(db))
    insertMany(own(db), table, rows)
  },

  async updateManyBySeq(db, table, rows) {
    await untilNoTransaction(own(db))
    updateManyBySeq(own(db), table, rows)
  },

  // one writer at a time: a transaction already holds the whole connection
  lockName: async () => {},
  tryLockName: async () => true,

  async deleteTenantRows(db, table, tenantId, limit) {
    await untilNoTransaction(own(db))
    // `(? + 0)`, not `?`: a bare bound LIMIT is planned again on every run (compiled.ts)
    const remove = prepared(own(db), `sweep:${table}`, (connection) =>
      connection.$client.prepare(
        `DELETE FROM "${table}" WHERE rowid IN ` +
          `(SELECT rowid FROM "${table}" WHERE tenant_id = ? LIMIT (? + 0))`,
      ),
    )
    return remove.run(tenantId, limit).changes
  },

  async tenantRowsJson(db, tables, tenantId) {
    await untilNoTransaction(own(db))
    return tenantRowsJson(own(db), tables, tenantId)
  },

  async restoreTenantRows(db, tables, lineage, tenantId, seq, rowsJson) {
    await untilNoTransaction(own(db))
    await restoreSnapshot(own(db), tables, lineage, tenantId, seq, rowsJson)
  },

  async stageSnapshot(db, tables, seq, rowsJson) {
    await untilNoTransaction(own(db))
    await stageSnapshot(own(db), tables, seq, rowsJson)
  },

  async unstageSnapshot(db, seq) {
    await untilNoTransaction(own(db))
    unstageSnapshot(own(db), seq)
  },

  writeStamp(db) {
    const handle = own(db)
    if (handle.$client.inTransaction) return undefined
    const stamp = () => {
      // an in-memory database has no other connection: only this one's writes count
      if (handle.$client.memory) return control(handle).totalChanges.get() as number
      return (control(handle).writeCounts.get() as [number, number]).join(':')
    }
    const waiting = untilNoTransaction(handle)
    return waiting ? waiting.then(stamp) : stamp()
  },

  readingAt: (db) => db,

  async commitsOfOthers(db) {
    await untilNoTransaction(own(db))
    return own(db).$client.memory ? 0 : (control(own(db)).dataVersion.get() as number)
  },

  async close(db) {
    own(db).$client.close()
  },
}

/** The store on a SQLite database (`:memory:`, the default, or a file), brought to the latest migration. */
export function openSqlite(path?: string): SqliteDb {
  const db = openDb(path)
  Object.defineProperty(db, 'driver', { value: sqliteDriver })
  return db as SqliteDb
}

export function closeSqlite(db: SqliteDb): void {
  db.$client.close()
}
