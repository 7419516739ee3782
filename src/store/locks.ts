/**
 * Row locks for a status move (PostgreSQL; SQLite has one writer at a time). A move reads the
 * resource's status, checks the move is legal, writes the new one and its side effects (money
 * back, an event): two moves of one resource at once on two replicas (a control-plane
 * transition and the scheduled settlement) would both pass the check. The first to lock goes
 * first; the other then reads the moved status and is refused (a job: dropped).
 */
import { and, asc, eq, inArray } from 'drizzle-orm'
import type { SQLiteColumn, SQLiteTable } from 'drizzle-orm/sqlite-core'
import type { Db } from './driver.js'
import { cardUsers, cards, disburses, disputes, payments, transactions } from '../db/schema.js'
import { columnIn, query, tableIn } from './statements.js'

type Keyed = SQLiteTable & { tenantId: SQLiteColumn }

/** Each resource a transition moves: its table and the column its key is. */
const KEYED: Record<string, [Keyed, SQLiteColumn]> = {
  'card-users': [cardUsers, cardUsers.reference],
  cards: [cards, cards.reference],
  transactions: [transactions, transactions.slug],
  payments: [payments, payments.reference],
  disburses: [disburses, disburses.reference],
  disputes: [disputes, disputes.reference],
}

/**
 * Locks, until the transaction ends, the resource's pending jobs and then its row. Jobs first:
 * the scheduler holds a batch of jobs when it moves their resources, so the same order on both
 * sides never waits in a circle.
 */
export async function lockForMove(
  db: Db,
  tenantId: string,
  resource: string,
  key: string,
): Promise<void> {
  if (!db.driver.rowLocks) return
  await lockJobs(db, tenantId, resource, { key })
  const [table, column] = KEYED[resource]
  await query(db, 'all', (db, t, d) =>
    d.forUpdate(
      db
        .select({ key: columnIn(t, table, column) })
        .from(tableIn(t, table))
        .where(
          and(
            eq(columnIn(t, table, table.tenantId), tenantId),
            eq(columnIn(t, table, column), key),
          ),
        ),
    ),
  )
}

/**
 * Locks, until the transaction ends, the pending jobs of the tenant's `resource` rows named by
 * key (one move: lockForMove) or by seq (a set's moves, domain/moves-in-sets.ts), in seq order,
 * before the rows themselves are locked. PostgreSQL only: SQLite has one writer at a time.
 */
export async function lockJobs(
  db: Db,
  tenantId: string,
  resource: string,
  rows: { key: string } | { seqs: number[] },
): Promise<void> {
  if (!db.driver.rowLocks) return
  await query(db, 'all', (db, t, d) =>
    d.forUpdate(
      db
        .select({ seq: t.jobs.seq })
        .from(t.jobs)
        .where(
          and(
            eq(t.jobs.tenantId, tenantId),
            eq(t.jobs.resource, resource),
            'key' in rows ? eq(t.jobs.key, rows.key) : inArray(t.jobs.resourceSeq, rows.seqs),
          ),
        )
        .orderBy(asc(t.jobs.seq)),
    ),
  )
}

/**
 * Takes a lock named `name` until the transaction ends, for a check that no row can carry: that
 * no row has a value yet (a partner reference about to be used). Two transactions that take the
 * same name run their check and write one after the other.
 */
export function lockName(db: Db, name: string): Promise<void> {
  return db.driver.lockName(db, name)
}

/** lockName without waiting: false when another transaction holds the name (it does the work). */
export function tryLockName(db: Db, name: string): Promise<boolean> {
  return db.driver.tryLockName(db, name)
}
