/**
 * The generic row helpers the per-resource store modules are made of: insert, update by `seq`,
 * find a tenant's row by a column, and a page of a tenant's rows (SPEC §2.2). Each builds its
 * statement once per database and set of columns (statements.ts).
 */
import { and, count, desc, eq, getTableColumns, getTableName, sql } from 'drizzle-orm'
import type { SQLiteColumn, SQLiteTable } from 'drizzle-orm/sqlite-core'
import type { Db } from '../db/open.js'
import { compiled } from './compiled.js'
import { readThrough } from './read-cache.js'
import { pgOf } from './postgres.js'
import {
  columnIn,
  perConnection,
  query,
  statement,
  locked,
  tableIn,
  unlocked,
  type Tables,
} from './statements.js'

export type Page = { page: number; perPage: number }
export type PageOf<T> = { rows: T[]; total: number; page: number; perPage: number }

export const DEFAULT_PER_PAGE = 20
export const MAX_PER_PAGE = 100

export function pageWindow({ page, perPage }: Page) {
  return { limit: perPage, offset: (page - 1) * perPage }
}

export type TenantTable = SQLiteTable & {
  seq: SQLiteColumn
  tenantId: SQLiteColumn
  $inferSelect: unknown
}

/**
 * The pages of a tenant's rows of `table`, newest first (SPEC §2.2), with the total for the
 * meta; with `by`, only the rows whose `by` column equals the value asked for. Repeated reads
 * come from the read cache (read-cache.ts).
 */
export function pagesOf<T extends TenantTable>(table: T, by?: SQLiteColumn) {
  const where = (t: Tables) =>
    and(
      eq(columnIn(t, table, table.tenantId), sql.placeholder('tenant')),
      by ? eq(columnIn(t, table, by), sql.placeholder('value')) : undefined,
    )
  const rowsQuery = statement((db, t) =>
    db
      .select()
      .from(tableIn(t, table as SQLiteTable))
      .where(where(t))
      .orderBy(desc(columnIn(t, table, table.seq)))
      .limit(sql.placeholder('limit'))
      .offset(sql.placeholder('offset'))
      .prepare(),
  )
  const countQuery = statement((db, t) =>
    db
      .select({ n: count() })
      .from(tableIn(t, table as SQLiteTable))
      .where(where(t))
      .prepare(),
  )
  const key = `list:${getTableName(table)}:${by?.name ?? ''}`
  return async (
    db: Db,
    tenantId: string,
    page: Page,
    value?: string,
  ): Promise<PageOf<T['$inferSelect']>> => {
    const params = { tenant: tenantId, value, ...pageWindow(page) }
    // the one free-form part (value) last, so that no two reads share a key
    return await readThrough(
      db,
      `${key}:${tenantId}:${page.page}:${page.perPage}:${value}`,
      async () => {
        while (locked(db)) await unlocked(db)
        const rows = (await rowsQuery(db).all(params)) as T['$inferSelect'][]
        const total = (await countQuery(db).get(params))?.n ?? 0
        return { rows, total, ...page }
      },
    )
  }
}

type Values = Record<string, unknown>

/** The keys whose value is given: an undefined value leaves the column to its default. */
const givenKeys = (values: Values) => Object.keys(values).filter((k) => values[k] !== undefined)
/**
 * A placeholder per given column; a null is written as SQL NULL, as drizzle does, since a
 * placeholder would pass it through the column's encoder (a JSON column would store 'null').
 */
const placeholders = (values: Values) =>
  Object.fromEntries(
    givenKeys(values).map((key) => [key, values[key] === null ? sql`null` : sql.placeholder(key)]),
  )

/**
 * What a statement depends on besides its table, as a number: for each column of the table,
 * whether its value is left out (0), null (1) or given (2), as a base-3 digit at the column's
 * place, and whether it returns the row. Computed on every insert and update, so a number (no
 * string to build and hash), over the keys the values have (a for-in V8 runs fast).
 */
