/**
 * The store's statements that are SQL text rather than drizzle builders, as PostgreSQL spells
 * them: a tenant's rows as JSON and written back (snapshots), and the reset sweep's batches.
 * SQLite's are beside their callers (snapshots.ts, retired-tenants.ts), which branch here.
 */
import { getTableColumns, getTableName, is, Table } from 'drizzle-orm'
import type { PgStore } from './postgres.js'

async function query(pg: PgStore, text: string, values: unknown[] = []) {
  await pg.ready
  return await pg.queryable.query(text, values)
}

/** Every row of the tenant in each table, as its columns name them, and how many. */
export async function pgTenantRowsJson(
  pg: PgStore,
  tables: readonly string[],
  tenantId: string,
): Promise<{ json: string; count: number }> {
  const rows: Record<string, unknown[]> = {}
  let count = 0
  for (const table of tables) {
    const result = await query(pg, `SELECT * FROM "${table}" WHERE tenant_id = $1 ORDER BY 1`, [
      tenantId,
    ])
    rows[table] = result.rows
    count += result.rows.length
  }
  return { json: JSON.stringify(rows), count }
}

/**
 * Deletes the rows of `lineage` from each table and writes the snapshot's rows back under
 * `tenantId` (json_populate_recordset reads them as the table's own row type). A table whose
 * key is an identity then has its sequence moved past the rows written back with their `seq`.
 */
export async function pgRestoreTenantRows(
  pg: PgStore,
  tables: readonly string[],
  lineage: readonly string[],
  tenantId: string,
  rowsJson: string,
): Promise<void> {
  const rows = JSON.parse(rowsJson) as Record<string, unknown[]>
  for (const table of tables)
    await query(pg, `DELETE FROM "${table}" WHERE tenant_id = ANY($1)`, [lineage])
  for (const table of tables) {
    if (!rows[table]?.length) continue
    const columns = columnsOf(pg, table)
    const list = columns.map((c) => `"${c}"`).join(', ')
    const selected = columns.map((c) => (c === 'tenant_id' ? '$2' : `"${c}"`)).join(', ')
    await query(
      pg,
      `INSERT INTO "${table}" (${list}) SELECT ${selected} ` +
        `FROM json_populate_recordset(NULL::"${table}", $1::json)`,
      [JSON.stringify(rows[table]), tenantId],
    )
    if (columns.includes('seq'))
      await query(
        pg,
        `SELECT setval(pg_get_serial_sequence('"${table}"', 'seq'), ` +
          `(SELECT COALESCE(max(seq), 0) FROM "${table}") + 1, false)`,
      )
  }
}

/** Deletes up to `limit` rows of `tenantId` from `table`; how many it deleted. */
export async function pgDeleteBatch(
  pg: PgStore,
  table: string,
  tenantId: string,
  limit: number,
): Promise<number> {
  const result = await query(
    pg,
    `DELETE FROM "${table}" WHERE ctid IN ` +
      `(SELECT ctid FROM "${table}" WHERE tenant_id = $1 LIMIT $2)`,
    [tenantId, limit],
  )
  return result.rowCount ?? 0
}

/** The column names of a table, from the schema (the same on both stores). */
function columnsOf(pg: PgStore, table: string): string[] {
  const found = Object.values(pg.tables).find((t) => is(t, Table) && getTableName(t) === table)
  if (!found) throw new Error(`no table ${table}`)
  return Object.values(getTableColumns(found as Table)).map((c) => c.name)
}
