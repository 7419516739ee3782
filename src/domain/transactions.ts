/**
 * Card transactions (SPEC §2.5, §4.4): card-to-bank, card-to-wallet and wallet-to-card all
 * start `pending` on a card that is issued and not frozen (PRODUCT §4, §5).
 */
import { and, eq } from 'drizzle-orm'
import { transactions, type Card, type Transaction } from '../db/schema.js'
import { findCard } from './cards.js'
import { findCardUser } from './card-users.js'
import { listPage, type DomainContext, type Page, type PageOf } from './context.js'
import { notFound, refused } from './errors.js'
import { LIFECYCLES } from './lifecycles.js'
import { useWalletCode } from './wallet-codes.js'

export const WALLET_NETWORKS = [
  'orange-money-sn',
  'wave-sn',
  'orange-money-ci',
  'wave-ci',
  'mtn-ci',
  'moov-ci',
  'mtn-bj',
  'moov-bj',
  'moov-tg',
  't-money-togo',
] as const

/** SPEC §4.4: the networks a wallet-to-card transfer may come from. */
export const WALLET_TO_CARD_NETWORKS = [
  'mtn-ci',
  'orange-money-ci',
  'wave-ci',
  'orange-money-sn',
  'wave-sn',
] as const

type TransferBase = { amount: number; cardReference: string; reference?: string }

export type CardToBankInput = TransferBase & {
  bankId: string
  bankName: string
  bankAccountName?: string
  description?: string
}
export type CardToWalletInput = TransferBase & { phone: string; network: string }
export type WalletToCardInput = TransferBase & { phone: string; network: string; code?: string }

/** A transfer needs an issued card; a frozen or not-yet-issued card refuses it (422). */
function usableCard(ctx: DomainContext, cardReference: string): Card {
  const card = findCard(ctx, cardReference)
  if (card.status === 'frozen') throw refused('card_reference', 'The card is frozen.')
  if (card.status !== 'issued') {
    throw refused('card_reference', `The card is not issued (status: ${card.status}).`)
  }
  return card
}

function insertTransaction(
  ctx: DomainContext,
  card: Card,
  values: Omit<typeof transactions.$inferInsert, 'slug' | 'tenantId' | 'cardReference' | 'status' | 'createdAt' | 'updatedAt' | 'reference'> & { reference?: string },
): Transaction {
  return ctx.db
    .insert(transactions)
    .values({
      ...values,
      reference: values.reference ?? ctx.ids.uuid(),
      slug: ctx.ids.uuid(),
      tenantId: ctx.tenant.id,
      cardReference: card.reference,
      status: LIFECYCLES.transaction.initial,
      createdAt: ctx.now,
      updatedAt: ctx.now,
    })
    .returning()
    .get()
}

export function cardToBank(ctx: DomainContext, input: CardToBankInput): Transaction {
  return ctx.db.transaction(() => {
    const card = usableCard(ctx, input.cardReference)
    const holder = findCardUser(ctx, card.cardUserReference)
    return insertTransaction(ctx, card, {
      kind: 'card_to_bank',
      amount: input.amount,
      reference: input.reference,
      // SPEC §2.5: card-to-bank carries a merchant name; the bank is the merchant here.
      merchant: input.bankName,
      bankId: input.bankId,
      bankName: input.bankName,
      bankAccountName:
        input.bankAccountName ?? [holder.firstName, holder.lastName].filter(Boolean).join(' '),
      description: input.description,
    })
  })
}

export function cardToWallet(ctx: DomainContext, input: CardToWalletInput): Transaction {
  return ctx.db.transaction(() => {
    const card = usableCard(ctx, input.cardReference)
    return insertTransaction(ctx, card, {
      kind: 'card_to_wallet',
      amount: input.amount,
      reference: input.reference,
      phone: input.phone,
      network: input.network,
    })
  })
}

export function walletToCard(ctx: DomainContext, input: WalletToCardInput): Transaction {
  return ctx.db.transaction(() => {
    const card = usableCard(ctx, input.cardReference)
    useWalletCode(ctx, input)
    return insertTransaction(ctx, card, {
      kind: 'wallet_to_card',
      amount: input.amount,
      reference: input.reference,
      phone: input.phone,
      network: input.network,
    })
  })
}

export function findTransaction(ctx: DomainContext, slug: string, field = 'transaction_slug'): Transaction {
  const transaction = ctx.db
    .select()
    .from(transactions)
    .where(and(eq(transactions.tenantId, ctx.tenant.id), eq(transactions.slug, slug)))
    .get()
  if (!transaction) throw notFound(field, 'transaction', slug)
  return transaction
}

export function listTransactions(
  ctx: DomainContext,
  page: Page,
  cardReference?: string,
): PageOf<Transaction> {
  if (cardReference === undefined) return listPage(ctx, transactions, page)
  findCard(ctx, cardReference)
  return listPage(ctx, transactions, page, eq(transactions.cardReference, cardReference))
}
