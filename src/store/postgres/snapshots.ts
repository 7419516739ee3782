/**
 * A tenant's rows whole on PostgreSQL (store/driver.ts): the sweep of a retired tenant's rows,
 * a snapshot's read (every row, as JSON) and its restore. Nothing is staged: a restore writes
 * from the stored JSON.
 */
import { getTableColumns, getTableName, is, Table } from 'drizzle-orm'
import type { Db } from '../driver.js'
import type { PgStore } from './open.js'
import { own, text } from './transactions.js'

/** Deletes up to `limit` of the tenant's rows of `table`; how many. */
export async function deleteTenantRows(
  db: Db,
  table: string,
  tenantId: string,
  limit: number,
): Promise<number> {
  const result = await text(
    own(db),
    `DELETE FROM "${table}" WHERE ctid IN ` +
      `(SELECT ctid FROM "${table}" WHERE tenant_id = $1 LIMIT $2)`,
    [tenantId, limit],
  )
  return result.rowCount ?? 0
}

/** Every row of the tenant in each table, as its columns name them (JSON), and how many. */
export async function tenantRowsJson(
  db: Db,
  tables: readonly string[],
  tenantId: string,
): Promise<{ json: string; count: number }> {
  const rows: Record<string, unknown[]> = {}
  let count = 0
  for (const table of tables) {
    const result = await text(own(db), `SELECT * FROM "${table}" WHERE tenant_id = $1 ORDER BY 1`, [
      tenantId,
    ])
    rows[table] = result.rows
    count += result.rows.length
  }
  return { json: JSON.stringify(rows), count }
}

/**
 * The lineage's rows deleted, and the snapshot's written back under `tenantId`
 * (json_populate_recordset reads them as the table's own row type). A table whose key is an
 * identity then has its sequence moved past the rows written back with their `seq`. Snapshot `seq`
 * is written from its JSON, never staged.
 */
export async function restoreSnapshot(
  db: Db,
  tables: readonly string[],
  lineage: readonly string[],
  tenantId: string,
  _seq: number,
  rowsJson: () => Promise<string>,
): Promise<void> {
  const store = own(db)
  const rows = JSON.parse(await rowsJson()) as Record<string, unknown[]>
  for (const table of tables)
    await text(store, `DELETE FROM "${table}" WHERE tenant_id = ANY($1)`, [lineage])
  for (const table of tables) {
    if (!rows[table]?.length) continue
    const columns = columnsOf(store, table)
    const list = columns.map((c) => `"${c}"`).join(', ')
    const selected = columns.map((c) => (c === 'tenant_id' ? '$2' : `"${c}"`)).join(', ')
    await text(
      store,
      `INSERT INTO "${table}" (${list}) SELECT ${selected} ` +
        `FROM json_populate_recordset(NULL::"${table}", $1::json)`,
      [JSON.stringify(rows[table]), tenantId],
    )
    if (columns.includes('seq'))
      await text(
        store,
        `SELECT setval(pg_get_serial_sequence('"${table}"', 'seq'), ` +
          `(SELECT COALESCE(max(seq), 0) FROM "${table}") + 1, false)`,
      )
  }
}

/** The column names of a table, from the schema (the same on both stores). */
function columnsOf(store: PgStore, table: string): string[] {
  const found = Object.values(store.tables).find((t) => is(t, Table) && getTableName(t) === table)
  if (!found) throw new Error(`no table ${table}`)
  return Object.values(getTableColumns(found as Table)).map((c) => c.name)
}
