/**
 * The seam between the store and a database: everything the store asks of one, as one interface
 * (`Driver`), with one implementation per database (store/sqlite/, store/postgres/). The store's
 * resource modules write their statements once, with drizzle's builder and the tables of
 * db/schema.ts, and run them through the driver of the handle they are given; they never ask
 * which database it is. What differs between databases and is not a statement (a transaction's
 * shape, row locks, batched deletes, a snapshot's staging, who else writes) is a method here.
 * ARCHITECTURE.md "The store's seam" says what a third database would take.
 */
import type { SQL } from 'drizzle-orm'
import type { BaseSQLiteDatabase, SQLiteColumn, SQLiteTable } from 'drizzle-orm/sqlite-core'
import type * as schema from '../db/schema.js'
import type { Tenant } from '../db/schema.js'

/** A handle on a database: the database itself, or a transaction open on it. Opaque outside drivers. */
export type Db = { readonly driver: Driver }

/** The tables a statement's builder is given: db/schema.ts's, or the driver's own under the same names. */
export type Tables = typeof schema

/**
 * The builder a statement is written with: drizzle's query builder, typed as SQLite's. Each
 * driver hands its own dialect's builder, which has the same surface for what the store builds
 * (select, insert, update, delete, placeholders, `.prepare()`).
 */
export type Builder = BaseSQLiteDatabase<
  'sync',
  { changes: number; lastInsertRowid: number | bigint },
  typeof schema
>

/** The fragments the dialects spell apart, handed to every statement's builder. */
export type Dialect = {
  /**
   * A select that locks the rows it reads until its transaction ends (`skipLocked`: rows another
   * transaction holds are left out). Where one transaction runs at a time, the select as it is.
   */
  forUpdate<Q>(select: Q, options?: { skipLocked: boolean }): Q
  /** `column` is one of the strings of a JSON array given as text. */
  inJsonArray(column: SQLiteColumn, jsonArray: unknown): SQL
  /**
   * `column` in a condition that only narrows the rows another condition finds, never the index
   * they are found through (SQLite's unary `+`: without statistics, its planner would walk an
   * index that starts with the column, every row of it, rather than look a list of keys up).
   */
  filterOnly(column: SQLiteColumn): SQL
  /** `column` starts with `prefix` (case-sensitive; no wildcard in the prefix). */
  startsWith(column: SQLiteColumn, prefix: unknown): SQL
  /** The database's own wall clock, in milliseconds since the epoch (leases across processes). */
  nowMs: SQL
  /**
   * Where other processes write (a shared store), the statement's snapshot as text: two
   * statements that read equal text saw the same committed data, so nothing was written between
   * them. Null where the driver's writeStamp needs no snapshot.
   */
  snapshot: SQL
}

/** A statement's methods as callers see them: run now or later, always awaited. */
export type EitherStatement<T> = {
  [K in keyof T]: T[K] extends (...args: infer A) => infer R ? (...args: A) => R | Promise<R> : T[K]
}

export type MakeStatement<T> = (builder: Builder, t: Tables, dialect: Dialect) => T

/** Where a statement keeps what it built, per connection (one per call site of `statement`). */
export type StatementSlot = WeakMap<object, unknown>

export type Method = 'get' | 'all' | 'run'

export type TransactionOptions = {
  /**
   * Running the body again from its start, after its writes were undone, is harmless: nothing
   * it does outside the database matters twice (ids drawn again, a due instant lowered again).
   */
  rerunnable?: boolean
}

/** A table whose rows belong to a tenant. */
export type TenantTable = SQLiteTable & { tenantId: SQLiteColumn }

/** Each flag by name (`--clock`), with its value as this process was started. */
export type ReplicaSettings = Record<string, string>

/** What the tick needs of a tenant's clock to work out its now (domain/clock.ts). */
export type TenantClock = Pick<Tenant, 'clockMode' | 'clockAnchorMs' | 'clockWallMs'>

/** A tenant's earliest instant something is due (null: nothing), with its clock. */
export type EarliestDue = { tenantId: string; dueAt: number | null; clock: TenantClock }

/** A job to write with the row it moves (Driver.insertWithJob): all but that row's `seq`. */
export type NewJob = Omit<typeof schema.jobs.$inferInsert, 'seq' | 'resourceSeq'>

/** A value that changes with every write to the database; compared with ===. */
export type Stamp = string | number

export interface Driver {
  /** The database's name, for messages. */
  readonly name: string
  /**
   * Present where other processes may write to this database meanwhile (replicas): what only
   * such a store does. What a process keeps from the tables (tenants, scenarios in force, the due
   * index, read caches) must then be checked against the database before it is used; without
   * it, it is kept until this process writes.
   */
  readonly replicas?: Replicas
  /** Transactions run side by side, so a status move locks the rows it reads (lockForMove). */
  readonly rowLocks: boolean
  /**
   * How many due jobs one slice of a run claims and runs, in one transaction. Where one
   * connection serves every request (SQLite), other requests' statements wait for the whole
   * slice, so it is short; where each transaction has a connection of its own, they do not, and
   * a longer slice spends fewer round trips.
   */
  readonly dueSliceJobs: number
  readonly dialect: Dialect

  /** The object per-connection values are kept under, for any handle of that connection. */
  connection(db: Db): object
  /** The statement `make` builds, built once per connection and kept in `slot`. */
  statement<T extends object>(
    db: Db,
    make: MakeStatement<T>,
    slot: StatementSlot,
  ): EitherStatement<T>
  /** A statement built per call (its shape depends on the call): `get` the first row, `run` `{ changes }`. */
  query<R>(
    db: Db,
    method: Method,
    build: (builder: Builder, t: Tables, dialect: Dialect) => unknown,
  ): Promise<R>
  /** Runs `body` in a transaction (a savepoint when already in one), handing it the handle to use. */
  transaction<T>(
    db: Db,
    body: (handle: Db) => Promise<T> | T,
    options: TransactionOptions,
  ): Promise<T>
  /** Whether `db` is a handle inside a transaction (its writes may yet roll back). */
  inTransaction(db: Db): boolean

