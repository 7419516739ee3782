/**
 * The generic row helpers the per-resource store modules are made of: insert, update by `seq`,
 * find a tenant's row by a column, and a page of a tenant's rows (SPEC §2.2). Each builds its
 * statement once per connection and set of columns (its driver).
 */
import { and, count, desc, eq, getTableColumns, getTableName, sql, type SQL } from 'drizzle-orm'
import type { SQLiteColumn, SQLiteTable } from 'drizzle-orm/sqlite-core'
import { readThrough } from './read-cache.js'
import { columnIn, statement, tableIn, type Db, type Tables } from './statements.js'

/** The key of a page row's total (column keys never start with `$`). */
const TOTAL = '$total'

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
 * Columns a row is read with beside its table's own (a card's balance), each worked out per row
 * by SQL that reads the driver's tables `t` and names the row's columns through `row`.
 */
export type ExtraColumns<E> = (
  t: Tables,
  row: (column: SQLiteColumn) => SQLiteColumn,
) => { [K in keyof E]: SQL<E[K]> | SQL.Aliased<E[K]> }

/**
 * The pages of a tenant's rows of `table`, newest first (SPEC §2.2), with the total for the
 * meta; with `by`, only the rows whose `by` column equals the value asked for; with `extra`,
 * each row with those columns too, in the same statement. Repeated reads come from the read
 * cache (read-cache.ts).
 */
export function pagesOf<T extends TenantTable, E extends object = object>(
  table: T,
  by?: SQLiteColumn,
  extra?: ExtraColumns<E>,
) {
  const where = (t: Tables) =>
    and(
      eq(columnIn(t, table, table.tenantId), sql.placeholder('tenant')),
      by ? eq(columnIn(t, table, by), sql.placeholder('value')) : undefined,
    )
  // the page with the total beside each row, in one statement (one round trip): the count is
  // an uncorrelated subquery, worked out once, through the same index as on its own
  const pageQuery = statement((db, t) => {
    const from = tableIn(t, table as SQLiteTable)
    const total = db.select({ n: count() }).from(from).where(where(t))
    return db
      .select({
        ...getTableColumns(from),
        ...extra?.(t, (column) => columnIn(t, table, column)),
        [TOTAL]: sql<number>`(${total})`.mapWith(Number),
      })
      .from(from)
      .where(where(t))
      .orderBy(desc(columnIn(t, table, table.seq)))
      .limit(sql.placeholder('limit'))
      .offset(sql.placeholder('offset'))
      .prepare()
  })
  // a page past the end has no row to carry the total
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
  ): Promise<PageOf<T['$inferSelect'] & E>> => {
    const params = { tenant: tenantId, value, ...pageWindow(page) }
    // the one free-form part (value) last, so that no two reads share a key
    return await readThrough(
      db,
      `${key}:${tenantId}:${page.page}:${page.perPage}:${value}`,
      async () => {
        const withTotal = (await pageQuery(db).all(params)) as Record<string, unknown>[]
        if (withTotal.length === 0) {
          const total = page.page === 1 ? 0 : ((await countQuery(db).get(params))?.n ?? 0)
          return { rows: [], total, ...page }
        }
        const total = withTotal[0][TOTAL] as number
        const rows = withTotal.map(({ [TOTAL]: _, ...row }) => row) as (T['$inferSelect'] & E)[]
        return { rows, total, ...page }
      },
    )
  }
}

export type SeqTable = SQLiteTable & { seq: SQLiteColumn }

/** A column a row is found by (its reference, its slug), as the domain names it. */
export type KeyColumn = SQLiteColumn

/** Inserts one row of `table`. */
export async function insertRow<T extends SQLiteTable>(
  db: Db,
  table: T,
  values: T['$inferInsert'],
): Promise<void> {
  await db.driver.insert(db, table, values as Record<string, unknown>, false)
}

/** Inserts one row of `table` and returns it as stored (its `seq` included). */
export async function insertReturning<T extends SQLiteTable>(
  db: Db,
  table: T,
  values: T['$inferInsert'],
): Promise<T['$inferSelect']> {
  return (await db.driver.insert(
    db,
    table,
    values as Record<string, unknown>,
    true,
  )) as T['$inferSelect']
}

/** Updates the row `seq` of `table`; 0 or 1. */
export async function updateBySeq<T extends SeqTable>(
  db: Db,
  table: T,
  seq: number,
  changes: Partial<T['$inferSelect']>,
): Promise<number> {
  return (await db.driver.update(db, table, table.seq, seq, changes, false)).changes
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
  return (await db.driver.update(db, table, by, value, changes, true)).row as T['$inferSelect']
}

/**
 * The tenant's row of `table` whose `column` equals a value (a reference lookup); with `extra`,
 * with those columns too, in the same statement.
 */
export function ownedRowBy<T extends TenantTable, E extends object = object>(
  table: T,
  column: SQLiteColumn,
  extra?: ExtraColumns<E>,
) {
  const query = statement((db, t) =>
    db
      .select({
        ...getTableColumns(tableIn(t, table as SQLiteTable)),
        ...extra?.(t, (c) => columnIn(t, table, c)),
      })
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
  ): Promise<(T['$inferSelect'] & E) | undefined> => {
    return (await query(db).get({ tenant: tenantId, value })) as (T['$inferSelect'] & E) | undefined
  }
}
