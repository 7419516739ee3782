/**
 * Snapshots' SQL (issue 19): the snapshots table, and a tenant's rows of every tenant table taken
 * as JSON and written back in place: the lineage's rows deleted through the tenant_id indexes,
 * the snapshot's inserted with one prepared statement a table and positional values, parsed once
 * and kept for the next restores (about 3 ms for 1,000 rows). Two other ways were measured and
 * dropped: an `INSERT … SELECT … FROM json_each()` in SQL alone took twice as long (json_extract
 * parses each row once per column), and writing only the rows that differ cost as much in
 * comparing as it saved in writing. Rows keep their `seq` (a job may name a row by it) and take
 * the tenant's current id; the rows of the whole lineage go first (its current id and those its
 * resets retired, whose rows the sweep may not have reached), so that the unique references,
 * slugs and event ids are theirs again.
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

/** `warm`: parse it for restoring now, so that its first restore is as quick as the next ones. */
export function saveSnapshot(db: Db, snapshot: Omit<Snapshot, 'seq'>, warm = true): void {
  const { seq } = atomically(db, () => {
    db.delete(snapshots)
      .where(and(eq(snapshots.token, snapshot.token), eq(snapshots.name, snapshot.name)))
      .run()
    return db.insert(snapshots).values(snapshot).returning({ seq: snapshots.seq }).get()
  })
  if (warm) preparedRows(db, seq)
}

/**
 * Replaces every row of the tenant lineage of `tenantId` (`ten_x`, `ten_x.1`, …) with the rows
 * of snapshot `seq`, under `tenantId`. Call inside the transaction that restores the rest.
 */
export function restoreTenantRows(db: Db, tenantId: string, seq: number): void {
  const lineage = lineageOf(db, tenantId)
  for (const { table, tenantSlots, batches } of preparedRows(db, seq)) {
    const clear = prepared(db, `snapshot-clear:${table}`, () =>
      db.$client.prepare(`DELETE FROM "${table}" WHERE tenant_id = ?`),
    )
    for (const id of lineage) clear.run(id)
    for (const values of batches) {
      const rows = values.length / columnsOf(db, table).length
      for (const slot of tenantSlots) if (slot < values.length) values[slot] = tenantId
      insertRows(db, table, rows).run(values)
    }
  }
}

/** Rows one INSERT writes at most: fewer calls into SQLite than one a row. */
const ROWS_PER_INSERT = 64

function insertRows(db: Db, table: string, rows: number) {
  return prepared(db, `snapshot-write:${table}:${rows}`, () => {
    const columns = columnsOf(db, table)
    const row = `(${columns.map(() => '?').join(', ')})`
    return db.$client.prepare(
      `INSERT INTO "${table}" (${columns.map((c) => `"${c}"`).join(', ')}) ` +
        `VALUES ${Array.from({ length: rows }, () => row).join(', ')}`,
    )
  })
}

/** Per table: its rows' values in batches of ROWS_PER_INSERT rows, and where tenant_id goes. */
type PreparedRows = { table: string; tenantSlots: number[]; batches: unknown[][] }[]

/** How many snapshots' rows are kept parsed, ready to write: a suite restores one again and again. */
const PARSED_SNAPSHOTS = 8

const parsedSnapshots = new WeakMap<Db, Map<number, PreparedRows>>()

/**
 * A snapshot's rows as the values of each table's INSERT, in column order (a column added since
 * it was taken, by a newer version's migration, is null): parsed once and kept for the next
 * restores, so that one allocates next to nothing (no garbage collection in the middle of it).
 * A snapshot is never changed in place (taking it again makes a new row), so its seq is its key.
 */
function preparedRows(db: Db, seq: number): PreparedRows {
  let cache = parsedSnapshots.get(db)
  if (!cache) parsedSnapshots.set(db, (cache = new Map()))
  const cached = cache.get(seq)
  if (cached) {
    cache.delete(seq)
    cache.set(seq, cached) // most recently used last
    return cached
  }
  const rows = JSON.parse(rowsText(db).get(seq) as string) as Record<
    string,
    Record<string, unknown>[]
  >
  const parsed = TENANT_TABLES.map((table) => {
    const columns = columnsOf(db, table)
    const values = (rows[table] ?? []).map((row) => columns.map((column) => row[column] ?? null))
    const batches: unknown[][] = []
    for (let at = 0; at < values.length; at += ROWS_PER_INSERT)
      batches.push(values.slice(at, at + ROWS_PER_INSERT).flat())
    const tenantColumn = columns.indexOf('tenant_id')
    const tenantSlots = Array.from(
      { length: ROWS_PER_INSERT },
      (_, row) => row * columns.length + tenantColumn,
    )
    return { table, tenantSlots, batches }
  })
  if (cache.size >= PARSED_SNAPSHOTS) cache.delete(cache.keys().next().value!)
  cache.set(seq, parsed)
  return parsed
}

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
    .select(head)
    .from(snapshots)
    .where(
      and(
        eq(snapshots.token, sql.placeholder('token')),
        eq(snapshots.name, sql.placeholder('name')),
      ),
    )
    .prepare(),
)

export function findSnapshot(db: Db, token: string, name: string): SnapshotHead | undefined {
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
