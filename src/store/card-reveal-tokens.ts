/**
 * The card_reveal_tokens table (docs "get access token card"): a token finds its row whatever
 * the tenant, as the hosted page that opens it carries no bearer token.
 */
import { eq, sql } from 'drizzle-orm'
import type { Db } from './driver.js'
import { cardRevealTokens, type CardRevealToken } from '../db/schema.js'
import { insertReturning } from './rows.js'
import { statement } from './statements.js'

export function insertRevealToken(
  db: Db,
  values: typeof cardRevealTokens.$inferInsert,
): Promise<CardRevealToken> {
  return insertReturning(db, cardRevealTokens, values)
}

const byToken = statement((db, t) =>
  db
    .select()
    .from(t.cardRevealTokens)
    .where(eq(t.cardRevealTokens.token, sql.placeholder('token')))
    .prepare(),
)

export async function revealTokenByToken(
  db: Db,
  token: string,
): Promise<CardRevealToken | undefined> {
  return await byToken(db).get({ token })
}
