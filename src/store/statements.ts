/**
 * The store's two primitives: a prepared statement built once per database, and a transaction.
 * Every SQL statement of the sandbox lives under src/store (ARCHITECTURE.md), so that a second
 * dialect can stand behind the same functions.
 */
import type { Db } from '../db/open.js'

const CONNECTION = Symbol('connection')

/**
 * The connection a database handle stands for, which every statement cache is keyed by: a
 * transaction's body gets a handle of its own (atomically), marked with its connection. A
 * statement run on the bare connection while a transaction is open on it is refused: it can
 * only come from a body that reached for the connection instead of its handle, which an
 * asynchronous store (ARCHITECTURE.md, "Toward PostgreSQL") could not tell from another
 * request's statement, which must wait for the transaction to end.
 */
export function connectionOf(db: Db): Db {
  const connection = (db as { [CONNECTION]?: Db })[CONNECTION]
  if (connection) return connection
  if (db.$client.inTransaction)
    throw new Error("a statement on the connection inside a transaction: use the body's handle")
  return db
}

const statements = new WeakMap<object, Map<string, unknown>>()

/**
 * A prepared statement built once per database and reused: drizzle builds SQL and
 * better-sqlite3 prepares it on every plain query, which is most of a request's cost.
 */
export function prepared<T>(db: Db, key: string, build: () => T): T {
  return preparedOn(connectionOf(db), key, build)
}

function preparedOn<T>(connection: Db, key: string, build: () => T): T {
  let cache = statements.get(connection)
  if (!cache) statements.set(connection, (cache = new Map()))
  let statement = cache.get(key) as T | undefined
  if (statement === undefined) cache.set(key, (statement = build()))
  return statement
}

/**
 * A value made once per connection (a prepared statement, a cache) and found again from the
 * connection or any transaction's handle of it.
 */
export function perConnection<T>(make: (connection: Db) => T): (db: Db) => T {
  const byConnection = new WeakMap<Db, T>()
  return (db) => {
    const connection = connectionOf(db)
    let value = byConnection.get(connection)
    if (value === undefined) byConnection.set(connection, (value = make(connection)))
    return value
  }
}

/**
 * A statement prepared once per database for one call site, without a key to build per call:
 * `const byId = statement((db) => db.select()…prepare())`, then `byId(db).get(…)`.
 */
export const statement = perConnection

/**
 * Runs `body` in one SQLite transaction (in a savepoint when already inside one, so that a
 * refusal undoes only its own writes), handing it the handle its statements must use: for a
 * database, a handle of the same connection; for a context (`{ db, … }`), the same context with
 * that handle. better-sqlite3's wrapper, made once per connection: drizzle's `db.transaction`
 * builds a new wrapper and a transaction object on every call.
 */
export function atomically<T>(db: Db, body: (db: Db) => T): T
export function atomically<C extends { db: Db }, T>(ctx: C, body: (ctx: C) => T): T
export function atomically<T>(on: Db | { db: Db }, body: (on: never) => T): T {
  const isDb = '$client' in on
  const connection = connectionOf(isDb ? on : on.db)
  const run = preparedOn(connection, 'transaction', () =>
    connection.$client.transaction((inside: () => unknown) => inside()),
  )
  const handle = Object.create(connection, { [CONNECTION]: { value: connection } }) as Db
  return run(() => body((isDb ? handle : { ...on, db: handle }) as never)) as T
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
