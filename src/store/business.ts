/** The business_operations table (SPEC §2.9, §4.8): a disburse's `float_debit`, a payment's `float_credit`. */
import { and, asc, eq, sql } from 'drizzle-orm'
import type { Db } from './driver.js'
import { businessOperations, type BusinessOperation } from '../db/schema.js'
import { insertReturning, pagesOf } from './rows.js'
import { query, statement } from './statements.js'

export function insertOperation(
  db: Db,
  values: typeof businessOperations.$inferInsert,
): Promise<BusinessOperation> {
  return insertReturning(db, businessOperations, values)
}

export const operationPages = pagesOf(businessOperations)

const settle = statement((db, t) =>
  db
    .update(t.businessOperations)
    .set({ status: sql`${sql.placeholder('status')}`, updatedAt: sql`${sql.placeholder('now')}` })
    .where(
      and(
        eq(t.businessOperations.sourceReference, sql.placeholder('source')),
        eq(t.businessOperations.kind, sql.placeholder('kind')),
      ),
    )
    .prepare(),
)

/** Moves the operations of `kind` made for `sourceReference` (a disburse's reference) to `status`. */
export async function setOperationStatus(
  db: Db,
  operation: { sourceReference: string; kind: BusinessOperation['kind'] },
  status: BusinessOperation['status'],
  now: number,
): Promise<void> {
  await settle(db).run({ source: operation.sourceReference, kind: operation.kind, status, now })
}

/** Inserts operations in one statement, in the order given (their seqs follow it). */
export async function insertOperations(
  db: Db,
  rows: (typeof businessOperations.$inferInsert)[],
): Promise<void> {
  if (rows.length > 0) await db.driver.insertMany(db, businessOperations, rows)
}

/** The operations of `kind` made for any of `sourceReferences`, in seq order: their seq and source. */
export async function operationsOf(
  db: Db,
  kind: BusinessOperation['kind'],
  sourceReferences: string[],
): Promise<{ seq: number; sourceReference: string }[]> {
  if (sourceReferences.length === 0) return []
  return await query(db, 'all', (db, t, d) =>
    db
      .select({
        seq: t.businessOperations.seq,
        sourceReference: t.businessOperations.sourceReference,
      })
      .from(t.businessOperations)
      .where(
        and(
          d.inJsonArray(t.businessOperations.sourceReference, JSON.stringify(sourceReferences)),
          eq(t.businessOperations.kind, kind),
        ),
      )
      .orderBy(asc(t.businessOperations.seq)),
  )
}
