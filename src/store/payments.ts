/** The payments table (SPEC §2.7, §4.7). */
import type { Db } from './driver.js'
import { payments, type Payment } from '../db/schema.js'
import { insertReturning, ownedRowBy, pagesOf, updateReturning } from './rows.js'

export function insertPayment(db: Db, values: typeof payments.$inferInsert): Promise<Payment> {
  return insertReturning(db, payments, values)
}

export function updatePayment(db: Db, seq: number, changes: Partial<Payment>): Promise<Payment> {
  return updateReturning(db, payments, seq, changes)
}

export const paymentByReference = ownedRowBy(payments, payments.reference)
export const paymentByPartnerReference = ownedRowBy(payments, payments.partnerReference)
export const paymentPages = pagesOf(payments)
