/** The disputes table (SPEC §2.8, §4.5). */
import type { Db } from '../db/open.js'
import { disputes, type Dispute } from '../db/schema.js'
import { insertReturning, ownedRowBy, pagesOf, updateReturning } from './rows.js'

export function insertDispute(db: Db, values: typeof disputes.$inferInsert): Dispute {
  return insertReturning(db, disputes, values)
}

export function updateDispute(db: Db, seq: number, changes: Partial<Dispute>): Dispute {
  return updateReturning(db, disputes, seq, changes)
}

export const disputeByReference = ownedRowBy(disputes, disputes.reference)
export const disputePages = pagesOf(disputes)
