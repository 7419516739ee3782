/**
 * The tables a statement's builder is given by its driver: db/schema.ts's own (SQLite), or
 * another dialect's built from them under the same names. A builder that is handed a table
 * (rows.ts) finds the driver's one by name here.
 */
import { getTableColumns, getTableName, is, Table } from 'drizzle-orm'
import type { SQLiteColumn, SQLiteTable } from 'drizzle-orm/sqlite-core'
import * as schemaTables from '../db/schema.js'
import type { Tables } from './driver.js'

const tablesByName = new WeakMap<Tables, Map<string, SQLiteTable>>()

/** The table of the builder's tables `t` that has `table`'s name. */
export function tableIn<T extends SQLiteTable>(t: Tables, table: T): T {
  if (t === schemaTables) return table
  let byName = tablesByName.get(t)
  if (!byName) {
    byName = new Map()
    for (const value of Object.values(t))
      if (is(value, Table)) byName.set(getTableName(value), value as SQLiteTable)
    tablesByName.set(t, byName)
  }
  return byName.get(getTableName(table)) as T
}

/** The column of `tableIn(t, table)` that has `column`'s key in `table`. */
export function columnIn(t: Tables, table: SQLiteTable, column: SQLiteColumn): SQLiteColumn {
  if (t === schemaTables) return column
  const key = Object.entries(getTableColumns(table)).find(([, c]) => c === column)![0]
  return getTableColumns(tableIn(t, table))[key]
}

/**
 * Every table whose rows belong to a tenant (it has a `tenant_id` column), by name, from the
 * schema: what a reset retires and a snapshot keeps. In the schema's order.
 */
export const TENANT_TABLES: readonly string[] = (Object.values(schemaTables) as unknown[])
  .filter((value): value is Table => is(value, Table))
  .filter((table) => Object.values(getTableColumns(table)).some((c) => c.name === 'tenant_id'))
  .map((table) => getTableName(table))

/**
 * Rows as JSON text of objects keyed by column name (a batch handed to one statement as one
 * parameter, so that its text does not grow with the rows), and the columns written: `keys`,
 * or every column with a value in some row (`seq` left to the database).
 */
export function rowsAsJson(
  table: SQLiteTable,
  rows: Record<string, unknown>[],
  keys?: string[],
): { json: string; columns: SQLiteColumn[] } {
  const all = getTableColumns(table) as Record<string, SQLiteColumn>
  const written = keys ?? Object.keys(all).filter((key) => all[key].name !== 'seq')
  const json = JSON.stringify(
    rows.map((row) => Object.fromEntries(written.map((key) => [all[key].name, row[key] ?? null]))),
  )
  return { json, columns: written.map((key) => all[key]) }
}