function shapeOf(table: SQLiteTable, values: Values, returning: boolean): number {
  const { places } = rowShapeOf(table)
  let shape = 0
  for (const key in values) {
    const value = values[key]
    const place = places.get(key)
    if (value !== undefined && place !== undefined) shape += place * (value === null ? 1 : 2)
  }
  return shape * 2 + (returning ? 1 : 0)
}

type Prepared = { run(values: Values): { changes: number; lastInsertRowid: number | bigint } }
type PreparedReturning = { get(values: Values): unknown }

const shapedStatementsOf = perConnection(() => new WeakMap<object, Map<number, unknown>>())

/**
 * The statement for `what` (a table: its INSERT; a key column: an UPDATE by it) and the shape of
 * the values, built by drizzle and prepared once per database.
 */
function shapedStatement<T>(db: Db, what: object, shape: number, build: () => T) {
  const byWhat = shapedStatementsOf(db)
  let byShape = byWhat.get(what)
  if (!byShape) byWhat.set(what, (byShape = new Map()))
  let statement = byShape.get(shape) as T | undefined
  if (statement === undefined) byShape.set(shape, (statement = compiled(build() as object) as T))
  return statement
}

/** One prepared INSERT per table and set of given columns: drizzle builds its SQL only once. */
function insertStatement(db: Db, table: SQLiteTable, values: Values, returning: boolean) {
  return shapedStatement(db, table, shapeOf(table, values, returning), () => {
    const insert = db.insert(table).values(placeholders(values))
    return (returning ? insert.returning().prepare() : insert.prepare()) as Prepared &
      PreparedReturning
  })
}

/** Inserts one row of `table` (a prepared statement per set of columns). */
export async function insertRow<T extends SQLiteTable>(
  db: Db,
  table: T,
  values: T['$inferInsert'],
): Promise<void> {
  // PostgreSQL: drizzle's insert as it is (SQLite's prepared statements per shape are below)
  if (pgOf(db))
    return void (await query(db, 'run', (d, t) => d.insert(tableIn(t, table)).values(values)))
  while (locked(db)) await unlocked(db)
  insertStatement(db, table, values as Values, false).run(values as Values)
}

/**
 * Inserts one row of `table` and returns it as stored: the values given, null where none was
 * given, and the integer primary key (`seq`) SQLite assigned. Built here rather than read back
 * with RETURNING (which makes SQLite keep the row in a temporary table, and drizzle map it
 * again): the tables have no other defaults. A table that had some would be read back.
 */
export async function insertReturning<T extends SQLiteTable>(
  db: Db,
  table: T,
  values: T['$inferInsert'],
): Promise<T['$inferSelect']> {
  if (pgOf(db))
    return await query(db, 'get', (d, t) => d.insert(tableIn(t, table)).values(values).returning())
  while (locked(db)) await unlocked(db)
  const shape = rowShapeOf(table)
  if (!shape.built)
    return insertStatement(db, table, values as Values, true).get(
      values as Values,
    ) as T['$inferSelect']
  const { lastInsertRowid } = insertStatement(db, table, values as Values, false).run(
    values as Values,
  )
  const row: Values = { ...shape.nulls, ...(values as Values) }
  for (const key in row) if (row[key] === undefined) row[key] = null
  if (shape.rowid !== undefined && row[shape.rowid] === null)
    row[shape.rowid] = Number(lastInsertRowid)
  return row as T['$inferSelect']
}

/**
 * A table's columns: each one's place in a statement's shape (a power of 3), a row of nulls,
 * its integer primary key, and whether its rows can be built without reading them back.
 */
type RowShape = {
  places: Map<string, number>
  nulls: Values
  rowid: string | undefined
  built: boolean
}

const rowShapes = new WeakMap<SQLiteTable, RowShape>()

