/**
 * Snapshots' SQL (issue 19): a tenant's rows of every tenant table read as they are, written
 * back in place, and the snapshots table. Rows keep their `seq` (a job may name a row by it) and
 * take the tenant's current id. Before the write, the rows of the whole tenant lineage go (its
 * current id and the ids its resets retired, whose rows the sweep may not have reached): the
 * unique references, slugs and event ids of the snapshot are theirs again.
 */
import { and, asc, eq, sql } from 'drizzle-orm'
import type { Db } from '../db/open.js'
import { snapshots, type Snapshot } from '../db/schema.js'
import { TENANT_TABLES } from './retired-tenants.js'
import { atomically, prepared, statement } from './statements.js'

/** A tenant's rows, by table name, as SQLite holds them (column names, raw values). */
export type TenantRows = Record<string, Record<string, unknown>[]>

export function readTenantRows(db: Db, tenantId: string): TenantRows {
  const rows: TenantRows = {}
  for (const table of TENANT_TABLES) {
    const read = prepared(db, `snapshot-read:${table}`, () =>
      db.$client.prepare(`SELECT * FROM "${table}" WHERE tenant_id = ? ORDER BY rowid`),
    )
    rows[table] = read.all(tenantId) as Record<string, unknown>[]
  }
  return rows
}

/**
 * Replaces every row of the tenant lineage of `tenantId` (`ten_x`, `ten_x.1`, …) with `rows`,
 * under `tenantId`. Call inside the transaction that restores the rest of the tenant.
 */
export function writeTenantRows(db: Db, tenantId: string, rows: TenantRows): number {
  const lineage = tenantId.split('.')[0]
  let written = 0
  for (const table of TENANT_TABLES) {
    const clear = prepared(db, `snapshot-clear:${table}`, () =>
      db.$client.prepare(`DELETE FROM "${table}" WHERE tenant_id = ? OR tenant_id GLOB ?`),
    )
    clear.run(lineage, `${lineage}.*`)
    for (const row of rows[table] ?? []) {
      const columns = Object.keys(row)
      const insert = prepared(db, `snapshot-write:${table}:${columns.join(',')}`, () =>
        db.$client.prepare(
          `INSERT INTO "${table}" (${columns.map((c) => `"${c}"`).join(', ')}) ` +
            `VALUES (${columns.map((c) => `@${c}`).join(', ')})`,
        ),
      )
      insert.run({ ...row, tenant_id: tenantId })
      written++
    }
  }
  return written
}

export function saveSnapshot(
  db: Db,
  snapshot: { token: string; name: string; takenAt: number; rowCount: number; state: unknown },
): void {
  atomically(db, () => {
    db.delete(snapshots)
      .where(and(eq(snapshots.token, snapshot.token), eq(snapshots.name, snapshot.name)))
      .run()
    db.insert(snapshots).values(snapshot).run()
  })
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
    .select({
      name: snapshots.name,
      takenAt: snapshots.takenAt,
      rowCount: snapshots.rowCount,
    })
    .from(snapshots)
    .where(eq(snapshots.token, sql.placeholder('token')))
    .orderBy(asc(snapshots.seq))
    .prepare(),
)

/** The token's snapshots, oldest first, without their state. */
export function listSnapshots(
  db: Db,
  token: string,
): Pick<Snapshot, 'name' | 'takenAt' | 'rowCount'>[] {
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
