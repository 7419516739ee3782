/**
 * What every domain function receives: the store, the sandbox's randomness, the calling tenant
 * and the instant of the request on that tenant's clock. Never a Hono context.
 */
import { and, count, desc, eq, getTableName, sql } from 'drizzle-orm'
import type { SQLiteColumn, SQLiteTable } from 'drizzle-orm/sqlite-core'
import type { Db } from '../db/open.js'
import type { Tenant } from '../db/schema.js'
import type { Ids } from './ids.js'

export type DomainContext = {
  db: Db
  ids: Ids
  tenant: Tenant
  /** Milliseconds on the tenant's sandbox clock (PRODUCT §6). */
  now: number
  /** Whether the opt-in webhook events the real service is not known to send are written. */
  webhookExtensions?: boolean
  /** Delay overrides of the scenarios in force for the tenant (PRODUCT §9). */
  scenarioDelays?: Partial<Record<string, number>>
  /** The async outcome a scenario rule forces on what this request creates. */
  outcome?: { to: string; afterMs?: number }
}

export type Page = { page: number; perPage: number }
export type PageOf<T> = { rows: T[]; total: number; page: number; perPage: number }

export const DEFAULT_PER_PAGE = 20
export const MAX_PER_PAGE = 100

export function pageWindow({ page, perPage }: Page) {
  return { limit: perPage, offset: (page - 1) * perPage }
}

type ListableTable = SQLiteTable & {
  seq: SQLiteColumn
  tenantId: SQLiteColumn
  $inferSelect: unknown
}

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

/**
 * One page of a tenant's rows, newest first (SPEC §2.2), with the total for the meta;
 * optionally only the rows whose `by` column equals a value.
 */
export function listPage<T extends ListableTable>(
  ctx: DomainContext,
  table: T,
  page: Page,
  by?: { column: SQLiteColumn; value: string },
): PageOf<T['$inferSelect']> {
  const name = getTableName(table)
  const where = () =>
    and(
      eq(table.tenantId, sql.placeholder('tenant')),
      by ? eq(by.column, sql.placeholder('value')) : undefined,
    )
  const key = `list:${name}:${by?.column.name ?? ''}`
  const rowsQuery = prepared(ctx.db, key, () =>
    ctx.db
      .select()
      .from(table as SQLiteTable)
      .where(where())
      .orderBy(desc(table.seq))
      .limit(sql.placeholder('limit'))
      .offset(sql.placeholder('offset'))
      .prepare(),
  )
  const countQuery = prepared(ctx.db, `count:${key}`, () =>
    ctx.db
      .select({ n: count() })
      .from(table as SQLiteTable)
      .where(where())
      .prepare(),
  )
  const params = { tenant: ctx.tenant.id, value: by?.value, ...pageWindow(page) }
  return readThrough(ctx.db, `${key}:${JSON.stringify(params)}`, () => {
    const rows = rowsQuery.all(params) as T['$inferSelect'][]
    const total = countQuery.get(params)?.n ?? 0
    return { rows, total, ...page }
  })
}

/** How many reads a database keeps between writes: a test suite's lists, not more. */
const CACHED_READS = 256
const readCaches = new WeakMap<object, Map<string, { version: string; value: unknown }>>()

/**
 * A read (a page, its balances) repeated with nothing written since is answered from memory:
 * the count behind the paginator's `total` is linear in the tenant's rows. Any write (this
 * connection's or another's) makes every cached read stale; reads inside a transaction are
 * never cached. `key` must name everything the read depends on; callers must not mutate it.
 */
export function readThrough<V>(db: Db, key: string, read: () => V): V {
  const version = dataVersion(db)
  if (version === undefined) return read()
  let cache = readCaches.get(db)
  if (!cache) readCaches.set(db, (cache = new Map()))
  const cached = cache.get(key)
  if (cached?.version === version) return cached.value as V
  const value = read()
  cache.delete(key)
  if (cache.size >= CACHED_READS) cache.delete(cache.keys().next().value!)
  cache.set(key, { version, value })
  return value
}

/**
 * Changes with every row this connection writes (total_changes) and every commit of another
 * connection (data_version); undefined inside a transaction, whose writes may yet roll back.
 */
function dataVersion(db: Db): string | undefined {
  if (db.$client.inTransaction) return undefined
  const [ours, theirs] = prepared(db, 'data-version', () => [
    db.$client.prepare('SELECT total_changes()').pluck(),
    db.$client.prepare('PRAGMA data_version').pluck(),
  ])
  return `${ours.get()}:${theirs.get()}`
}

