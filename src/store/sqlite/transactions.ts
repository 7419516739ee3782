/**
 * Transactions on SQLite's one connection. A transaction's body awaits (the store is
 * asynchronous for PostgreSQL's sake), and no other request's statement may run between its
 * BEGIN and COMMIT: transactions queue for the connection's lock in order, and a statement
 * outside any transaction waits for the one open (untilNoTransaction, just before it runs: a
 * check and the statement in one synchronous step). This is the one place that rule is written.
 */
import { setImmediate } from 'node:timers'
import type Database from 'better-sqlite3'
import type { BetterSQLite3Database } from 'drizzle-orm/better-sqlite3'
import type * as schema from '../../db/schema.js'
import type { Db, Driver, TransactionOptions } from '../driver.js'

/** SQLite's handle: drizzle on the connection, the connection itself, and the driver. */
export type SqliteDb = BetterSQLite3Database<typeof schema> & {
  $client: Database.Database
  driver: Driver
}

const CONNECTION = Symbol('connection')

/**
 * The connection a handle stands for, which every statement cache and per-connection value is
 * keyed by: a transaction's body gets a handle (runInTransaction), marked with its connection.
 */
export function connectionOf(db: SqliteDb): SqliteDb {
  return (db as { [CONNECTION]?: SqliteDb })[CONNECTION] ?? db
}

/**
 * The connection a statement about to run is prepared on. A statement on the bare connection
 * while a transaction is open on it is refused: statements outside a transaction wait for it to
 * end, so it can only come from a body that reached for the connection instead of its handle
 * (which would wait for its own transaction, for ever, had it waited).
 */
function statementConnection(db: SqliteDb): SqliteDb {
  const connection = (db as { [CONNECTION]?: SqliteDb })[CONNECTION]
  if (connection) return connection
  if (db.$client.inTransaction)
    throw new Error("a statement on the connection inside a transaction: use the body's handle")
  return db
}

const statements = new WeakMap<object, Map<string, unknown>>()

/** A statement of SQL text prepared once per connection and reused. */
export function prepared<T>(db: SqliteDb, key: string, build: (connection: SqliteDb) => T): T {
  const connection = statementConnection(db)
  let cache = statements.get(connection)
  if (!cache) statements.set(connection, (cache = new Map()))
  let statement = cache.get(key) as T | undefined
  if (statement === undefined) cache.set(key, (statement = build(connection)))
  return statement
}

/** A value made once per connection and found again from the connection or any transaction's handle. */
export function perConnection<T>(make: (connection: SqliteDb) => T): (db: SqliteDb) => T {
  const byConnection = new WeakMap<SqliteDb, T>()
  return (db) => {
    const connection = connectionOf(db)
    let value = byConnection.get(connection)
    if (value === undefined) byConnection.set(connection, (value = make(connection)))
    return value
  }
}

/**
 * Settles once no transaction of another caller is open on `db`'s connection; undefined (no
 * wait) when none is. A statement run right after it settles runs outside any transaction.
 */
export function untilNoTransaction(db: SqliteDb): Promise<void> | undefined {
  return locked(db) ? waitUnlocked(db) : undefined
}

async function waitUnlocked(db: SqliteDb): Promise<void> {
  while (locked(db)) await unlocked(db)
}

/**
 * A prepared statement as a caller outside a transaction may use it: as it is when no
 * transaction is open, else each method waits for the transaction to end, then runs (the check
 * and the statement in one step). A store function that awaited one statement finds the next
 * one here when a transaction began in between.
 */
export function withoutTransaction<T extends object>(db: SqliteDb, prepared: T): T {
  if (!locked(db)) return prepared
  const waiting: Record<string, unknown> = {}
  for (const method of ['get', 'all', 'run', 'values'] as const) {
    const run = (prepared as Record<string, (...args: unknown[]) => unknown>)[method]
    if (!run) continue
    waiting[method] = async (...args: unknown[]) => {
      await waitUnlocked(db)
      return run.apply(prepared, args)
    }
  }
  return waiting as T
}

/**
 * Who holds a connection's transaction, and who waits (see the top of this file).
 */
type Lock = { held: boolean; queue: (() => void)[]; released?: Promise<void>; release?: () => void }

const locks = new WeakMap<SqliteDb, Lock>()

function lockOf(connection: SqliteDb): Lock {
  let lock = locks.get(connection)
  if (!lock) locks.set(connection, (lock = { held: false, queue: [] }))
  return lock
}

/** Whether a statement on `db` must wait: a transaction is open on its connection, not on this handle. */
function locked(db: SqliteDb): boolean {
  return (
    (db as { [CONNECTION]?: SqliteDb })[CONNECTION] === undefined && locks.get(db)?.held === true
  )
}

/** Settles when the transaction open on `db`'s connection ends (check `locked` again then). */
function unlocked(db: SqliteDb): Promise<void> {
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

let savepoints = 0

/**
 * Runs `body` in one SQLite transaction (in a savepoint when already inside one, so that a
 * refusal undoes only its own writes), handing it a handle of the same connection, marked as
 * inside. Transactions on one connection run one after the other (the lock above); those asked
 * for in one turn of the event loop run together in the next (runTurn). `rerunnable`: in a turn
 * of several, such bodies run without a savepoint each.
 */
export async function runInTransaction<T>(
  db: SqliteDb,
  body: (db: Db) => Promise<T> | T,
  { rerunnable = false }: TransactionOptions,
): Promise<T> {
  const owner = (db as { [CONNECTION]?: SqliteDb })[CONNECTION]
  const connection = owner ?? db
  const handle = owner ? db : handleOf(connection)
  const client = connection.$client
  if (owner) {
    const name = `s${++savepoints}`
    client.exec(`SAVEPOINT ${name}`)
    try {
      const result = await body(handle)
      client.exec(`RELEASE ${name}`)
      return result
    } catch (error) {
      client.exec(`ROLLBACK TO ${name}`)
      client.exec(`RELEASE ${name}`)
      throw error
    }
  }
  return await inNextTurn(connection, () => body(handle), rerunnable)
}

/**
 * The handle a transaction's body is given: the connection marked with itself. One per
 * connection, made once (Object.create with a property costs ~4,000 instructions each time):
 * it is a mark, nothing is kept on it.
 */
const handleOf = perConnection(
  (connection) => Object.create(connection, { [CONNECTION]: { value: connection } }) as SqliteDb,
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
  connection: SqliteDb,
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
 * whole page cache after a page split (sqlite/open.ts), a walk that grows with the database (a
 * create's 5.9 % of samples in 10 s of creates). If the COMMIT fails, or a body's error ends the
 * transaction, every caller hears of that error.
 *
 * When there are several, each body runs in a savepoint of its own (a refusal undoes its own
 * writes only), which copies every page the body changes into SQLite's sub-journal: 8 KiB each,
 * in 1 KiB allocations. Rerunnable bodies (TransactionOptions) in a row share one savepoint
 * instead, so a page they all change (the end of a table, of an index of seqs) is copied once
 * for all of them: 1.035× the card creations a second (bench/HISTORY.md). One of them that
 * fails having written nothing (`total_changes()` as before it) is simply answered with its
 * error; one that wrote first undoes the shared savepoint, and those before it in the row run
 * again, each in a savepoint of its own.
 */
async function runTurn(connection: SqliteDb, turn: Asked[]): Promise<void> {
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
async function runSeveral(connection: SqliteDb, asked: Asked[]): Promise<(() => void)[]> {
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
async function inSavepoint(connection: SqliteDb, one: Asked): Promise<() => void> {
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
