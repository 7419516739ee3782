/** The transactions table (SPEC §2.5, §4.4), addressed by slug. */
import { and, desc, eq, sql } from 'drizzle-orm'
import type { Db } from './driver.js'
import { transactions, type Transaction } from '../db/schema.js'
import { insertReturning, ownedRowBy, pagesOf, updateReturning } from './rows.js'
import { statement } from './statements.js'

export function insertTransaction(
  db: Db,
  values: typeof transactions.$inferInsert,
): Promise<Transaction> {
  return insertReturning(db, transactions, values)
}

export function updateTransaction(
  db: Db,
  seq: number,
  changes: Partial<Transaction>,
): Promise<Transaction> {
  return updateReturning(db, transactions, seq, changes)
}

export const transactionBySlug = ownedRowBy(transactions, transactions.slug)
export const transactionPages = pagesOf(transactions)
/** A card's transactions, newest first. */
export const cardTransactionPages = pagesOf(transactions, transactions.cardReference)

const byClientReference = statement((db, t) =>
  db
    .select({ slug: t.transactions.slug })
    .from(t.transactions)
    .where(
      and(
        eq(t.transactions.tenantId, sql.placeholder('tenant')),
        eq(t.transactions.cardReference, sql.placeholder('card')),
        eq(t.transactions.reference, sql.placeholder('reference')),
      ),
    )
    .prepare(),
)

/** The slug of the card's transaction made with a client `reference`, if any. */
export async function slugOfReference(
  db: Db,
  tenantId: string,
  cardReference: string,
  reference: string,
): Promise<string | undefined> {
  return (await byClientReference(db).get({ tenant: tenantId, card: cardReference, reference }))
    ?.slug
}

const newestByClientReference = statement((db, t) =>
  db
    .select()
    .from(t.transactions)
    .where(
      and(
        eq(t.transactions.tenantId, sql.placeholder('tenant')),
        eq(t.transactions.reference, sql.placeholder('reference')),
      ),
    )
    .orderBy(desc(t.transactions.seq))
    .limit(1)
    .prepare(),
)

/** The tenant's newest transaction made with a client `reference` (unique per card only). */
export async function newestTransactionWithReference(
  db: Db,
  tenantId: string,
  reference: string,
): Promise<Transaction | undefined> {
  return await newestByClientReference(db).get({ tenant: tenantId, reference })
}
