/** The card_users table (SPEC §4.1, §4.2). */
import { and, eq, sql } from 'drizzle-orm'
import type { Db } from './driver.js'
import { cardUsers, type CardUser } from '../db/schema.js'
import { insertReturning, ownedRowBy, pagesOf, updateReturning } from './rows.js'
import { statement } from './statements.js'

export function insertCardUser(db: Db, values: typeof cardUsers.$inferInsert): Promise<CardUser> {
  return insertReturning(db, cardUsers, values)
}

export function updateCardUser(db: Db, seq: number, changes: Partial<CardUser>): Promise<CardUser> {
  return updateReturning(db, cardUsers, seq, changes)
}

export const cardUserByReference = ownedRowBy(cardUsers, cardUsers.reference)
export const cardUserPages = pagesOf(cardUsers)

const verification = statement((db, t) =>
  db
    .select({ status: t.cardUsers.status, phone: t.cardUsers.phone })
    .from(t.cardUsers)
    .where(
      and(
        eq(t.cardUsers.tenantId, sql.placeholder('tenant')),
        eq(t.cardUsers.reference, sql.placeholder('reference')),
      ),
    )
    .prepare(),
)

/** A card user's status and phone: all a card's creation needs to know of its holder. */
export async function cardUserVerification(
  db: Db,
  tenantId: string,
  reference: string,
): Promise<Pick<CardUser, 'status' | 'phone'> | undefined> {
  return await verification(db).get({ tenant: tenantId, reference })
}
