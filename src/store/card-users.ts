/** The card_users table (SPEC §4.1, §4.2). */
import type { Db } from '../db/open.js'
import { cardUsers, type CardUser } from '../db/schema.js'
import { insertReturning, ownedRowBy, pagesOf, updateReturning } from './rows.js'

export function insertCardUser(db: Db, values: typeof cardUsers.$inferInsert): CardUser {
  return insertReturning(db, cardUsers, values)
}

export function updateCardUser(db: Db, seq: number, changes: Partial<CardUser>): CardUser {
  return updateReturning(db, cardUsers, seq, changes)
}

export const cardUserByReference = ownedRowBy(cardUsers, cardUsers.reference)
export const cardUserPages = pagesOf(cardUsers)
