/**
 * Cards (SPEC §2.4, §4.3; PRODUCT §5): issued for a card user who passed verification, or
 * linked by an existing card's numeric identifier. Created cards start `issuing` with no number;
 * linked cards answer `issued` with null details (SPEC §3). Freeze and unfreeze move the real
 * state: issued ⇄ frozen.
 */
import { FILL_DETAILS } from '../db/values.js'
import type { Card, CardBrand, CardType, CardUser } from '../db/schema.js'
import {
  cardByReference,
  cardPages,
  cardWithBalanceByReference,
  insertCard,
  insertCardWithJob,
  isIdentifierLinked,
  updateCard,
  type CardWithBalance,
} from '../store/cards.js'
import { cardUserVerification } from '../store/card-users.js'
import type { Page, PageOf } from '../store/rows.js'
import { atomically } from '../store/statements.js'
import type { DomainContext } from './context.js'
import { SandboxError, notFound, refused } from './errors.js'
import { balanceOf, cardAccount } from './ledger.js'
import { LIFECYCLES, allowedMoves, assertMove } from './lifecycles.js'
import { magicCard } from './magic-values.js'
import { outcomeJob, scheduleAfter } from './schedule.js'
import { cardCreationEvent } from './webhook-events.js'
import { enqueueEvent } from './outbox.js'

/** A linked card's brand and type are not sent; the sandbox assumes a physical visa. */
const LINKED_CARD_BRAND: CardBrand = 'visa'
const LINKED_CARD_TYPE: CardType = 'physical'
/** How long an issued card is valid, in years. */
const CARD_VALIDITY_YEARS = 3

/** The card user's status and phone, if they passed verification (a narrow read: 2 columns). */
async function assertVerified(
  ctx: DomainContext,
  cardUserReference: string,
): Promise<Pick<CardUser, 'status' | 'phone'>> {
  const user = await cardUserVerification(ctx.db, ctx.tenant.id, cardUserReference)
  if (!user) throw notFound('card_user_reference', 'card user', cardUserReference)
  if (user.status !== 'passed') {
    throw refused(
      'card_user_reference',
      `The card user has not passed identity verification (status: ${user.status}).`,
    )
  }
  return user
}

export function createCard(
  ctx: DomainContext,
  input: { cardUserReference: string; brand: CardBrand; type: CardType },
): Promise<Card> {
  return atomically(
    ctx,
    async (ctx) => {
      const holder = await assertVerified(ctx, input.cardUserReference)
      const reference = ctx.ids.uuid()
      // the card and its issuing job in one statement where the store can (one round trip)
      return await insertCardWithJob(
        ctx.db,
        {
          reference,
          tenantId: ctx.tenant.id,
          cardUserReference: input.cardUserReference,
          brand: input.brand,
          type: input.type,
          status: LIFECYCLES.card.initial,
          createdAt: ctx.now,
          updatedAt: ctx.now,
        },
        outcomeJob(
          ctx,
          'card_issuing',
          { resource: 'cards', key: reference, action: 'issued' },
          magicCard(holder.phone),
        )!,
      )
    },
    // run again from its start, it draws another reference; nothing else it does stays
    { rerunnable: true },
  )
}

/**
 * Links an existing card by its identifier, or by the reference the older body sends, which
 * becomes the card's own (PRODUCT §10). A reference is unique per tenant, as the identifier is:
 * one the tenant's cards already have is refused (422); another tenant's cards are no concern
 * of this one's (PRODUCT §3), and nothing finds a tenant by a card's reference (the hosted pages
 * look up card users, payments and disburses, whose references the sandbox makes).
 */
export function linkCard(
  ctx: DomainContext,
  input: { identifier?: number; reference?: string; cardUserReference: string },
): Promise<Card> {
  return atomically(ctx, async (ctx) => {
    await assertVerified(ctx, input.cardUserReference)
    if (
      input.identifier !== undefined &&
      (await isIdentifierLinked(ctx.db, ctx.tenant.id, input.identifier))
    )
      throw refused('identifier', 'A card with this identifier is already linked.')
    if (
      input.reference !== undefined &&
      (await cardByReference(ctx.db, ctx.tenant.id, input.reference))
    )
      throw refused('reference', 'The reference has already been taken.')
    const card = await insertCard(ctx.db, {
      reference: input.reference ?? ctx.ids.uuid(),
      tenantId: ctx.tenant.id,
      cardUserReference: input.cardUserReference,
      identifier: input.identifier ?? null,
      brand: LINKED_CARD_BRAND,
      type: LINKED_CARD_TYPE,
      status: 'issued',
      createdAt: ctx.now,
      updatedAt: ctx.now,
    })
    // SPEC §3: a linked card answers `issued` with null details, filled after a delay.
    await scheduleAfter(ctx, 'card_link_details', {
      resource: 'cards',
      key: card.reference,
      seq: card.seq,
      action: FILL_DETAILS,
    })
    return card
  })
}

