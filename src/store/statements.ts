/**
 * The store's primitives, written once for every database: a statement, a statement built per
 * call, a transaction, and what a process may keep per connection. Each runs through the driver
 * of the handle it is given (store/driver.ts); every SQL statement of the sandbox lives under
 * src/store (ARCHITECTURE.md).
 */
import type {
  Db,
  Dialect,
  Builder,
  EitherStatement,
  MakeStatement,
  Method,
  Tables,
  TransactionOptions,
} from './driver.js'

export type { Db, EitherStatement, Tables, TransactionOptions }
export { columnIn, tableIn } from './tables.js'

/**
 * A statement for one call site, written once for every store: `const byId = statement((db, t)
 * => db.select().from(t.cards)…prepare())`, then `await byId(db).get(…)`. The driver builds it
 * once per connection, with its own builder and tables, and runs it: a statement called outside
 * a transaction while one is open on the connection waits for it (SQLite's one connection).
 */
export function statement<T extends object>(
  make: MakeStatement<T>,
): (db: Db) => EitherStatement<T> {
  const slot = new WeakMap<object, unknown>()
  return (db) => db.driver.statement(db, make, slot)
}

/**
 * A statement built per call, for those whose shape depends on the call (a list of ids, a table
 * picked at run time): `await query(db, 'all', (db, t) => db.select()…)`. `get`, the first row;
 * `run`, `{ changes }`.
 */
export function query<R = unknown>(
  db: Db,
  method: Method,
  build: (builder: Builder, t: Tables, dialect: Dialect) => unknown,
): Promise<R> {
  return db.driver.query<R>(db, method, build)
}

/**
 * Runs `body` in one transaction (in a savepoint when already inside one, so that a refusal
 * undoes only its own writes), handing it the handle its statements must use: for a database,
 * a handle inside the transaction; for a context (`{ db, … }`), the same context with that handle.
 */
export function atomically<T>(
  db: Db,
  body: (db: Db) => Promise<T> | T,
  options?: TransactionOptions,
): Promise<T>
export function atomically<C extends { db: Db }, T>(
  ctx: C,
  body: (ctx: C) => Promise<T> | T,
  options?: TransactionOptions,
): Promise<T>
export function atomically<T>(
  on: Db | { db: Db },
  body: (on: never) => Promise<T> | T,
  options: TransactionOptions = {},
): Promise<T> {
  if ('driver' in on) return on.driver.transaction(on, body as (db: Db) => Promise<T> | T, options)
  const { db } = on
  return db.driver.transaction(db, (handle) => body({ ...on, db: handle } as never), options)
}

/** Whether a transaction is open on this handle (its writes may yet roll back). */
export function inTransaction(db: Db): boolean {
  return db.driver.inTransaction(db)
}

/**
 * Whether other processes may write to the store meanwhile (replicas): what a process keeps from
 * the tables must then be checked against it before use (a capability of the driver).
 */
export function storeIsShared(db: Db): boolean {
  return db.driver.replicas !== undefined
}

/** Changes whenever another connection or process commits (see Driver.commitsOfOthers). */
export function commitsOfOthers(db: Db): Promise<number> {
  return db.driver.commitsOfOthers(db)
}

/**
 * A value made once per connection (a cache) and found again from the connection or any
 * transaction's handle of it.
 */
export function perConnection<T>(make: () => T): (db: Db) => T {
  const byConnection = new WeakMap<object, T>()
  return (db) => {
    const connection = db.driver.connection(db)
    let value = byConnection.get(connection)
    if (value === undefined) byConnection.set(connection, (value = make()))
    return value
  }
}
