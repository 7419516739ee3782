/** The cards table (SPEC §4.3). A card's reference, and a linked card's `identifier`, are unique per tenant. */
import { and, eq, sql } from 'drizzle-orm'
import type { Db, NewJob } from './driver.js'
import { insertWithJob } from './jobs.js'
import { cards, type Card } from '../db/schema.js'
import { cardBalanceColumn } from './ledger.js'
import { insertReturning, ownedRowBy, pagesOf, updateReturning, type ExtraColumns } from './rows.js'
import { statement } from './statements.js'

export function insertCard(db: Db, values: typeof cards.$inferInsert): Promise<Card> {
  return insertReturning(db, cards, values)
}

/** Inserts a card and the job that moves it on (store/jobs.ts insertWithJob). */
export function insertCardWithJob(
  db: Db,
  values: typeof cards.$inferInsert,
  job: NewJob,
): Promise<Card> {
  return insertWithJob(db, cards, values, job)
}

export function updateCard(db: Db, seq: number, changes: Partial<Card>): Promise<Card> {
  return updateReturning(db, cards, seq, changes)
}

export const cardByReference = ownedRowBy(cards, cards.reference)

/** A card with its balance, as a read answers it. */
export type CardWithBalance = Card & { balance: number }

const withBalance: ExtraColumns<{ balance: number }> = (t, row) => ({
  balance: cardBalanceColumn(t, row(cards.tenantId), row(cards.reference)),
})

/** A tenant's card by reference, with its balance, in one statement. */
export const cardWithBalanceByReference = ownedRowBy(cards, cards.reference, withBalance)
/** The pages of a tenant's cards, each with its balance, in one statement. */
export const cardPages = pagesOf(cards, undefined, withBalance)

const byIdentifier = statement((db, t) =>
  db
    .select({ seq: t.cards.seq })
    .from(t.cards)
    .where(
      and(
        eq(t.cards.tenantId, sql.placeholder('tenant')),
        eq(t.cards.identifier, sql.placeholder('identifier')),
      ),
    )
    .prepare(),
)

/** Whether the tenant already linked a card with this identifier. */
export async function isIdentifierLinked(
  db: Db,
  tenantId: string,
  identifier: number,
): Promise<boolean> {
  return (await byIdentifier(db).get({ tenant: tenantId, identifier })) !== undefined
}
