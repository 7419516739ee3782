/**
 * PostgreSQL's handles and transactions (store/driver.ts): a handle is the store (its pool) or
 * one of its transactions (a client of the pool of its own); the statements that are not built
 * once (compiled.ts) run on a handle here, and the process counts the writes it has finished,
 * which the read cache goes by (driver.ts writeStamp).
 */
import type { Builder, Db } from '../driver.js'
import type { PgStore } from './open.js'

/**
 * PostgreSQL's handle: the store, or one of its transactions, and the driver; a request's
 * handle also carries the snapshot its first statement saw (readingAt).
 */
export type PgDb = Db & {
  readonly pg: PgStore
  readonly snapshot?: string
  readonly writesAt?: number
}

export const own = (db: Db) => (db as PgDb).pg

/** A handle of the same driver as `db` on `store` (a transaction's client). */
const onStore = (db: Db, store: PgStore): Db => ({ driver: db.driver, pg: store }) as PgDb

/**
 * The writes this process has finished (transactions ended, statements outside one that are not
 * a select): a request's cached reads are good only while it stays where it was when the
 * request's snapshot was read (writeStamp), so that a request reads back what it wrote itself.
 */
export const writes = { here: 0 }

/** How many rows a statement's result holds or changed. */
export const changesOf = (result: unknown) =>
  Array.isArray(result) ? result.length : ((result as { rowCount?: number | null }).rowCount ?? 0)

/** A statement of SQL text on the store's handle (a lock, the sweep, a snapshot's rows). */
export async function text(store: PgStore, statement: string, values: unknown[] = []) {
  await store.ready
  const result = await store.queryable.query(statement, values)
  if (!store.inTransaction) writes.here++
  return result
}

/** A statement built per call by drizzle's builder on the handle: `get` the first row, `run` `{ changes }`. */
export async function run<R>(
  db: Db,
  method: 'get' | 'all' | 'run',
  build: (b: Builder) => unknown,
) {
  const store = own(db)
  await store.ready
  const result = await (build(store.drizzle as Builder) as PromiseLike<unknown>)
  if (!store.inTransaction) writes.here++
  if (method === 'run') return { changes: changesOf(result) } as R
  return (method === 'get' ? (result as unknown[])[0] : result) as R
}

let savepoints = 0
const DEADLOCK = '40P01'
const DEADLOCK_RETRIES = 3

/** A failed statement's SQLSTATE: node-postgres's error has it, drizzle's wraps that as its cause. */
const sqlStateOf = (error: unknown) =>
  (error as { code?: string }).code ?? (error as { cause?: { code?: string } }).cause?.code

/**
 * A transaction: a client of the pool of its own, BEGIN … COMMIT, the body's statements on it;
 * nested, a savepoint. Other requests run on other clients meanwhile: what must not interleave
 * takes row locks (SELECT … FOR UPDATE), not a lock of this process. A deadlock (two
 * transactions that locked rows in opposite orders) runs the body again.
 */
export async function transaction<T>(db: Db, body: (handle: Db) => Promise<T> | T): Promise<T> {
  const store = own(db)
  if (store.inTransaction) {
    const name = `s${++savepoints}`
    await store.queryable.query(`SAVEPOINT ${name}`)
    try {
      const result = await body(db)
      await store.queryable.query(`RELEASE SAVEPOINT ${name}`)
      return result
    } catch (error) {
      await store.queryable.query(`ROLLBACK TO SAVEPOINT ${name}`)
      throw error
    }
  }
  for (let attempt = 1; ; attempt++) {
    const open = await store.begin()
    let committed = false
    try {
      const result = await body(onStore(db, open.store))
      await open.end(true)
      committed = true
      return result
    } catch (error) {
      if (attempt < DEADLOCK_RETRIES && sqlStateOf(error) === DEADLOCK) continue
      throw error
    } finally {
      // a ROLLBACK fails when the connection is lost, and the transaction is lost with it: the
      // body's own error says what happened (a 422 stays a 422), not the ROLLBACK's
      if (!committed) await open.end(false).catch(() => {})
      writes.here++
    }
  }
}
