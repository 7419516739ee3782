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
