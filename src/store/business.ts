/** The business_operations table (SPEC §2.9, §4.8): a disburse's `float_debit`, a payment's `float_credit`. */
import { and, eq, sql } from 'drizzle-orm'
import type { Db } from './driver.js'
import { businessOperations, type BusinessOperation } from '../db/schema.js'
import { insertReturning, pagesOf } from './rows.js'
import { statement } from './statements.js'

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
