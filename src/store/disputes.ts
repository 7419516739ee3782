/** The disputes table (SPEC §2.8, §4.5). */
import { and, eq, inArray, sql } from 'drizzle-orm'
import type { Db } from './driver.js'
import { disputes, type Dispute } from '../db/schema.js'
import { insertReturning, ownedRowBy, pagesOf, updateReturning } from './rows.js'
import { statement } from './statements.js'

export function insertDispute(db: Db, values: typeof disputes.$inferInsert): Promise<Dispute> {
  return insertReturning(db, disputes, values)
}

export function updateDispute(db: Db, seq: number, changes: Partial<Dispute>): Promise<Dispute> {
  return updateReturning(db, disputes, seq, changes)
}

export const disputeByReference = ownedRowBy(disputes, disputes.reference)
export const disputePages = pagesOf(disputes)

const unresolvedOn = statement((db, t) =>
  db
    .select({ reference: t.disputes.reference })
    .from(t.disputes)
    .where(
      and(
        eq(t.disputes.tenantId, sql.placeholder('tenant')),
        eq(t.disputes.transactionSlug, sql.placeholder('slug')),
        inArray(t.disputes.status, ['open', 'submitted']),
      ),
    )
    .limit(1)
    .prepare(),
)

/** The reference of a dispute on the transaction that is not resolved yet, if any. */
export async function unresolvedDisputeOn(
  db: Db,
  tenantId: string,
  transactionSlug: string,
): Promise<string | undefined> {
  return (await unresolvedOn(db).get({ tenant: tenantId, slug: transactionSlug }))?.reference
}