function rowShapeOf(table: SQLiteTable): RowShape {
  let shape = rowShapes.get(table)
  if (shape) return shape
  const columns = Object.entries(getTableColumns(table))
  const rowid = columns.find(([, c]) => c.primary && c.columnType === 'SQLiteInteger')?.[0]
  // a default, a default function or an on-update function is known to SQLite or drizzle only
  const built = columns.every(
    ([key, c]) => key === rowid || (!c.hasDefault && !c.defaultFn && !c.onUpdateFn),
  )
  // a statement's shape is a number with a base-3 digit a column (shapeOf): 33 fit in 2^53
  if (columns.length > 33) throw new Error(`${getTableName(table)}: too many columns for shapeOf`)
  shape = {
    places: new Map(columns.map(([key], i) => [key, 3 ** i])),
    nulls: Object.fromEntries(columns.map(([key]) => [key, null])),
    rowid,
    built,
  }
  rowShapes.set(table, shape)
  return shape
}

export type SeqTable = SQLiteTable & { seq: SQLiteColumn }

/** The placeholder of the updated row's key; column keys never start with `$`. */
const WHERE_KEY = '$key'

/** One prepared UPDATE per table, key column and set of changed columns. */
function updateStatement(
  db: Db,
  table: SQLiteTable,
  by: SQLiteColumn,
  changes: Values,
  returning: boolean,
) {
  return shapedStatement(db, by, shapeOf(table, changes, returning), () => {
    const update = db
      .update(table)
      .set(placeholders(changes))
      .where(eq(by, sql.placeholder(WHERE_KEY)))
    return (returning ? update.returning().prepare() : update.prepare()) as Prepared &
      PreparedReturning
  })
}

/** Updates the row `seq` of `table` (a prepared statement per set of changed columns); 0 or 1. */
export async function updateBySeq<T extends SeqTable>(
  db: Db,
  table: T,
  seq: number,
  changes: Partial<T['$inferSelect']>,
): Promise<number> {
  if (pgOf(db)) {
    const { changes: changed } = await query<{ changes: number }>(db, 'run', (d, t) =>
      d
        .update(tableIn(t, table))
        .set(changes)
        .where(eq(columnIn(t, table, table.seq), seq)),
    )
    return changed
  }
  while (locked(db)) await unlocked(db)
  const statement = updateStatement(db, table, table.seq, changes as Values, false)
  // the key first (ARCHITECTURE.md, "Objects on a request's path")
  return statement.run({ [WHERE_KEY]: seq, ...changes }).changes
}

/** Updates the row `seq` of `table` and returns it as stored. */
export function updateReturning<T extends SeqTable>(
  db: Db,
  table: T,
  seq: number,
  changes: Partial<T['$inferSelect']>,
): Promise<T['$inferSelect']> {
  return updateReturningBy(db, table, table.seq, seq, changes)
}

/** Updates the row of `table` whose `by` column (its key) equals `value`; returns it as stored. */
export async function updateReturningBy<T extends SQLiteTable>(
  db: Db,
  table: T,
  by: SQLiteColumn,
  value: unknown,
  changes: Partial<T['$inferSelect']>,
): Promise<T['$inferSelect']> {
  if (pgOf(db))
    return await query(db, 'get', (d, t) =>
      d
        .update(tableIn(t, table))
        .set(changes)
        .where(eq(columnIn(t, table, by), value))
        .returning(),
    )
  while (locked(db)) await unlocked(db)
  const statement = updateStatement(db, table, by, changes as Values, true)
  return statement.get({ [WHERE_KEY]: value, ...changes }) as T['$inferSelect']
}

/** The tenant's row of `table` whose `column` equals a value (a reference lookup). */
export function ownedRowBy<T extends TenantTable>(table: T, column: SQLiteColumn) {
  const query = statement((db, t) =>
    db
      .select()
      .from(tableIn(t, table as SQLiteTable))
      .where(
        and(
          eq(columnIn(t, table, table.tenantId), sql.placeholder('tenant')),
          eq(columnIn(t, table, column), sql.placeholder('value')),
        ),
      )
      .prepare(),
  )
  return async (
    db: Db,
    tenantId: string,
    value: string,
  ): Promise<T['$inferSelect'] | undefined> => {
    while (locked(db)) await unlocked(db)
    return (await query(db).get({ tenant: tenantId, value })) as T['$inferSelect'] | undefined
  }
}