  /** Inserts one row; with `returning`, the row as stored. */
  insert(
    db: Db,
    table: SQLiteTable,
    values: Record<string, unknown>,
    returning: boolean,
  ): Promise<unknown>
  /**
   * Inserts one row of `table` and the job that moves it (`job`, its `resourceSeq` the new
   * row's `seq`); returns the row as stored. One statement where the database can write two
   * tables in one; else two, which the caller's transaction makes one change.
   */
  insertWithJob(
    db: Db,
    table: SQLiteTable,
    values: Record<string, unknown>,
    job: NewJob,
  ): Promise<unknown>
  /** Updates the rows whose `by` equals `value`: how many; with `returning`, the first as stored. */
  update(
    db: Db,
    table: SQLiteTable,
    by: SQLiteColumn,
    value: unknown,
    changes: Record<string, unknown>,
    returning: boolean,
  ): Promise<{ changes: number; row?: unknown }>

  /** Inserts rows of `table` in one statement, in the order given (their seqs follow it). */
  insertMany(db: Db, table: SQLiteTable, rows: Record<string, unknown>[]): Promise<void>
  /**
   * Updates several rows of `table` by `seq` in one statement, each with its own values; every
   * row changes the same columns (the first row's).
   */
  updateManyBySeq(
    db: Db,
    table: SQLiteTable,
    rows: { seq: number; changes: Record<string, unknown> }[],
  ): Promise<void>

  /** Takes a lock named `name` until the transaction ends (a check that no row can carry). */
  lockName(db: Db, name: string): Promise<void>
  /** lockName without waiting: false when another transaction holds it. */
  tryLockName(db: Db, name: string): Promise<boolean>

  /** Deletes up to `limit` of the tenant's rows of `table`; how many. */
  deleteTenantRows(db: Db, table: string, tenantId: string, limit: number): Promise<number>
  /** Every row of the tenant in each table, as its columns name them (JSON), and how many. */
  tenantRowsJson(
    db: Db,
    tables: readonly string[],
    tenantId: string,
  ): Promise<{ json: string; count: number }>
  /**
   * Inside a transaction: deletes the rows of `lineage` from each table and writes snapshot
   * `seq`'s rows (`rowsJson`, read when needed) back under `tenantId`.
   */
  restoreTenantRows(
    db: Db,
    tables: readonly string[],
    lineage: readonly string[],
    tenantId: string,
    seq: number,
    rowsJson: () => Promise<string>,
  ): Promise<void>
  /** Makes snapshot `seq` quick to restore next (where the driver stages snapshots). */
  stageSnapshot(
    db: Db,
    tables: readonly string[],
    seq: number,
    rowsJson: () => Promise<string>,
  ): Promise<void>
  /** Forgets what was staged for snapshot `seq` (it was replaced or deleted). */
  unstageSnapshot(db: Db, seq: number): Promise<void>

  /**
   * A stamp of every write so far (this connection's and others'), to tell a cached read is
   * still current; undefined when reads must not be cached now (in a transaction; on a shared
   * store, a handle that was not given a snapshot by readingAt).
   */
  writeStamp(db: Db): Promise<Stamp | undefined> | Stamp | undefined
  /**
   * The handle for one request's reads whose first statement saw the database at `snapshot`
   * (Dialect.snapshot, read with the tenant): on a shared store its writeStamp is that snapshot
   * while this process has written nothing since, so a read repeated with nothing written
   * anywhere since is answered from the read cache. Where writeStamp needs none, `db` as it is.
   */
  readingAt(db: Db, snapshot: string | null | undefined): Db
  /** A number that changes whenever another connection or process commits (always, where unknown). */
  commitsOfOthers(db: Db): Promise<number>

  close(db: Db): Promise<void>
}

/** What a listener hands on of the writes it hears (store/announced.ts keeps them). */
export type Heard = {
  /** One announcement, as the database's triggers word it. */
  announce(payload: string): void
  /** Everything may have changed (the start, a reconnection, the slow poll). */
  announceEverything(): void
}

/**
 * What only a store shared by several processes (replicas) does: the tick of such a store waits
 * for what the others announce instead of asking the tables, and reads the earliest instants
 * they tell of. A store of one process has none of it (Driver.replicas absent).
 */
export interface Replicas {
  /**
   * Each tenant's earliest due job, with its clock: of the tenants `ids` (null where none), or,
   * without ids, of every tenant on a real clock that has one. Through the jobs' (tenant_id,
   * due_at) index, a probe a tenant: its cost never grows with the jobs pending.
   */
  earliestDue(db: Db, ids?: readonly string[]): Promise<EarliestDue[]>
  /** Each tenant's earliest pending webhook event that no process holds (its lease running), with its clock. */
  earliestEventToAttempt(db: Db): Promise<EarliestDue[]>
  /**
   * Hears of other processes' writes, handing them to `heard`, until the returned function is
   * called, and announces everything every `slowPollMs`.
   */
  listenForWrites(db: Db, heard: Heard, slowPollMs?: number): () => Promise<void>
  /**
   * Serves this database from this process beside the others: refuses when they run with other
   * `settings`. Returns what leaves.
   */
  join(db: Db, settings: ReplicaSettings): Promise<() => Promise<void>>
}
