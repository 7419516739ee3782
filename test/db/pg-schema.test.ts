/**
 * The PostgreSQL tables (src/db/pg-schema.ts) are derived from schema.ts, and drizzle-pg/ holds
 * their migrations (src/store/postgres/pool.ts applies them). Checked without a server: every SQLite
 * table has its PostgreSQL twin, column for column, key for key, index for index. Checked on a
 * real PostgreSQL when CARD_SANDBOX_TEST_PG names one (see test/pg.ts): the migrations build
 * those tables, and replicas starting at once migrate once.
 */
import { readFileSync } from 'node:fs'
import { getTableColumns, is } from 'drizzle-orm'
import { PgDialect, getTableConfig as pgConfig } from 'drizzle-orm/pg-core'
import { getTableConfig as sqliteConfig, SQLiteTable } from 'drizzle-orm/sqlite-core'
import { describe, expect, it } from 'vitest'
import { closePgDb, migratePg, openPgDb } from '../../src/store/postgres/pool.js'
import { pgTables } from '../../src/db/pg-schema.js'
import * as sqlite from '../../src/db/schema.js'
import { freshSchema, TEST_PG } from '../pg.js'

const sqliteTables = Object.values(sqlite).filter((value) => is(value, SQLiteTable))

/** What both dialects must agree on, in words that do not depend on the dialect. */
function outline(config: ReturnType<typeof sqliteConfig> | ReturnType<typeof pgConfig>) {
  return {
    name: config.name,
    columns: config.columns.map((c) => ({
      name: c.name,
      notNull: c.notNull,
      primary: c.primary,
      unique: c.isUnique ? c.uniqueName : null,
    })),
    primaryKeys: config.primaryKeys.map((key) => key.columns.map((c) => c.name)),
    indexes: config.indexes.map(({ config: i }) => ({
      name: i.name,
      unique: i.unique,
      columns: i.columns.map((c) => (c as { name: string }).name),
      // a partial index's condition, as written (plain SQL, the same text in either dialect)
      where: i.where ? new PgDialect().sqlToQuery(i.where).sql : null,
    })),
  }
}

const SQL_TYPES: Record<string, string> = {
  SQLiteText: 'text',
  SQLiteTextJson: 'json',
  SQLiteBoolean: 'boolean',
  SQLiteInteger: 'bigint',
}

describe('the PostgreSQL schema', () => {
  it('has every table of schema.ts, with the same columns, keys and indexes', () => {
    expect(Object.keys(pgTables()).sort()).toEqual(
      sqliteTables.map((table) => sqliteConfig(table).name).sort(),
    )
    for (const table of sqliteTables) {
      const twin = pgTables()[sqliteConfig(table).name]
      expect(outline(pgConfig(twin))).toEqual(outline(sqliteConfig(table)))
      const types = Object.values(getTableColumns(table)).map((c) => SQL_TYPES[c.columnType])
      expect(Object.values(getTableColumns(twin)).map((c) => c.getSQLType())).toEqual(types)
    }
  })
})

describe.skipIf(!TEST_PG)('the PostgreSQL migrations, on a real server', () => {
  it('build the tables of the schema', async () => {
    const schema = await freshSchema()
    try {
      const store = await openPgDb(schema.url)
      const { rows } = await store.pool.query<{ table_name: string; columns: string[] }>(
        `SELECT table_name, array_agg(column_name::text ORDER BY ordinal_position) AS columns
           FROM information_schema.columns WHERE table_schema = current_schema()
          GROUP BY table_name`,
      )
      await closePgDb(store)
      const built = Object.fromEntries(rows.map((r) => [r.table_name, r.columns]))
      for (const table of sqliteTables) {
        const columns = Object.values(getTableColumns(table)).map((c) => c.name)
        expect(built[sqliteConfig(table).name], sqliteConfig(table).name).toEqual(columns)
      }
      expect(built.__drizzle_migrations).toBeDefined()
    } finally {
      await schema.drop()
    }
  })

  it('run once when several replicas start at once', async () => {
    const schema = await freshSchema()
    try {
      const stores = await Promise.all([1, 2, 3].map(() => openPgDb(schema.url)))
      await Promise.all(stores.map((store) => migratePg(store.pool)))
      const applied = await stores[0].pool.query('SELECT hash FROM __drizzle_migrations')
      await Promise.all(stores.map(closePgDb))
      // each migration of drizzle-pg/ once, not once per replica
      const journal = JSON.parse(readFileSync('drizzle-pg/meta/_journal.json', 'utf8'))
      expect(applied.rowCount).toBe(journal.entries.length)
    } finally {
      await schema.drop()
    }
  })
})
