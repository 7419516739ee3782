/**
 * The card-reveal page's access tokens (docs "get access token card"): a token opens, on this
 * sandbox, a page showing one card's number, cvv2 and expiry (the `embedded_ui` a client
 * frames), until it expires on the tenant's clock. Tokens are rows, so a file database keeps
 * them across a restart; a reset tenant's go with its other rows.
 */
import type { Card, CardRevealToken } from '../db/schema.js'
import type { Db } from '../store/driver.js'
import { insertRevealToken, revealTokenByToken } from '../store/card-reveal-tokens.js'
import { atomically } from '../store/statements.js'
import { findCard } from './cards.js'
import type { DomainContext } from './context.js'

/** How long a token opens its page, on the tenant's clock (the docs give no figure). */
export const REVEAL_TOKEN_TTL_MS = 10 * 60_000
/** As long as the docs' example token: 50 letters and digits. */
export const REVEAL_TOKEN_LENGTH = 50

const TOKEN_SHAPE = new RegExp(`^[A-Za-z0-9]{${REVEAL_TOKEN_LENGTH}}$`)

export function issueRevealToken(
  ctx: DomainContext,
  input: { cardReference: string; cssUrl?: string },
): Promise<CardRevealToken> {
  return atomically(ctx, async (ctx) => {
    const card = await findCard(ctx, input.cardReference, 'reference')
    return await insertRevealToken(ctx.db, {
      token: ctx.ids.token(REVEAL_TOKEN_LENGTH),
      tenantId: ctx.tenant.id,
      cardReference: card.reference,
      cssUrl: input.cssUrl ?? null,
      expiresAt: ctx.now + REVEAL_TOKEN_TTL_MS,
      createdAt: ctx.now,
    })
  })
}

/** The token's row, whatever its tenant; anything not shaped like a token names nothing. */
export async function findRevealToken(db: Db, token: string): Promise<CardRevealToken | undefined> {
  return TOKEN_SHAPE.test(token) ? await revealTokenByToken(db, token) : undefined
}

export type Reveal =
  { state: 'open'; card: Card; cssUrl: string | null; expiresAt: number } | { state: 'expired' }

/** What the token opens at the tenant's now (`ctx` is its owner's). */
export async function openReveal(ctx: DomainContext, token: CardRevealToken): Promise<Reveal> {
  if (ctx.now >= token.expiresAt) return { state: 'expired' }
  const card = await findCard(ctx, token.cardReference, 'reference')
  return { state: 'open', card, cssUrl: token.cssUrl, expiresAt: token.expiresAt }
}
