/**
 * Due work in sets (engine/scheduler.ts): the statements that claim a slice of due jobs and run
 * a run of jobs of one kind together, a statement for the whole run where one job would have
 * taken one each (read the resources, lock them, update them, write their events, cancel their
 * other moves). Written once for every store with drizzle's builder and the driver's batched
 * inserts and updates: on PostgreSQL each is one round trip for the run, where job by job made
 * a dozen per job.
 */
import { FILL_DETAILS } from '../db/values.js'
import { and, asc, eq, getTableName, inArray, lte, ne, sql } from 'drizzle-orm'
import type { SQLiteColumn, SQLiteTable } from 'drizzle-orm/sqlite-core'
import type { Db } from './driver.js'
import { webhookEvents, type Job } from '../db/schema.js'
import type { SeqTable, TenantTable } from './rows.js'
import { columnIn, query, statement, tableIn } from './statements.js'

/**
 * Claims one slice of the tenant's jobs due at or before `until` (the first dueSliceJobs of the
 * driver) and deletes them, in one statement, answering them in the order they run (due
 * instant, then seq). The rows are locked on PostgreSQL as the claim reads them: a run of the
 * same tenant at once waits for them and then finds them gone; `unclaimed` (the tick) leaves
 * those another transaction holds to it.
 */
export async function claimDueJobs(
  db: Db,
  tenantId: string,
  until: number,
  unclaimed: boolean,
): Promise<Job[]> {
  const claim = unclaimed ? claimUnclaimed : claimWaiting
  const limit = db.driver.dueSliceJobs
  const claimed = (await claim(db).all({ tenant: tenantId, until, limit })) as Job[]
  return claimed.sort((a, b) => a.dueAt - b.dueAt || a.seq - b.seq)
}

/** The claim of claimDueJobs, built once per connection: waiting for held rows, or leaving them. */
const claimStatement = (unclaimed: boolean) =>
  statement((db, t, d) =>
    db
      .delete(t.jobs)
      .where(
        inArray(
          t.jobs.seq,
          d.forUpdate(
            db
              .select({ seq: t.jobs.seq })
              .from(t.jobs)
              .where(
                and(
                  eq(t.jobs.tenantId, sql.placeholder('tenant')),
                  lte(t.jobs.dueAt, sql.placeholder('until')),
                ),
              )
              .orderBy(asc(t.jobs.dueAt), asc(t.jobs.seq))
              .limit(sql.placeholder('limit')),
            unclaimed ? { skipLocked: true } : undefined,
          ),
        ),
      )
      .returning()
      .prepare(),
  )
const claimWaiting = claimStatement(false)
const claimUnclaimed = claimStatement(true)

/**
 * The tenant's rows of `table` whose `column` is one of `values`, locked until the transaction
 * ends (PostgreSQL), in seq order. They are looked up by `column`, which must have an index of
 * its own (each set's key has a unique one): the tenant is only checked, so that a set reads
 * its rows, not every row the tenant has (SQLite's planner would otherwise walk the tenant's
 * index, in seq order, to spare itself the sort of a set's rows).
 */
export async function rowsForMove<T extends TenantTable & SeqTable>(
  db: Db,
  table: T,
  column: SQLiteColumn,
  tenantId: string,
  values: string[],
): Promise<T['$inferSelect'][]> {
  const read = readByKey(table, column)(db)
  return (await read.all({
    tenant: tenantId,
    values: JSON.stringify(values),
  })) as T['$inferSelect'][]
}

type ReadByKey = ReturnType<typeof statement<{ all(values: Record<string, unknown>): unknown }>>

/** rowsForMove's statements by table and column, each built once per connection. */
const readsByKey = new Map<string, ReadByKey>()

function readByKey(table: TenantTable & SeqTable, column: SQLiteColumn): ReadByKey {
  const key = `${getTableName(table)}.${column.name}`
  let read = readsByKey.get(key)
  if (read) return read
  read = statement((db, t, d) =>
    d
      .forUpdate(
        db
          .select()
          .from(tableIn(t, table as SQLiteTable))
          .where(
            and(
              eq(d.filterOnly(columnIn(t, table, table.tenantId)), sql.placeholder('tenant')),
              d.inJsonArray(columnIn(t, table, column), sql.placeholder('values')),
            ),
          )
          .orderBy(asc(columnIn(t, table, table.seq))),
      )
      .prepare(),
  )
  readsByKey.set(key, read)
  return read
}

/** What one row of a set update writes: its seq and its changes (the same columns for every row). */
export type RowChanges<T extends SeqTable> = { seq: number; changes: Partial<T['$inferSelect']> }

/**
 * Updates several rows of `table` in one statement, each with its own values (every row changes
 * the same columns: the first row's).
 */
export async function updateRowsBySeq<T extends SeqTable>(
  db: Db,
  table: T,
  rows: RowChanges<T>[],
): Promise<void> {
  if (rows.length === 0) return
  await db.driver.updateManyBySeq(
    db,
    table,
    rows as { seq: number; changes: Record<string, unknown> }[],
  )
}

/**
 * Deletes the pending moves of the rows `seqs` of a resource, in one statement (their details
 * still arrive: `fill_details` stays), as each move does for its own (store/jobs.ts cancelMoves).
 */
export async function cancelMovesOf(
  db: Db,
  tenantId: string,
  resource: string,
  seqs: number[],
): Promise<void> {
  if (seqs.length === 0) return
  await query(db, 'run', (db, t) =>
    db
      .delete(t.jobs)
      .where(
        and(
          eq(t.jobs.tenantId, tenantId),
          eq(t.jobs.resource, resource),
          inArray(t.jobs.resourceSeq, seqs),
          ne(t.jobs.action, FILL_DETAILS),
        ),
      ),
  )
}

/** Inserts outbox rows in one statement, in the order given (their seqs follow it). */
export async function insertEvents(
  db: Db,
  rows: (typeof webhookEvents.$inferInsert)[],
): Promise<void> {
  if (rows.length === 0) return
  await db.driver.insertMany(db, webhookEvents, rows)
}
