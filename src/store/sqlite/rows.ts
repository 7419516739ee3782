/**
 * Inserts and updates on SQLite: one prepared statement per table and set of given columns,
 * built by drizzle once, so that drizzle builds no SQL and SQLite prepares none on a request.
 */
import { eq, getTableColumns, getTableName, sql, type SQL } from 'drizzle-orm'
import type { SQLiteColumn, SQLiteTable } from 'drizzle-orm/sqlite-core'
import { compiled } from './compiled.js'
import { rowsAsJson } from '../tables.js'
import { perConnection, type SqliteDb } from './transactions.js'

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
function shapedStatement<T>(db: SqliteDb, what: object, shape: number, build: () => T) {
  const byWhat = shapedStatementsOf(db)
  let byShape = byWhat.get(what)
  if (!byShape) byWhat.set(what, (byShape = new Map()))
  let statement = byShape.get(shape) as T | undefined
  if (statement === undefined) byShape.set(shape, (statement = compiled(build() as object) as T))
  return statement
}

/** One prepared INSERT per table and set of given columns: drizzle builds its SQL only once. */
function insertStatement(db: SqliteDb, table: SQLiteTable, values: Values, returning: boolean) {
  return shapedStatement(db, table, shapeOf(table, values, returning), () => {
    const insert = db.insert(table).values(placeholders(values))
    return (returning ? insert.returning().prepare() : insert.prepare()) as Prepared &
      PreparedReturning
  })
}

/**
 * Inserts one row of `table`; with `returning`, the row as stored: the values given, null where
 * none was given, and the integer primary key (`seq`) SQLite assigned. Built here rather than
 * read back with RETURNING (which makes SQLite keep the row in a temporary table, and drizzle map
 * it again): the tables have no other defaults. A table that had some would be read back.
 */
export function insertRow(
  db: SqliteDb,
  table: SQLiteTable,
  values: Values,
  returning: boolean,
): unknown {
  if (!returning) return void insertStatement(db, table, values, false).run(values)
  const shape = rowShapeOf(table)
  if (!shape.built) return insertStatement(db, table, values, true).get(values)
  const { lastInsertRowid } = insertStatement(db, table, values, false).run(values)
  const row: Values = { ...shape.nulls, ...values }
  for (const key in row) if (row[key] === undefined) row[key] = null
  if (shape.rowid !== undefined && row[shape.rowid] === null)
    row[shape.rowid] = Number(lastInsertRowid)
  return row
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
  // a default is known to SQLite or drizzle only; drizzle sets hasDefault for a default
  // function ($defaultFn) and an update function ($onUpdateFn) too
  const built = columns.every(([key, c]) => key === rowid || !c.hasDefault)
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

/** The placeholder of the updated row's key; column keys never start with `$`. */
const WHERE_KEY = '$key'

/** One prepared UPDATE per table, key column and set of changed columns. */
function updateStatement(
  db: SqliteDb,
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

/** Updates the rows of `table` whose `by` equals `value`; with `returning`, the row as stored. */
export function updateRows(
  db: SqliteDb,
  table: SQLiteTable,
  by: SQLiteColumn,
  value: unknown,
  changes: Values,
  returning: boolean,
): { changes: number; row?: unknown } {
  const statement = updateStatement(db, table, by, changes, returning)
  // the key first (ARCHITECTURE.md, "Objects on a request's path")
  const values = { [WHERE_KEY]: value, ...changes }
  if (!returning) return { changes: statement.run(values).changes }
  const row = statement.get(values)
  return { changes: row === undefined ? 0 : 1, row }
}

const field = (name: string) => sql`json_extract(j.value, ${'$.' + name})`

/** Rows of `table` inserted in one statement from a JSON list, in its order. */
export function insertMany(db: SqliteDb, table: SQLiteTable, rows: Values[]): void {
  const { json, columns } = rowsAsJson(table, rows)
  const names = sql.raw(columns.map((column) => `"${column.name}"`).join(', '))
  const fields = sql.join(
    columns.map((column) => field(column.name)),
    sql`, `,
  )
  db.run(
    sql`INSERT INTO ${table} (${names}) SELECT ${fields} FROM json_each(${json}) AS j ORDER BY j.key`,
  )
}

/** Rows of `table` updated by seq in one statement, from a JSON list of their values. */
export function updateManyBySeq(
  db: SqliteDb,
  table: SQLiteTable,
  rows: { seq: number; changes: Values }[],
): void {
  const keys = Object.keys(rows[0].changes)
  const all = getTableColumns(table)
  const { json } = rowsAsJson(
    table,
    rows.map((row) => ({ ...row.changes, seq: row.seq })),
    ['seq', ...keys],
  )
  const set: Record<string, SQL> = {}
  for (const key of keys) set[key] = field(all[key].name)
  db.update(table)
    .set(set)
    .from(sql`json_each(${json}) AS j`)
    .where(eq((all as Record<string, SQLiteColumn>).seq, field('seq')))
    .run()
}
