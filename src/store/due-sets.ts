/**
 * Due work in sets (engine/scheduler.ts): the statements that claim a slice of due jobs and run
 * a run of jobs of one kind together, a statement for the whole run where one job would have
 * taken one each (read the resources, lock them, update them, write their events, cancel their
 * other moves). Written once for both stores with drizzle's builder: on PostgreSQL each is one
 * round trip for the run, where job by job made a dozen per job.
 */
import { and, asc, eq, getTableColumns, inArray, lte, ne, sql, type SQL } from 'drizzle-orm'
import type { SQLiteColumn, SQLiteTable } from 'drizzle-orm/sqlite-core'
import type { Db } from '../db/open.js'
import { webhookEvents, type Job } from '../db/schema.js'
import type { SeqTable, TenantTable } from './rows.js'
import {
  columnIn,
  forUpdate,
  onPostgres,
  query,
  sharedStore,
  tableIn,
  type Tables,
} from './statements.js'

/**
 * Claims the tenant's first `limit` jobs due at or before `until` and deletes them, in one
 * statement, answering them in the order they run (due instant, then seq). The rows are locked
 * on PostgreSQL as the claim reads them: a run of the same tenant at once waits for them and
 * then finds them gone; `unclaimed` (the tick) leaves those another transaction holds to it.
 */
export async function claimDueJobs(
  db: Db,
  tenantId: string,
  until: number,
  limit: number,
  unclaimed: boolean,
): Promise<Job[]> {
  const claimed = await query<Job[]>(db, 'all', (db, t) =>
    db
      .delete(t.jobs)
      .where(
        inArray(
          t.jobs.seq,
          forUpdate(
            t,
            db
              .select({ seq: t.jobs.seq })
              .from(t.jobs)
              .where(and(eq(t.jobs.tenantId, tenantId), lte(t.jobs.dueAt, until)))
              .orderBy(asc(t.jobs.dueAt), asc(t.jobs.seq))
              .limit(limit),
            unclaimed ? { skipLocked: true } : undefined,
          ),
        ),
      )
      .returning(),
  )
  return claimed.sort((a, b) => a.dueAt - b.dueAt || a.seq - b.seq)
}

/**
 * Locks, until the transaction ends, the pending jobs of the resource's rows `seqs`, as a move
 * does for its own (store/locks.ts lockForMove: jobs first, then the rows). PostgreSQL only:
 * SQLite has one writer at a time.
 */
export async function lockJobsOf(
  db: Db,
  tenantId: string,
  resource: string,
  seqs: number[],
): Promise<void> {
  if (!sharedStore(db)) return
  await query(db, 'all', (db, t) =>
    forUpdate(
      t,
      db
        .select({ seq: t.jobs.seq })
        .from(t.jobs)
        .where(
          and(
            eq(t.jobs.tenantId, tenantId),
            eq(t.jobs.resource, resource),
            inArray(t.jobs.resourceSeq, seqs),
          ),
        )
        .orderBy(asc(t.jobs.seq)),
    ),
  )
}

/**
 * The tenant's rows of `table` whose `column` is one of `values`, locked until the transaction
 * ends (PostgreSQL), in seq order.
 */
export async function rowsForMove<T extends TenantTable & SeqTable>(
  db: Db,
  table: T,
  column: SQLiteColumn,
  tenantId: string,
  values: string[],
): Promise<T['$inferSelect'][]> {
  return await query<T['$inferSelect'][]>(db, 'all', (db, t) =>
    forUpdate(
      t,
      db
        .select()
        .from(tableIn(t, table as SQLiteTable))
        .where(
          and(
            eq(columnIn(t, table, table.tenantId), tenantId),
            sql`${columnIn(t, table, column)} IN ${jsonList(t, values)}`,
          ),
        )
        .orderBy(asc(columnIn(t, table, table.seq))),
    ),
  )
}

/** What one row of a set update writes: its seq and its changes (the same columns for every row). */
export type RowChanges<T extends SeqTable> = { seq: number; changes: Partial<T['$inferSelect']> }

/**
 * Updates several rows of `table` in one statement, each with its own values, handed over as
 * one JSON parameter (the statement's text does not grow with the rows). Every row changes the
 * same columns (the first row's), text and integer ones.
 */
