/**
 * The store's two primitives: a prepared statement built once per database, and a transaction.
 * Every SQL statement of the sandbox lives under src/store (ARCHITECTURE.md), so that a second
 * dialect can stand behind the same functions.
 */
import { setImmediate } from 'node:timers'
import { getTableColumns, getTableName, is, Table } from 'drizzle-orm'
import type { SQLiteColumn, SQLiteTable } from 'drizzle-orm/sqlite-core'
import type { Db } from '../db/open.js'
import * as sqliteTables from '../db/schema.js'
import { compiled } from './compiled.js'
import { pgDb, pgOf, pgPoolDb, pgStatement, type PgStore } from './postgres.js'

/** The tables a statement's builder is given: SQLite's, or PostgreSQL's under the same names. */
export type Tables = typeof sqliteTables

const CONNECTION = Symbol('connection')

/**
 * The connection a database handle stands for, which every statement cache and per-connection
 * value is keyed by: a transaction's body gets a handle (atomically), marked with its connection.
 */
export function connectionOf(db: Db): Db {
  const pg = pgOf(db)
  if (pg) return pgPoolDb(pg)
  return (db as { [CONNECTION]?: Db })[CONNECTION] ?? db
}

/**
 * The connection a statement about to run is prepared on. A statement on the bare connection
 * while a transaction is open on it is refused: statements outside a transaction wait for it to
 * end (`locked`), so it can only come from a body that reached for the connection instead of
 * its handle (which would wait for its own transaction, for ever, had it waited).
 */
