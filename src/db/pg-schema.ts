/**
 * The same tables for PostgreSQL (the team sandbox), derived from schema.ts, the one
 * place the schema is written: drizzle's table builders are per dialect, so each SQLite table is
 * rebuilt here with PostgreSQL's column types, its keys, unique columns and indexes, under the
 * same names. drizzle-kit generates drizzle-pg/ from them (pg-tables.ts, drizzle.pg.config.ts) as
 * it generates drizzle/ from schema.ts; test/db/pg-schema.test.ts compares the two.
 *
 * The types: text stays text (an enum is the TypeScript type only, as on SQLite); an integer is
 * a `bigint` read as a JavaScript number (times are milliseconds, past 2^31); a boolean is a
 * `boolean`; a JSON column is `json`, which keeps the text as written (a webhook body is signed
 * byte for byte); an autoincrementing key is an identity column that also takes a value given
 * (a snapshot restore writes rows back with their own `seq`).
 */
import { getTableColumns, is } from 'drizzle-orm'
import {
  type PgTable,
  bigint,
  boolean,
  index,
  json,
  pgTable,
  primaryKey,
  text,
  uniqueIndex,
  type PgColumnBuilderBase,
} from 'drizzle-orm/pg-core'
import { getTableConfig, SQLiteTable, type SQLiteColumn } from 'drizzle-orm/sqlite-core'
import * as sqlite from './schema.js'

function column(source: SQLiteColumn): PgColumnBuilderBase {
  const autoIncrement = (source as SQLiteColumn & { autoIncrement?: boolean }).autoIncrement
  let built
  switch (source.columnType) {
    case 'SQLiteText':
      built = text(source.name)
      break
    case 'SQLiteTextJson':
      built = json(source.name)
      break
    case 'SQLiteBoolean':
      built = boolean(source.name)
      break
    case 'SQLiteInteger':
      built = bigint(source.name, { mode: 'number' })
      if (autoIncrement) return built.primaryKey().generatedByDefaultAsIdentity()
      break
    default:
      throw new Error(`pg-schema: no PostgreSQL type for ${source.name} (${source.columnType})`)
  }
  if (source.primary) built = built.primaryKey()
  if (source.notNull && !source.primary) built = built.notNull()
  if (source.isUnique) built = built.unique(source.uniqueName)
  return built
}

/** The PostgreSQL table of a SQLite table of schema.ts: same name, columns, keys and indexes. */
export function pgTableOf(source: SQLiteTable) {
  const config = getTableConfig(source)
  const columns = Object.fromEntries(
    Object.entries(getTableColumns(source)).map(([key, c]) => [key, column(c)]),
  )
  return pgTable(config.name, columns, (table) => {
    const byName = (name: string) => Object.values(table).find((c) => c.name === name)!
    const on = (names: { name: string }[]) => names.map((c) => byName(c.name)) as [never]
    return [
      ...config.primaryKeys.map((key) => primaryKey({ columns: on(key.columns) })),
      ...config.indexes.map(({ config: i }) => {
        const built = (i.unique ? uniqueIndex : index)(i.name).on(
          ...on(i.columns as { name: string }[]),
        )
        // a partial index's condition is plain SQL naming columns, the same in both dialects
        return i.where ? built.where(i.where) : built
      }),
    ]
  })
}

type PgTables = { bySqlName: Record<string, PgTable>; bySchemaName: Record<string, PgTable> }
let built: PgTables | undefined

/**
 * The tables, built on first use: a sandbox on SQLite never builds them (they were about a
 * twentieth of a cold start). By SQL name (`card_users`), and by schema.ts's export names
 * (`cardUsers`), which the store reads them by.
 */
function buildOnce(): PgTables {
  if (built) return built
  const bySqlName: Record<string, PgTable> = {}
  const bySchemaName: Record<string, PgTable> = {}
  for (const [name, value] of Object.entries(sqlite)) {
    if (!is(value, SQLiteTable)) continue
    const table = pgTableOf(value)
    bySqlName[getTableConfig(value).name] = table
    bySchemaName[name] = table
  }
  return (built = { bySqlName, bySchemaName })
}

/** Every table of schema.ts, by its SQL name. */
export const pgTables = () => buildOnce().bySqlName

/** Every table of schema.ts, under its name there (`cardUsers`). */
export const pgTablesBySchemaName = () => buildOnce().bySchemaName
