/**
 * Snapshots: the snapshots table, and a tenant's rows of every tenant table taken as JSON and
 * written back in place by the driver (a SQLite connection stages them in temporary tables
 * first). Rows keep their `seq` (a job may name a row by it) and take the tenant's current id;
 * the rows of the whole lineage go first (its current id and those its resets retired, whose
 * rows the sweep may not have reached), so that the unique references, slugs and event ids are
 * theirs again.
 */
import { and, asc, eq, not, or, sql } from 'drizzle-orm'
import type { Db } from './driver.js'
import { snapshots, type Snapshot } from '../db/schema.js'
import { insertReturning } from './rows.js'
import { atomically, statement, type Tables } from './statements.js'
import { TENANT_TABLES } from './tables.js'

/** A snapshot without its rows. */
export type SnapshotHead = Omit<Snapshot, 'rows'>

/** Names the API cannot give (`#…`): the store's own snapshots, such as a fixture's undo. */
export const INTERNAL_PREFIX = '#'

/** Every tenant row of the tenant as JSON (`{"<table>": [{column: value}, …], …}`), and how many. */
export function tenantRowsJson(db: Db, tenantId: string): Promise<{ json: string; count: number }> {
  return db.driver.tenantRowsJson(db, TENANT_TABLES, tenantId)
}

/** `warm`: stage it for restoring now (where the driver stages), so its first restore is as quick. */
export async function saveSnapshot(
  db: Db,
  snapshot: Omit<Snapshot, 'seq'>,
  warm = true,
): Promise<void> {
  const { seq, replaced } = await atomically(db, async (db) => {
    const replaced = await deleteByName(db).all({ token: snapshot.token, name: snapshot.name })
    const { seq } = await insertReturning(db, snapshots, snapshot)
    return { seq, replaced }
  })
  for (const old of replaced) await db.driver.unstageSnapshot(db, old.seq)
  if (warm) await db.driver.stageSnapshot(db, TENANT_TABLES, seq, () => rowsText(db, seq))
}

/**
 * Replaces every row of the tenant lineage of `tenantId` (`ten_x`, `ten_x.1`, …) with the rows
 * of snapshot `seq`, under `tenantId`. Call inside the transaction that restores the rest.
 */
export async function restoreTenantRows(db: Db, tenantId: string, seq: number): Promise<void> {
  const lineage = await lineageOf(db, tenantId)
  await db.driver.restoreTenantRows(db, TENANT_TABLES, lineage, tenantId, seq, () =>
    rowsText(db, seq),
  )
}

async function rowsText(db: Db, seq: number): Promise<string> {
  return (await rowsOf(db).get({ seq }))!.rows
}

const retiredOfLineage = statement((db, t, d) =>
  db
    .select({ id: t.retiredTenants.id })
    .from(t.retiredTenants)
    .where(
      or(
        eq(t.retiredTenants.id, sql.placeholder('first')),
        d.startsWith(t.retiredTenants.id, sql.placeholder('prefix')),
      ),
    )
    .prepare(),
)

const rowsOf = statement((db, t) =>
  db
    .select({ rows: t.snapshots.rows })
    .from(t.snapshots)
    .where(eq(t.snapshots.seq, sql.placeholder('seq')))
    .prepare(),
)

const deleteByName = statement((db, t) =>
  db
    .delete(t.snapshots)
    .where(
      and(
        eq(t.snapshots.token, sql.placeholder('token')),
        eq(t.snapshots.name, sql.placeholder('name')),
      ),
    )
    .returning({ seq: t.snapshots.seq })
    .prepare(),
)

/**
 * The ids of a tenant's lineage that may still hold rows: its current one and those its resets
 * retired that the sweep has not finished (`ten_x`, `ten_x.1`, …), each then cleared through the
 * tenant_id indexes.
 */
async function lineageOf(db: Db, tenantId: string): Promise<string[]> {
  const first = tenantId.split('.')[0]
  const retired = (await retiredOfLineage(db).all({ first, prefix: `${first}.` })).map(
    (row) => row.id,
  )
  return [tenantId, ...retired.filter((id) => id !== tenantId)]
}

const head = (t: Tables) => ({
  seq: t.snapshots.seq,
  token: t.snapshots.token,
  name: t.snapshots.name,
  takenAt: t.snapshots.takenAt,
  rowCount: t.snapshots.rowCount,
  tenant: t.snapshots.tenant,
})

const byName = statement((db, t) =>
  db
    .select(head(t))
    .from(t.snapshots)
    .where(
      and(
        eq(t.snapshots.token, sql.placeholder('token')),
        eq(t.snapshots.name, sql.placeholder('name')),
      ),
    )
    .prepare(),
)

export async function findSnapshot(
  db: Db,
  token: string,
  name: string,
): Promise<SnapshotHead | undefined> {
  return await byName(db).get({ token, name })
}

const ofToken = statement((db, t) =>
  db
    .select(head(t))
    .from(t.snapshots)
    .where(
      and(
        eq(t.snapshots.token, sql.placeholder('token')),
        not(sql`substr(${t.snapshots.name}, 1, 1) = ${INTERNAL_PREFIX}`),
      ),
    )
    .orderBy(asc(t.snapshots.seq))
    .prepare(),
)

/** The token's snapshots (not the store's own), oldest first, without their rows. */
export async function listSnapshots(db: Db, token: string): Promise<SnapshotHead[]> {
  return await ofToken(db).all({ token })
}

export async function deleteSnapshot(db: Db, token: string, name: string): Promise<boolean> {
  const deleted = await deleteByName(db).all({ token, name })
  for (const { seq } of deleted) await db.driver.unstageSnapshot(db, seq)
  return deleted.length > 0
}
