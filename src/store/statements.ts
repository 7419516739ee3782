/**
 * The store's two primitives: a prepared statement built once per database, and a transaction.
 * Every SQL statement of the sandbox lives under src/store (ARCHITECTURE.md), so that a second
 * dialect can stand behind the same functions.
 */
import type { Db } from '../db/open.js'

const statements = new WeakMap<object, Map<string, unknown>>()

/**
 * A prepared statement built once per database and reused: drizzle builds SQL and
 * better-sqlite3 prepares it on every plain query, which is most of a request's cost.
 */
export function prepared<T>(db: Db, key: string, build: () => T): T {
  let cache = statements.get(db)
  if (!cache) statements.set(db, (cache = new Map()))
  let statement = cache.get(key) as T | undefined
  if (statement === undefined) cache.set(key, (statement = build()))
  return statement
}

/**
 * A statement prepared once per database for one call site, without a key to build per call:
 * `const byId = statement((db) => db.select()…prepare())`, then `byId(db).get(…)`.
 */
export function statement<T>(build: (db: Db) => T): (db: Db) => T {
  const byDb = new WeakMap<Db, T>()
  return (db) => {
    let prepared = byDb.get(db)
    if (prepared === undefined) byDb.set(db, (prepared = build(db)))
    return prepared
  }
}

/**
 * Runs `fn` in one SQLite transaction (in a savepoint when already inside one, so that a refusal
 * undoes only its own writes). better-sqlite3's wrapper, made once per database: drizzle's
 * `db.transaction` builds a new wrapper and a transaction object on every call.
 */
export function atomically<T>(db: Db, fn: () => T): T {
  const run = prepared(db, 'transaction', () =>
    db.$client.transaction((body: () => unknown) => body()),
  )
  return run(fn) as T
}

/** Whether a transaction is open on this connection (its writes may yet roll back). */
export function inTransaction(db: Db): boolean {
  return db.$client.inTransaction
}

const dataVersion = statement((db) => db.$client.prepare('PRAGMA data_version').pluck())

/**
 * Changes whenever another connection commits to the database file (SQLite's data_version); an
 * in-memory database has no other connection.
 */
export function commitsOfOthers(db: Db): number {
  return db.$client.memory ? 0 : (dataVersion(db).get() as number)
}
