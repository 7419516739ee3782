/**
 * Snapshots' SQL (issue 19): the snapshots table, and a tenant's rows of every tenant table
 * taken as JSON and written back in place, one prepared statement a table with positional values
 * (a restore of 1,000 rows costs about 5 ms; an `INSERT … SELECT … FROM json_each()` doing it in
 * SQL alone took twice that, json_extract parsing each row once per column). Rows keep their
 * `seq` (a job may name a row by it) and take the tenant's current id. Before the write, the rows
 * of the whole tenant lineage go (its current id and the ids its resets retired, whose rows the
 * sweep may not have reached): the unique references, slugs and event ids are theirs again.
 */
import { and, asc, eq, not, sql } from 'drizzle-orm'
import type { Db } from '../db/open.js'
import { snapshots, type Snapshot } from '../db/schema.js'
import { TENANT_TABLES } from './retired-tenants.js'
import { atomically, prepared, statement } from './statements.js'

/** A snapshot without its rows. */
export type SnapshotHead = Omit<Snapshot, 'rows'>

/** Names the API cannot give (`#…`): the store's own snapshots, such as a fixture's undo. */
export const INTERNAL_PREFIX = '#'

/** Every tenant row of the tenant as JSON (`{"<table>": [{column: value}, …], …}`), and how many. */
export function tenantRowsJson(db: Db, tenantId: string): { json: string; count: number } {
  const rows: Record<string, unknown[]> = {}
  let count = 0
  for (const table of TENANT_TABLES) {
    const read = prepared(db, `snapshot-read:${table}`, () =>
      db.$client.prepare(`SELECT * FROM "${table}" WHERE tenant_id = ? ORDER BY rowid`),
    )
    rows[table] = read.all(tenantId)
    count += rows[table].length
  }
  return { json: JSON.stringify(rows), count }
}

export function saveSnapshot(db: Db, snapshot: Omit<Snapshot, 'seq'>): void {
  atomically(db, () => {
    db.delete(snapshots)
      .where(and(eq(snapshots.token, snapshot.token), eq(snapshots.name, snapshot.name)))
      .run()
    db.insert(snapshots).values(snapshot).run()
  })
}

/**
 * Replaces every row of the tenant lineage of `tenantId` (`ten_x`, `ten_x.1`, …) with `rowsJson`
 * (tenantRowsJson's), under `tenantId`. Call inside the transaction that restores the rest.
 */
export function restoreTenantRows(db: Db, tenantId: string, rowsJson: string): void {
  const lineage = lineageOf(db, tenantId)
  const rows = JSON.parse(rowsJson) as Record<string, Record<string, unknown>[]>
  for (const table of TENANT_TABLES) {
    const clear = prepared(db, `snapshot-clear:${table}`, () =>
      db.$client.prepare(`DELETE FROM "${table}" WHERE tenant_id = ?`),
    )
    for (const id of lineage) clear.run(id)
    const columns = columnsOf(db, table)
    const insert = prepared(db, `snapshot-write:${table}`, () =>
      db.$client.prepare(
        `INSERT INTO "${table}" (${columns.map((c) => `"${c}"`).join(', ')}) ` +
          `VALUES (${columns.map(() => '?').join(', ')})`,
      ),
    )
    // a column added since the snapshot was taken (a newer version's migration) is null
    for (const row of rows[table] ?? [])
      insert.run(
        columns.map((column) => (column === 'tenant_id' ? tenantId : (row[column] ?? null))),
      )
  }
}

/** The table's column names, from SQLite itself (once per database). */
function columnsOf(db: Db, table: string): string[] {
  return prepared(
    db,
    `columns:${table}`,
    () =>
      db.$client.prepare(`SELECT name FROM pragma_table_info(?)`).pluck().all(table) as string[],
  )
}

const retiredOfLineage = statement((db) =>
  db.$client.prepare('SELECT id FROM retired_tenants WHERE id = ? OR id GLOB ?').pluck(),
)

/**
 * The ids of a tenant's lineage that may still hold rows: its current one and those its resets
 * retired that the sweep has not finished (`ten_x`, `ten_x.1`, …), each then cleared through the
 * tenant_id indexes.
 */
function lineageOf(db: Db, tenantId: string): string[] {
  const first = tenantId.split('.')[0]
  const retired = retiredOfLineage(db).all(first, `${first}.*`) as string[]
  return [tenantId, ...retired.filter((id) => id !== tenantId)]
}

const head = {
  seq: snapshots.seq,
  token: snapshots.token,
  name: snapshots.name,
  takenAt: snapshots.takenAt,
  rowCount: snapshots.rowCount,
  tenant: snapshots.tenant,
}

const byName = statement((db) =>
  db
    .select()
    .from(snapshots)
    .where(
      and(
        eq(snapshots.token, sql.placeholder('token')),
        eq(snapshots.name, sql.placeholder('name')),
      ),
    )
    .prepare(),
)

export function findSnapshot(db: Db, token: string, name: string): Snapshot | undefined {
  return byName(db).get({ token, name })
}

const ofToken = statement((db) =>
  db
    .select(head)
    .from(snapshots)
    .where(
      and(
        eq(snapshots.token, sql.placeholder('token')),
        not(sql`${snapshots.name} GLOB ${INTERNAL_PREFIX + '*'}`),
      ),
    )
    .orderBy(asc(snapshots.seq))
    .prepare(),
)

/** The token's snapshots (not the store's own), oldest first, without their rows. */
export function listSnapshots(db: Db, token: string): SnapshotHead[] {
  return ofToken(db).all({ token })
}

export function deleteSnapshot(db: Db, token: string, name: string): boolean {
  return (
    db
      .delete(snapshots)
      .where(and(eq(snapshots.token, token), eq(snapshots.name, name)))
      .run().changes > 0
  )
}
