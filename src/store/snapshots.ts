/**
 * Snapshots' SQL (issue 19): the snapshots table, and a tenant's rows of every tenant table taken
 * as JSON and written back in place: the lineage's rows deleted through the tenant_id indexes,
 * the snapshot's copied back from temporary tables it was staged in, one `INSERT … SELECT` a
 * table (about 1.5 ms for 1,000 rows; inserting from values parsed and bound in JavaScript took
 * 2.5). Two other ways were measured and dropped: an `INSERT … SELECT … FROM json_each()` in SQL
 * alone took twice as long as that (json_extract parses each row once per column), and writing
 * only the rows that differ cost as much in comparing as it saved in writing. Rows keep their
 * `seq` (a job may name a row by it) and take the tenant's current id; the rows of the whole
 * lineage go first (its current id and those its resets retired, whose rows the sweep may not
 * have reached), so that the unique references, slugs and event ids are theirs again.
 */
import { and, asc, eq, not, or, sql } from 'drizzle-orm'
import type { Statement } from 'better-sqlite3'
import type { Db } from '../db/open.js'
import { snapshots, type Snapshot } from '../db/schema.js'
import { pgOf } from './postgres.js'
import { pgRestoreTenantRows, pgTenantRowsJson } from './raw-pg.js'
import { insertReturning } from './rows.js'
import { TENANT_TABLES } from './retired-tenants.js'
import {
  atomically,
  locked,
  onPostgres,
  perConnection,
  prepared,
  statement,
  unlocked,
  type Tables,
} from './statements.js'

/** A snapshot without its rows. */
export type SnapshotHead = Omit<Snapshot, 'rows'>

/** Names the API cannot give (`#…`): the store's own snapshots, such as a fixture's undo. */
export const INTERNAL_PREFIX = '#'

/** Every tenant row of the tenant as JSON (`{"<table>": [{column: value}, …], …}`), and how many. */
export async function tenantRowsJson(
  db: Db,
  tenantId: string,
): Promise<{ json: string; count: number }> {
  const pg = pgOf(db)
  if (pg) return await pgTenantRowsJson(pg, TENANT_TABLES, tenantId)
  while (locked(db)) await unlocked(db)
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

/** `warm`: stage it for restoring now, so that its first restore is as quick as the next ones. */
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
  if (pgOf(db)) return // nothing is staged on PostgreSQL
  for (const old of replaced) await unstage(db, old.seq)
  if (warm) await stagedCopies(db, seq)
}

/**
 * Replaces every row of the tenant lineage of `tenantId` (`ten_x`, `ten_x.1`, …) with the rows
 * of snapshot `seq`, under `tenantId`. Call inside the transaction that restores the rest.
 */
export async function restoreTenantRows(db: Db, tenantId: string, seq: number): Promise<void> {
  const lineage = await lineageOf(db, tenantId)
  const pg = pgOf(db)
  if (pg) {
    const rows = (await rowsOf(db).get({ seq }))!.rows
    return await pgRestoreTenantRows(pg, TENANT_TABLES, lineage, tenantId, rows)
  }
  const copies = await stagedCopies(db, seq)
  while (locked(db)) await unlocked(db)
  for (const table of TENANT_TABLES) {
    const clear = prepared(db, `snapshot-clear:${table}`, () =>
      db.$client.prepare(`DELETE FROM "${table}" WHERE tenant_id = ?`),
    )
    for (const id of lineage) clear.run(id)
  }
  for (const copy of copies) copy.insert.run(tenantId)
}

/** Rows one INSERT writes at most when a snapshot is staged: fewer calls into SQLite. */
const ROWS_PER_INSERT = 64

/** How many snapshots are kept staged, ready to write: a suite restores one again and again. */
const STAGED_SNAPSHOTS = 8

/** A staged table of a snapshot: its temporary copy, and the INSERT that writes it back. */
type StagedCopy = { name: string; insert: Statement }

const stagedSnapshotsOf = perConnection(() => new Map<number, StagedCopy[]>())

/**
 * A snapshot's rows staged in temporary tables (in memory, this connection's own), one per table
 * that has rows, so that a restore is one `INSERT … SELECT` a table inside SQLite: nothing to
 * parse or bind, next to nothing allocated (no garbage collection in the middle of it). Staged
 * when taken and kept for the next restores, the eight most recently used; staged again from
 * the stored JSON when needed (after a restart, or when evicted). A snapshot is never changed in
 * place (taking it again makes a new row), so its seq is its key. A copy made inside a
 * transaction that rolled back is gone: checked by name, and made again.
 */