export async function findCard(
  ctx: DomainContext,
  reference: string,
  field = 'card_reference',
): Promise<Card> {
  const card = await cardByReference(ctx.db, ctx.tenant.id, reference)
  if (!card) throw notFound(field, 'card', reference)
  return card
}

export async function setCardStatus(
  ctx: DomainContext,
  card: Card,
  to: Card['status'],
): Promise<Card> {
  assertMove('card', card.status, to)
  const details = to === 'issued' && card.cardNumber === null ? cardDetails(ctx, card) : {}
  // details (number, cvv2, expiry) last (ARCHITECTURE.md, "Objects on a request's path")
  return await updateCard(ctx.db, card.seq, { status: to, updatedAt: ctx.now, ...details })
}

/** A linked card's number, cvv2 and expiry arrive after its delay; its status does not change. */
export async function fillLinkedCardDetails(ctx: DomainContext, reference: string): Promise<void> {
  const card = await findCard(ctx, reference, 'reference')
  if (card.cardNumber !== null) return
  const filled = await updateCard(ctx.db, card.seq, {
    ...cardDetails(ctx, card),
    updatedAt: ctx.now,
  })
  // the linked card now has what a created card has when it is issued
  await enqueueEvent(
    ctx,
    cardCreationEvent({ ...filled, status: 'issued' }, await cardBalance(ctx, filled), ctx.quirks),
  )
}

/** Number (Luhn-valid, brand prefix), cvv2 and expiry (`YYYY-MM`), filled when a card is issued. */
export function cardDetails(ctx: DomainContext, card: Card) {
  const issuedAt = new Date(ctx.now)
  const expiry = `${issuedAt.getUTCFullYear() + CARD_VALIDITY_YEARS}-${String(issuedAt.getUTCMonth() + 1).padStart(2, '0')}`
  return { cardNumber: ctx.ids.cardNumber(card.brand), cvv2: ctx.ids.digits(3), expiry }
}

export function freezeCard(ctx: DomainContext, reference: string): Promise<Card> {
  return atomically(
    ctx,
    async (ctx) => await setCardStatus(ctx, await findCard(ctx, reference, 'reference'), 'frozen'),
  )
}

/** Only a frozen card unfreezes: an issuing card must not be issued by an unfreeze. */
export function unfreezeCard(ctx: DomainContext, reference: string): Promise<Card> {
  return atomically(ctx, async (ctx) => {
    const card = await findCard(ctx, reference, 'reference')
    if (card.status !== 'frozen') {
      throw new SandboxError(
        'invalid_transition',
        `Only a frozen card can be unfrozen (status: ${card.status}).`,
        {
          from: card.status,
          to: 'issued',
          allowed: [...allowedMoves('card', card.status)],
        },
      )
    }
    return await setCardStatus(ctx, card, 'issued')
  })
}

/** A page of the tenant's cards, each with its balance (one statement). */
export function listCards(ctx: DomainContext, page: Page): Promise<PageOf<CardWithBalance>> {
  return cardPages(ctx.db, ctx.tenant.id, page)
}

/** A card as findCard finds it, with its balance (one statement). */
export async function findCardWithBalance(
  ctx: DomainContext,
  reference: string,
  field = 'card_reference',
): Promise<CardWithBalance> {
  const card = await cardWithBalanceByReference(ctx.db, ctx.tenant.id, reference)
  if (!card) throw notFound(field, 'card', reference)
  return card
}

/** What a card's account holds when createCard or linkCard makes it: nothing moved in yet. */
export const NEW_CARD_BALANCE = 0

/** What the card can spend: its ledger account (held amounts are already out of it). */
export function cardBalance(ctx: DomainContext, card: Card): Promise<number> {
  return balanceOf(ctx, cardAccount(card.reference))
}