export async function updateRowsBySeq<T extends SeqTable>(
  db: Db,
  table: T,
  rows: RowChanges<T>[],
): Promise<void> {
  if (rows.length === 0) return
  const columns = getTableColumns(table) as Record<string, SQLiteColumn>
  const keys = Object.keys(rows[0].changes)
  const named = rows.map((row) => {
    const values: Record<string, unknown> = { seq: row.seq }
    for (const key of keys)
      values[columns[key].name] = (row.changes as Record<string, unknown>)[key]
    return values
  })
  await query(db, 'run', (db, t) => {
    const set: Record<string, SQL> = {}
    for (const key of keys) set[key] = jsonField(t, columns[key].name)
    return db
      .update(tableIn(t, table as SQLiteTable))
      .set(set)
      .from(jsonRows(t, JSON.stringify(named), [columns.seq, ...keys.map((key) => columns[key])]))
      .where(eq(columnIn(t, table, table.seq), jsonField(t, 'seq')))
  })
}

/** `(SELECT …)`: the strings of a JSON list, for an IN. */
function jsonList(t: Tables, values: string[]): SQL {
  const list = JSON.stringify(values)
  return onPostgres(t)
    ? sql`(SELECT json_array_elements_text(${list}::json))`
    : sql`(SELECT value FROM json_each(${list}))`
}

/** A JSON list of objects as a table `j` (PostgreSQL: typed by `columns`, named as in the table). */
function jsonRows(t: Tables, json: string, columns: SQLiteColumn[]): SQL {
  if (!onPostgres(t)) return sql`json_each(${json}) AS j`
  const types = columns.map((column) => sql.raw(`"${column.name}" ${PG_TYPES[column.columnType]}`))
  return sql`json_to_recordset(${json}::json) AS j(${sql.join(types, sql`, `)})`
}

/** The field `name` of jsonRows' row. */
function jsonField(t: Tables, name: string): SQL {
  return onPostgres(t) ? sql.raw(`j."${name}"`) : sql`json_extract(j.value, ${'$.' + name})`
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
          ne(t.jobs.action, 'fill_details'),
        ),
      ),
  )
}

/**
 * Inserts outbox rows in one statement, in the order given (their seqs follow it), handed over
 * as one JSON parameter (the statement's text does not grow with the rows).
 */
export async function insertEvents(
  db: Db,
  rows: (typeof webhookEvents.$inferInsert)[],
): Promise<void> {
  if (rows.length === 0) return
  const columns = Object.entries(getTableColumns(webhookEvents)).filter(
    ([, column]) => column.name !== 'seq',
  ) as [string, SQLiteColumn][]
  const json = JSON.stringify(
    rows.map((row) =>
      Object.fromEntries(
        columns.map(([key, column]) => [
          column.name,
          (row as Record<string, unknown>)[key] ?? null,
        ]),
      ),
    ),
  )
  await query(db, 'run', (db, t) => {
    const names = sql.raw(columns.map(([, column]) => `"${column.name}"`).join(', '))
    if (!onPostgres(t)) {
      const fields = columns.map(([, column]) => sql`json_extract(value, ${'$.' + column.name})`)
      const insert = sql`INSERT INTO ${tableIn(t, webhookEvents)} (${names}) SELECT ${sql.join(fields, sql`, `)} FROM json_each(${json}) ORDER BY key`
      // run by query() (after any open transaction), not at once
      return { run: () => db.run(insert) }
    }
    const fields = columns.map(([, column]) =>
      sql.raw(`(value->>'${column.name}')::${PG_TYPES[column.columnType]}`),
    )
    return (db as unknown as { execute(query: SQL): unknown }).execute(
      sql`INSERT INTO ${tableIn(t, webhookEvents)} (${names}) SELECT ${sql.join(fields, sql`, `)} FROM json_array_elements(${json}::json) WITH ORDINALITY AS e(value, ord) ORDER BY ord`,
    )
  })
}

/** The PostgreSQL type of a schema.ts column type (as db/pg-schema.ts maps them). */
const PG_TYPES: Record<string, string> = {
  SQLiteText: 'text',
  SQLiteTextJson: 'json',
  SQLiteBoolean: 'boolean',
  SQLiteInteger: 'bigint',
}