async function stagedCopies(db: Db, seq: number): Promise<StagedCopy[]> {
  while (locked(db)) await unlocked(db)
  const cache = stagedSnapshotsOf(db)
  const cached = cache.get(seq)
  if (cached && (await allStaged(db, cached))) {
    cache.delete(seq)
    cache.set(seq, cached) // most recently used last
    return cached
  }
  if (cached) await unstage(db, seq)
  const copies = await stage(db, seq)
  if (cache.size >= STAGED_SNAPSHOTS) await unstage(db, cache.keys().next().value!)
  cache.set(seq, copies)
  return copies
}

async function allStaged(db: Db, copies: StagedCopy[]): Promise<boolean> {
  for (const copy of copies)
    if ((await tempTableExists(db).get(copy.name)) === undefined) return false
  return true
}

async function stage(db: Db, seq: number): Promise<StagedCopy[]> {
  while (locked(db)) await unlocked(db)
  const rows = JSON.parse((await rowsText(db).get(seq)) as string) as Record<
    string,
    Record<string, unknown>[]
  >
  const copies: StagedCopy[] = []
  for (const table of TENANT_TABLES) {
    const tableRows = rows[table] ?? []
    if (tableRows.length === 0) continue
    const name = `snapshot_${seq}_${table}`
    const columns = columnsOf(db, table)
    const list = columns.map((c) => `"${c}"`).join(', ')
    db.$client.exec(`DROP TABLE IF EXISTS temp."${name}"`)
    db.$client.exec(`CREATE TEMP TABLE "${name}" AS SELECT ${list} FROM main."${table}" WHERE 0`)
    // a column added since the snapshot was taken (a newer version's migration) is null
    const values = tableRows.map((row) => columns.map((column) => row[column] ?? null))
    const row = `(${columns.map(() => '?').join(', ')})`
    for (let at = 0; at < values.length; at += ROWS_PER_INSERT) {
      const batch = values.slice(at, at + ROWS_PER_INSERT)
      db.$client
        .prepare(`INSERT INTO temp."${name}" (${list}) VALUES ${batch.map(() => row).join(', ')}`)
        .run(batch.flat())
    }
    const selected = columns.map((c) => (c === 'tenant_id' ? '?' : `"${c}"`)).join(', ')
    const insert = db.$client.prepare(
      `INSERT INTO main."${table}" (${list}) SELECT ${selected} FROM temp."${name}"`,
    )
    copies.push({ name, insert })
  }
  return copies
}

/** Drops the staged copies of snapshot `seq`, if any (it was replaced, deleted or evicted). */
async function unstage(db: Db, seq: number): Promise<void> {
  while (locked(db)) await unlocked(db)
  const cache = stagedSnapshotsOf(db)
  const copies = cache.get(seq)
  if (!copies) return
  cache.delete(seq)
  for (const { name } of copies) db.$client.exec(`DROP TABLE IF EXISTS temp."${name}"`)
}

const tempTableExists = statement((db) =>
  db.$client.prepare(`SELECT 1 FROM temp.sqlite_master WHERE type = 'table' AND name = ?`),
)

const rowsText = statement((db) =>
  db.$client.prepare('SELECT rows FROM snapshots WHERE seq = ?').pluck(),
)

/** The table's column names, from SQLite itself (once per database). */
function columnsOf(db: Db, table: string): string[] {
  return prepared(
    db,
    `columns:${table}`,
    () =>
      db.$client.prepare(`SELECT name FROM pragma_table_info(?)`).pluck().all(table) as string[],
  )
}

const retiredOfLineage = statement((db, t) =>
  db
    .select({ id: t.retiredTenants.id })
    .from(t.retiredTenants)
    .where(
      or(
        eq(t.retiredTenants.id, sql.placeholder('first')),
        // GLOB on SQLite, where LIKE ignores case (ids are mixed case); LIKE on PostgreSQL
        onPostgres(t)
          ? sql`${t.retiredTenants.id} LIKE ${sql.placeholder('pattern')}`
          : sql`${t.retiredTenants.id} GLOB ${sql.placeholder('pattern')}`,
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
  while (locked(db)) await unlocked(db)
  const first = tenantId.split('.')[0]
  const pattern = pgOf(db) ? `${first}.%` : `${first}.*`
  const retired = (await retiredOfLineage(db).all({ first, pattern })).map((row) => row.id)
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
  while (locked(db)) await unlocked(db)
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
  while (locked(db)) await unlocked(db)
  return await ofToken(db).all({ token })
}

export async function deleteSnapshot(db: Db, token: string, name: string): Promise<boolean> {
  const deleted = await deleteByName(db).all({ token, name })
  if (!pgOf(db)) for (const { seq } of deleted) await unstage(db, seq)
  return deleted.length > 0
}
