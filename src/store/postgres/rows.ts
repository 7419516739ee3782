/**
 * Rows written on PostgreSQL (store/driver.ts insert, insertWithJob, update, insertMany,
 * updateManyBySeq): one statement each, built by drizzle's builder on the driver's tables; a
 * batch is one statement over a JSON list of its rows, read as a table (json_to_recordset).
 */
import { eq, getTableColumns, sql, type SQL } from 'drizzle-orm'
import type { NodePgDatabase } from 'drizzle-orm/node-postgres'
import type { PgTable } from 'drizzle-orm/pg-core'
import type { SQLiteColumn, SQLiteTable } from 'drizzle-orm/sqlite-core'
import type { Builder, Db, NewJob } from '../driver.js'
import { columnIn, rowsAsJson, tableIn } from '../tables.js'
import { own, run } from './transactions.js'

/** drizzle's PostgreSQL builder, where a statement needs what SQLite's cannot say (a CTE that writes). */
type PgBuilder = NodePgDatabase<Record<string, never>>

/** A table of the driver's own (db/pg-schema.ts), typed as PostgreSQL's builder takes it. */
const asPg = (table: SQLiteTable) => table as unknown as PgTable

/** Inserts one row; with `returning`, the row as stored. */
export function insertRow(
  db: Db,
  table: SQLiteTable,
  values: Record<string, unknown>,
  returning: boolean,
): Promise<unknown> {
  return run(db, returning ? 'get' : 'run', (b) => {
    const insert = b.insert(tableIn(own(db).tables, table)).values(values)
    return returning ? insert.returning() : insert
  })
}

/** The row and its job in one statement: the job's insert a data-modifying CTE of the row's. */
export function insertWithJob(
  db: Db,
  table: SQLiteTable,
  values: Record<string, unknown>,
  job: NewJob,
): Promise<unknown> {
  return run(db, 'get', (b) => {
    const t = own(db).tables
    const pg = b as unknown as PgBuilder
    const inserted = pg.$with('inserted').as(
      pg
        .insert(asPg(tableIn(t, table)))
        .values(values)
        .returning(),
    )
    const moves = pg.$with('job').as(
      pg.insert(asPg(t.jobs)).values({
        ...job,
        resourceSeq: sql`(SELECT ${sql.identifier('seq')} FROM ${inserted})`,
      }),
    )
    return pg.with(inserted, moves).select().from(inserted)
  })
}

/** Updates the rows whose `by` equals `value`: how many; with `returning`, the first as stored. */
export async function updateRows(
  db: Db,
  table: SQLiteTable,
  by: SQLiteColumn,
  value: unknown,
  changes: Record<string, unknown>,
  returning: boolean,
): Promise<{ changes: number; row?: unknown }> {
  const t = own(db).tables
  const update = (b: Builder) =>
    b
      .update(tableIn(t, table))
      .set(changes)
      .where(eq(columnIn(t, table, by), value))
  if (!returning) return await run<{ changes: number }>(db, 'run', update)
  const rows = await run<unknown[]>(db, 'all', (b) => update(b).returning())
  return { changes: rows.length, row: rows[0] }
}

/** The PostgreSQL type of a schema.ts column type (as db/pg-schema.ts maps them). */
const PG_TYPES: Record<string, string> = {
  SQLiteText: 'text',
  SQLiteTextJson: 'json',
  SQLiteBoolean: 'boolean',
  SQLiteInteger: 'bigint',
}

/** A JSON list of objects as a table `j`, its columns typed as `columns`, in the list's order. */
function jsonRecords(json: string, columns: SQLiteColumn[]): SQL {
  const types = columns.map((column) => sql.raw(`"${column.name}" ${PG_TYPES[column.columnType]}`))
  return sql`ROWS FROM (json_to_recordset(${json}::json) AS (${sql.join(types, sql`, `)})) WITH ORDINALITY AS j(${sql.raw(columns.map((c) => `"${c.name}"`).join(', '))}, ord)`
}

const field = (name: string) => sql.raw(`j."${name}"`)

export async function insertMany(db: Db, table: SQLiteTable, rows: Record<string, unknown>[]) {
  const { json, columns } = rowsAsJson(table, rows)
  const names = sql.raw(columns.map((column) => `"${column.name}"`).join(', '))
  const fields = sql.join(
    columns.map((column) => field(column.name)),
    sql`, `,
  )
  await run(db, 'run', (b) =>
    (b as unknown as { execute(query: SQL): unknown }).execute(
      sql`INSERT INTO ${tableIn(own(db).tables, table)} (${names}) SELECT ${fields} FROM ${jsonRecords(json, columns)} ORDER BY j.ord`,
    ),
  )
}

export async function updateManyBySeq(
  db: Db,
  table: SQLiteTable,
  rows: { seq: number; changes: Record<string, unknown> }[],
) {
  const keys = Object.keys(rows[0].changes)
  const { json, columns } = rowsAsJson(
    table,
    rows.map((row) => ({ ...row.changes, seq: row.seq })),
    ['seq', ...keys],
  )
  const t = own(db).tables
  const all = getTableColumns(table) as Record<string, SQLiteColumn>
  const set: Record<string, SQL> = {}
  for (const key of keys) set[key] = field(all[key].name)
  await run(db, 'run', (b) =>
    b
      .update(tableIn(t, table))
      .set(set)
      .from(jsonRecords(json, columns))
      .where(eq(columnIn(t, table, all.seq), field('seq'))),
  )
}