function statementConnection(db: Db): Db {
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
  return preparedOn(statementConnection(db), key, build)
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

const tablesByName = new WeakMap<Tables, Map<string, SQLiteTable>>()

/**
 * The table of the builder's tables `t` that has `table`'s name (itself on SQLite; PostgreSQL's
 * there), for a builder given a table rather than naming one (rows.ts).
 */
export function tableIn<T extends SQLiteTable>(t: Tables, table: T): T {
  if (t === sqliteTables) return table
  let byName = tablesByName.get(t)
  if (!byName) {
    byName = new Map()
    for (const value of Object.values(t))
      if (is(value, Table)) byName.set(getTableName(value), value as SQLiteTable)
    tablesByName.set(t, byName)
  }
  return byName.get(getTableName(table)) as T
}

/**
 * Whether other processes may write to the store meanwhile (PostgreSQL: replicas). What a process
 * keeps from the tables (the token cache, the due index) is then read again where it must be
 * current.
 */
export function sharedStore(db: Db): boolean {
  return pgOf(db) !== undefined
}

/** Whether a builder was given PostgreSQL's tables (for the few fragments the dialects spell apart). */
export function onPostgres(t: Tables): boolean {
  return t !== sqliteTables
}

/**
 * A select that locks the rows it reads until its transaction ends, on PostgreSQL (`FOR UPDATE`;
 * `skipLocked`: rows another transaction holds are left out rather than waited for). SQLite has
 * one writer at a time: a transaction there already holds the whole connection.
 */
export function forUpdate<Q>(t: Tables, select: Q, options?: { skipLocked: boolean }): Q {
  if (!onPostgres(t)) return select
  return (select as { for(strength: 'update', config?: { skipLocked?: boolean }): Q }).for(
    'update',
    options,
  )
}

/** The column of `tableIn(t, table)` that has `column`'s key in `table`. */
export function columnIn(t: Tables, table: SQLiteTable, column: SQLiteColumn): SQLiteColumn {
  if (t === sqliteTables) return column
  const key = Object.entries(getTableColumns(table)).find(([, c]) => c === column)![0]
  return getTableColumns(tableIn(t, table))[key]
}

type Method = 'get' | 'all' | 'run'
type Runnable = { get(): unknown; all(): unknown; run(): unknown }

/**
 * A statement built per call, for those whose shape depends on the call (a list of ids, a table
 * picked at run time), on either store: `await query(db, 'all', (db, t) => db.select()…)`. On
 * SQLite it runs at once (after any open transaction); on PostgreSQL it is awaited: `get`, the
 * first row; `run`, `{ changes }`.
 */
export async function query<R = unknown>(
  db: Db,
  method: Method,
  build: (db: Db, t: Tables) => unknown,
): Promise<R> {
  const pg = pgOf(db)
  if (pg) {
    await pg.ready
    const result = (await (build(pg.drizzle as Db, pg.tables) as PromiseLike<unknown>)) as
      unknown[] | { rowCount: number | null }
    if (method === 'run')
      return {
        changes: Array.isArray(result) ? result.length : (result.rowCount ?? 0),
      } as R
    return (method === 'get' ? (result as unknown[])[0] : result) as R
  }
  while (locked(db)) await unlocked(db)
  return (build(db, sqliteTables) as Runnable)[method]() as R
}

/** A statement's methods as callers see them: run now (SQLite) or later (PostgreSQL), awaited. */
export type EitherStatement<T> = {
  [K in keyof T]: T[K] extends (...args: infer A) => infer R ? (...args: A) => R | Promise<R> : T[K]
}

/**
 * A statement for one call site, written once for both stores: `const byId = statement((db, t)
 * => db.select().from(t.cards)…prepare())`, then `await byId(db).get(…)`. On SQLite it is
 * prepared once per connection and runs at once; on PostgreSQL the same builder is given
 * PostgreSQL's tables and drizzle (built once per pool client), and the statement runs async.
 */
export function statement<T extends object>(
  make: (connection: Db, t: Tables) => T,
): (db: Db) => EitherStatement<T> {
  const onConnection = perConnection((connection) => compiled(make(connection, sqliteTables)))
  // on PostgreSQL, built once per pool client (or for the pool), when it first runs (the store
  // is ready then: its driver loaded), and kept with it
  const onClient = new WeakMap<object, EitherStatement<T>>()
  return (db) => {
    const pg = pgOf(db)
    if (pg) {
      let built = onClient.get(pg.queryable)
      if (!built)
        onClient.set(
          pg.queryable,
          (built = pgStatement(pg, () => make(pg.drizzle as Db, pg.tables)) as EitherStatement<T>),
        )
      return built
    }
    const prepared = onConnection(db)
    return (locked(db) ? afterTransaction(db, prepared) : prepared) as EitherStatement<T>
  }
}

/**
 * A statement on the bare connection while another request's transaction is open on it: each
 * method waits for the transaction to end, then runs (the check and the statement in one step).
 * A store function that awaited one statement finds the next one here when a transaction began
 * in between.
 */
function afterTransaction<T extends object>(db: Db, prepared: T): T {
  const waiting: Record<string, unknown> = {}
  for (const method of ['get', 'all', 'run', 'values'] as const) {
    const run = (prepared as Record<string, (...args: unknown[]) => unknown>)[method]
    if (!run) continue
    waiting[method] = async (...args: unknown[]) => {
      while (locked(db)) await unlocked(db)
      return run.apply(prepared, args)
    }
  }
  return waiting as T
}

/**
 * Who holds a connection's transaction, and who waits: a transaction's body awaits (the store is
 * asynchronous for PostgreSQL's sake), and on SQLite's one connection no other request's
 * statement may run between its BEGIN and COMMIT. Transactions queue for the lock in order;
 * a statement outside any transaction waits for the one open (`while (locked(db)) await
 * unlocked(db)`, just before it runs: a check and the statement in one synchronous step).
 */
type Lock = { held: boolean; queue: (() => void)[]; released?: Promise<void>; release?: () => void }

const locks = new WeakMap<Db, Lock>()

function lockOf(connection: Db): Lock {
  let lock = locks.get(connection)
  if (!lock) locks.set(connection, (lock = { held: false, queue: [] }))
  return lock
}

/** Whether a statement on `db` must wait: a transaction is open on its connection, not on this handle. */
export function locked(db: Db): boolean {
  return (db as { [CONNECTION]?: Db })[CONNECTION] === undefined && locks.get(db)?.held === true
}

/** Settles when the transaction open on `db`'s connection ends (check `locked` again then). */
export function unlocked(db: Db): Promise<void> {
  const lock = lockOf(db)
  return (lock.released ??= new Promise((resolve) => (lock.release = resolve)))
}

function acquire(lock: Lock): Promise<void> | undefined {
  if (!lock.held && lock.queue.length === 0) {
    lock.held = true
    return undefined
  }
  return new Promise((resolve) => lock.queue.push(resolve))
}

function releaseLock(lock: Lock): void {
  lock.held = false
  const waiting = lock.released
  const next = () => {
    const granted = lock.queue.shift()
    if (!granted) return
    lock.held = true
    granted()
  }
  if (!waiting) return next()
  // the statements that waited run first (their continuations were queued before this one)
  const wake = lock.release!
  lock.released = lock.release = undefined
  wake()
  void waiting.then(next)
}

const control = perConnection((connection) => ({
  begin: connection.$client.prepare('BEGIN'),
  commit: connection.$client.prepare('COMMIT'),
  rollback: connection.$client.prepare('ROLLBACK'),
  totalChanges: connection.$client.prepare('SELECT total_changes()').pluck(),
}))

export type TransactionOptions = {
  /**
   * Running the body again from its start, after its writes were undone, is harmless: nothing
   * it does outside the database matters twice (ids drawn again, a due instant lowered again).
   * In a turn of several (runTurn), such bodies run without a savepoint each; PostgreSQL runs
   * any body again after a deadlock.
   */
  rerunnable?: boolean
}
let savepoints = 0

/**
 * Runs `body` in one SQLite transaction (in a savepoint when already inside one, so that a
 * refusal undoes only its own writes), handing it the handle its statements must use: for a
 * database, a handle of the same connection; for a context (`{ db, … }`), the same context with
 * that handle. Transactions on one connection run one after the other (the lock above); on
 * SQLite, those asked for in one turn of the event loop run together in the next (runTurn).
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
export async function atomically<T>(
  on: Db | { db: Db },
  body: (on: never) => Promise<T> | T,
  { rerunnable = false }: TransactionOptions = {},
): Promise<T> {
  // a context has a db and is not one (a PostgreSQL store's Db has no $client either)
  const isDb = '$client' in on || !('db' in on)
  const db = isDb ? (on as Db) : (on as { db: Db }).db
  const pg = pgOf(db)
  if (pg)
    return await atomicallyOnPg(pg, (handle) =>
      body((isDb ? handle : { ...on, db: handle }) as never),
    )
  const owner = (db as { [CONNECTION]?: Db })[CONNECTION]
  const connection = owner ?? db
  const handle = owner ? db : handleOf(connection)
  const within = (isDb ? handle : { ...on, db: handle }) as never
  const client = connection.$client
  if (owner) {
    const name = `s${++savepoints}`
    client.exec(`SAVEPOINT ${name}`)
    try {
      const result = await body(within)
      client.exec(`RELEASE ${name}`)
      return result
    } catch (error) {
      client.exec(`ROLLBACK TO ${name}`)
      client.exec(`RELEASE ${name}`)
      throw error
    }
  }
  return await inNextTurn(connection, () => body(within), rerunnable)
}

/**
 * The handle a transaction's body is given: the connection marked with itself. One per
 * connection, made once (Object.create with a property costs ~4,000 instructions each time):
 * it is a mark, nothing is kept on it.
 */
const handleOf = perConnection(
  (connection) => Object.create(connection, { [CONNECTION]: { value: connection } }) as Db,
)

/** A transaction asked for, and how to answer its caller. */
type Asked = {
  body: () => Promise<unknown> | unknown
  rerunnable: boolean
  resolve: (result: unknown) => void
  reject: (error: unknown) => void
}

/** The transactions asked for in this turn of the event loop. */
const turnOf = perConnection((): Asked[] => [])

/**
 * The top-level transactions asked for in one turn of the event loop run back to back in its
 * check phase (setImmediate), and their callers hear back once all have run. Under load, those
 * are the transactions of every request read in that turn: SQLite's code and pages stay in the
 * CPU's caches from one to the next, where a request's other work between two evicted them (a
 * card's creation took 22–28 µs in a loop, 53–77 with a request's work between two; POST
 * /v1/cards/create answered 1.68× as many a second). node:timers' setImmediate: a test's fake
 * timers replace the global one, not this.
 */
function inNextTurn<T>(
  connection: Db,
  body: () => Promise<T> | T,
  rerunnable: boolean,
): Promise<T> {
  return new Promise<T>((resolve, reject) => {
    const turn = turnOf(connection)
    turn.push({ body, rerunnable, resolve: resolve as (result: unknown) => void, reject })
    if (turn.length === 1) setImmediate(() => void runTurn(connection, turn))
  })
}

const savepoint = perConnection((connection) => ({
  open: connection.$client.prepare('SAVEPOINT turn'),
  release: connection.$client.prepare('RELEASE turn'),
  undo: connection.$client.prepare('ROLLBACK TO turn'),
  openRerunnable: connection.$client.prepare('SAVEPOINT rerunnable'),
  releaseRerunnable: connection.$client.prepare('RELEASE rerunnable'),
  undoRerunnable: connection.$client.prepare('ROLLBACK TO rerunnable'),
}))

/**
 * Runs a turn's transactions in one BEGIN … COMMIT, the connection's lock held throughout; then
 * answers their callers, once committed. One COMMIT for the turn: SQLite's commit walks its
 * whole page cache after a page split (db/open.ts), a walk that grows with the database (a
 * create's 5.9 % of samples in 10 s of creates). If the COMMIT fails, or a body's error ends the
 * transaction, every caller hears of that error.
 *
 * When there are several, each body runs in a savepoint of its own (a refusal undoes its own
 * writes only), which copies every page the body changes into SQLite's sub-journal: 8 KiB each,
 * in 1 KiB allocations. Rerunnable bodies (TransactionOptions) in a row share one savepoint
 * instead, so a page they all change (the end of a table, of an index of seqs) is copied once
 * for all of them: 1.035× the card creations a second (README "Performance"). One of them that
 * fails having written nothing (`total_changes()` as before it) is simply answered with its
 * error; one that wrote first undoes the shared savepoint, and those before it in the row run
 * again, each in a savepoint of its own.
 */
async function runTurn(connection: Db, turn: Asked[]): Promise<void> {
  const asked = turn.splice(0)
  const lock = lockOf(connection)
  const waited = acquire(lock)
  if (waited) await waited
  let answers: (() => void)[] = []
  try {
    // prepared inside: a database closed since the turn was asked makes them throw
    const { begin, commit } = control(connection)
    begin.run()
    if (asked.length === 1) {
      const [one] = asked
      const result = await one.body()
      answers.push(() => one.resolve(result))
    } else answers = await runSeveral(connection, asked)
    commit.run()
  } catch (error) {
    if (connection.$client.inTransaction) control(connection).rollback.run()
    answers = asked.map((one) => () => one.reject(error))
  } finally {
    releaseLock(lock)
  }
  for (const answer of answers) answer()
}

/** The bodies of a turn of several, in order (runTurn); how to answer each. */
async function runSeveral(connection: Db, asked: Asked[]): Promise<(() => void)[]> {
  const { totalChanges } = control(connection)
  const { openRerunnable, releaseRerunnable, undoRerunnable } = savepoint(connection)
  const answers: (() => void)[] = []
  let row: number[] | undefined // the rerunnable bodies run since the shared savepoint, by index
  for (let i = 0; i < asked.length; i++) {
    const one = asked[i]
    if (!one.rerunnable) {
      if (row) releaseRerunnable.run()
      row = undefined
      answers[i] = await inSavepoint(connection, one)
      continue
    }
    if (!row) {
      openRerunnable.run()
      row = []
    }
    const before = totalChanges.get()
    try {
      const result = await one.body()
      answers[i] = () => one.resolve(result)
      row.push(i)
    } catch (error) {
      // its error ended the transaction (SQLite rolls back by itself on a full disk, say)
      if (!connection.$client.inTransaction) throw error
      answers[i] = () => one.reject(error)
      if (totalChanges.get() === before) continue
      undoRerunnable.run()
      releaseRerunnable.run()
      for (const earlier of row) answers[earlier] = await inSavepoint(connection, asked[earlier])
      row = undefined
    }
  }
  if (row) releaseRerunnable.run()
  return answers
}

/** Runs one body of a turn in a savepoint of its own; how to answer its caller. */
async function inSavepoint(connection: Db, one: Asked): Promise<() => void> {
  const { open, release, undo } = savepoint(connection)
  open.run()
  try {
    const result = await one.body()
    release.run()
    return () => one.resolve(result)
  } catch (error) {
    // its error ended the transaction (SQLite rolls back by itself on a full disk, say): the
    // turn ends with it
    if (!connection.$client.inTransaction) throw error
    undo.run()
    release.run()
    return () => one.reject(error)
  }
}

/**
 * A transaction on PostgreSQL: a client of the pool of its own, BEGIN … COMMIT, the body's
 * statements on it; nested, a savepoint. Other requests run on other clients meanwhile: what
 * must not interleave takes row locks (SELECT … FOR UPDATE), not a lock of this process.
 */
async function atomicallyOnPg<T>(pg: PgStore, body: (handle: Db) => Promise<T> | T): Promise<T> {
  if (pg.inTransaction) {
    const name = `s${++savepoints}`
    await pg.queryable.query(`SAVEPOINT ${name}`)
    try {
      const result = await body(pgDb(pg))
      await pg.queryable.query(`RELEASE SAVEPOINT ${name}`)
      return result
    } catch (error) {
      await pg.queryable.query(`ROLLBACK TO SAVEPOINT ${name}`)
      throw error
    }
  }
  for (let attempt = 1; ; attempt++) {
    const transaction = await pg.begin()
    let committed = false
    try {
      const result = await body(pgDb(transaction.store))
      await transaction.end(true)
      committed = true
      return result
    } catch (error) {
      // two transactions that locked rows in opposite orders: PostgreSQL aborts one; it runs again
      if (attempt < DEADLOCK_RETRIES && (error as { code?: string }).code === DEADLOCK) continue
      throw error
    } finally {
      // a ROLLBACK fails when the connection is lost, and the transaction is lost with it: the
      // body's own error says what happened (a 422 stays a 422), not the ROLLBACK's
      if (!committed) await transaction.end(false).catch(() => {})
    }
  }
}

const DEADLOCK = '40P01'
const DEADLOCK_RETRIES = 3

/** Whether a transaction is open on this connection (its writes may yet roll back). */
export function inTransaction(db: Db): boolean {
  const pg = pgOf(db)
  if (pg) return pg.inTransaction
  return db.$client.inTransaction
}

const dataVersion = statement((db) => db.$client.prepare('PRAGMA data_version').pluck())

let pgAsks = 0

/**
 * Changes whenever another connection commits to the database file (SQLite's data_version); an
 * in-memory database has no other connection. On PostgreSQL other replicas write unseen: it
 * changes at every ask, so that what is kept from the tables is read again (the due index, at
 * each tick).
 */
export async function commitsOfOthers(db: Db): Promise<number> {
  if (pgOf(db)) return ++pgAsks
  while (locked(db)) await unlocked(db)
  return db.$client.memory ? 0 : ((await dataVersion(db).get()) as number)
}