type StatusTable = SQLiteTable & {
  seq: SQLiteColumn
  status: SQLiteColumn
  updatedAt: SQLiteColumn
}

/** Writes a row's new status (and any other changes); the caller has checked the move. */
export function writeStatus(
  ctx: DomainContext,
  table: StatusTable,
  seq: number,
  status: string,
  changes: Record<string, unknown> = {},
): void {
  updateBySeq(ctx.db, table, seq, { ...changes, status, updatedAt: ctx.now })
}

type Values = Record<string, unknown>

/** The keys whose value is given: an undefined value leaves the column to its default. */
const givenKeys = (values: Values) => Object.keys(values).filter((k) => values[k] !== undefined)
/** What a statement depends on: the given columns, and which of them are null. */
const shapeOf = (values: Values) =>
  givenKeys(values)
    .map((key) => (values[key] === null ? `${key}=null` : key))
    .join(',')
/**
 * A placeholder per given column; a null is written as SQL NULL, as drizzle does, since a
 * placeholder would pass it through the column's encoder (a JSON column would store 'null').
 */
const placeholders = (values: Values) =>
  Object.fromEntries(
    givenKeys(values).map((key) => [key, values[key] === null ? sql`null` : sql.placeholder(key)]),
  )

/** One prepared INSERT per table and set of given columns: drizzle builds its SQL only once. */
function insertStatement(db: Db, table: SQLiteTable, values: Values, returning: boolean) {
  const key = `insert:${getTableName(table)}:${shapeOf(values)}:${returning}`
  return prepared(db, key, () => {
    const insert = db.insert(table).values(placeholders(values))
    return returning ? insert.returning().prepare() : insert.prepare()
  })
}

/** Inserts one row of `table` (a prepared statement per set of columns). */
export function insertRow<T extends SQLiteTable>(
  db: Db,
  table: T,
  values: T['$inferInsert'],
): void {
  insertStatement(db, table, values as Values, false).run(values as Values)
}

/** Inserts one row of `table` and returns it as stored (defaults and `seq` filled). */
export function insertReturning<T extends SQLiteTable>(
  db: Db,
  table: T,
  values: T['$inferInsert'],
): T['$inferSelect'] {
  const statement = insertStatement(db, table, values as Values, true)
  return statement.get(values as Values) as T['$inferSelect']
}

type SeqTable = SQLiteTable & { seq: SQLiteColumn }

/** The placeholder of the row's `seq`; column keys never start with `$`. */
const WHERE_SEQ = '$seq'

function updateStatement(db: Db, table: SeqTable, changes: Values, returning: boolean) {
  const key = `update:${getTableName(table)}:${shapeOf(changes)}:${returning}`
  return prepared(db, key, () => {
    const update = db
      .update(table as SQLiteTable)
      .set(placeholders(changes))
      .where(eq(table.seq, sql.placeholder(WHERE_SEQ)))
    return returning ? update.returning().prepare() : update.prepare()
  })
}

/** Updates the row `seq` of `table` (a prepared statement per set of changed columns); 0 or 1. */
export function updateBySeq<T extends SeqTable>(
  db: Db,
  table: T,
  seq: number,
  changes: Partial<T['$inferSelect']>,
): number {
  const statement = updateStatement(db, table, changes as Values, false)
  return statement.run({ ...changes, [WHERE_SEQ]: seq }).changes
}

/** Updates the row `seq` of `table` and returns it as stored. */
export function updateReturning<T extends SeqTable>(
  db: Db,
  table: T,
  seq: number,
  changes: Partial<T['$inferSelect']>,
): T['$inferSelect'] {
  const statement = updateStatement(db, table, changes as Values, true)
  return statement.get({ ...changes, [WHERE_SEQ]: seq }) as T['$inferSelect']
}

/** The tenant's row of `table` whose `column` equals `value` (a reference lookup), prepared once. */
export function findOwned<T extends ListableTable>(
  ctx: DomainContext,
  table: T,
  column: SQLiteColumn,
  value: string,
): T['$inferSelect'] | undefined {
  const query = prepared(ctx.db, `find:${getTableName(table)}:${column.name}`, () =>
    ctx.db
      .select()
      .from(table as SQLiteTable)
      .where(
        and(eq(table.tenantId, sql.placeholder('tenant')), eq(column, sql.placeholder('value'))),
      )
      .prepare(),
  )
  return query.get({ tenant: ctx.tenant.id, value }) as T['$inferSelect'] | undefined
}
