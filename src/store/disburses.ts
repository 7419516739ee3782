/** The disburses table (SPEC §2.6, §4.6). */
import type { Db } from './driver.js'
import { disburses, type Disburse } from '../db/schema.js'
import { insertReturning, ownedRowBy, pagesOf, updateReturning } from './rows.js'

export function insertDisburse(db: Db, values: typeof disburses.$inferInsert): Promise<Disburse> {
  return insertReturning(db, disburses, values)
}

export function updateDisburse(db: Db, seq: number, changes: Partial<Disburse>): Promise<Disburse> {
  return updateReturning(db, disburses, seq, changes)
}

export const disburseByReference = ownedRowBy(disburses, disburses.reference)
export const disburseByPartnerReference = ownedRowBy(disburses, disburses.partnerReference)
export const disbursePages = pagesOf(disburses)
