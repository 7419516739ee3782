/**
 * Card transactions (SPEC §2.5, §4.4; PRODUCT §5). Card-to-bank, card-to-wallet and
 * wallet-to-card start `pending` on a card that is issued and not frozen, and settle by
 * themselves after their delay. Outgoing transfers hold the amount at creation (422 when the
 * balance is short) and release it if they fail; wallet-to-card counts the amount as on its way
 * in at creation (ledger.ts INCOMING) and credits the card on success.
 * Control-plane funding makes `recharge` and `withdraw` transactions, already `success`.
 */
import type { Card, Transaction, transactions } from '../db/schema.js'
import type { Page, PageOf } from '../store/rows.js'
import { atomically } from '../store/statements.js'
import {
  cardTransactionPages,
  insertTransaction as insertTransactionRow,
  slugOfReference,
  transactionBySlug,
  transactionPages,
  newestTransactionWithReference,
} from '../store/transactions.js'
import { findCard } from './cards.js'
import { findCardUser } from './card-users.js'
import type { DomainContext } from './context.js'
import { notFound, refused } from './errors.js'
import {
  FLOAT,
  HOLDS,
  INCOMING,
  WORLD,
  assertFunds,
  cardAccount,
  move,
  type MoneyMove,
} from './ledger.js'
import { LIFECYCLES } from './lifecycles.js'
import { magicAmount } from './magic-values.js'
import { scheduleOutcome } from './schedule.js'
import { useWalletCode } from './wallet-codes.js'

export { WALLET_NETWORKS, WALLET_TO_CARD_NETWORKS } from '../db/values.js'

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
async function usableCard(
  ctx: DomainContext,
  cardReference: string,
  field = 'card_reference',
): Promise<Card> {
  const card = await findCard(ctx, cardReference, field)
  if (card.status === 'frozen') throw refused(field, 'The card is frozen.')
  if (card.status !== 'issued') {
    throw refused(field, `The card is not issued (status: ${card.status}).`)
  }
  return card
}

type TransactionValues = Omit<
  typeof transactions.$inferInsert,
  'slug' | 'tenantId' | 'cardReference' | 'status' | 'createdAt' | 'updatedAt' | 'reference'
> & { reference?: string; status?: Transaction['status'] }

function insertTransaction(
  ctx: DomainContext,
  card: Card,
  values: TransactionValues,
): Promise<Transaction> {
  // `{ status, ...values, reference, … }` without its cost (ARCHITECTURE.md, "Objects on a
  // request's path")
  return insertTransactionRow(
    ctx.db,
    Object.assign({ status: LIFECYCLES.transaction.initial }, values, {
      reference: values.reference ?? ctx.ids.uuid(),
      slug: ctx.ids.uuid(),
      tenantId: ctx.tenant.id,
      cardReference: card.reference,
      createdAt: ctx.now,
      updatedAt: ctx.now,
    }),
  )
}

/**
 * Idempotency where the client gives a reference (issue: a retried request must not move money
 * twice): a transfer repeating a `reference` already used on the same card is refused (422).
 */
async function assertNewReference(
  ctx: DomainContext,
  card: Card,
  reference: string | undefined,
): Promise<void> {
  if (reference === undefined) return
  const used = await slugOfReference(ctx.db, ctx.tenant.id, card.reference, reference)
  if (used !== undefined) {
    throw refused(
      'reference',
      `The reference has already been used on this card (transaction ${used}).`,
    )
  }
}

/** A new pending transfer settles by itself after its delay (or as a scenario or magic amount says). */
async function pendingTransfer(
  ctx: DomainContext,
  card: Card,
  values: TransactionValues,
): Promise<Transaction> {
  await assertNewReference(ctx, card, values.reference)
  const transaction = await insertTransaction(ctx, card, values)
  await scheduleOutcome(
    ctx,
    'transaction_settlement',
    { resource: 'transactions', key: transaction.slug, seq: transaction.seq, action: 'success' },
    magicAmount(transaction.amount, ['failed', 'success']),
  )
  return transaction
}

/** An outgoing transfer: the balance check and the hold happen in the caller's transaction. */
async function holdingTransfer(
  ctx: DomainContext,
  card: Card,
  values: TransactionValues,
): Promise<Transaction> {
  await assertFunds(ctx, cardAccount(card.reference), values.amount, 'amount')
  const transaction = await pendingTransfer(ctx, card, values)
  await move(ctx, {
    from: cardAccount(card.reference),
    to: HOLDS,
    amount: values.amount,
    source: transaction.slug,
    memo: `hold ${transaction.kind}`,
  })
  return transaction
}

/** What a settled or failed transfer does to the ledger (PRODUCT §5). */
export async function settleTransaction(
  ctx: DomainContext,
  transaction: Transaction,
  to: 'success' | 'failed',
): Promise<void> {
  for (const movement of settlementMovements(transaction, to)) await move(ctx, movement)
}

/** The movements of money a transfer's settlement or failure makes, in order. */
export function settlementMovements(
  transaction: Transaction,
  to: 'success' | 'failed',
): MoneyMove[] {
  const { amount, slug: source } = transaction
  if (transaction.kind in MOVED_TO) {
    // the API's recharge, withdraw and transfer: held at creation, moved or given back
    const kind = transaction.kind as CardMovementKind
    const destination =
      to === 'success' ? MOVED_TO[kind](transaction) : MOVED_FROM[kind](transaction)
    return [{ from: HOLDS, to: destination, amount, source, memo: `${to} ${kind}` }]
  }
  const card = cardAccount(transaction.cardReference)
  const outgoing = transaction.kind === 'card_to_bank' || transaction.kind === 'card_to_wallet'
  if (outgoing && to === 'success')
    return [{ from: HOLDS, to: WORLD, amount, source, memo: `settle ${transaction.kind}` }]
  if (outgoing && to === 'failed')
    return [{ from: HOLDS, to: card, amount, source, memo: `release ${transaction.kind}` }]
  if (transaction.kind === 'wallet_to_card' && to === 'success')
    return [{ from: INCOMING, to: card, amount, source, memo: 'credit wallet_to_card' }]
  if (transaction.kind === 'wallet_to_card' && to === 'failed')
    return [{ from: INCOMING, to: WORLD, amount, source, memo: 'call off wallet_to_card' }]
  return []
}

type Movement = Pick<Transaction, 'cardReference' | 'receiverCardReference'>
/** Where the money of a pending recharge, withdraw or transfer goes once it settles. */
const MOVED_TO = {
  recharge: (t: Movement) => cardAccount(t.cardReference),
  withdraw: () => FLOAT,
  transfer: (t: Movement) => cardAccount(t.receiverCardReference ?? ''),
}
/**
 * Where it comes from (held at creation), and goes back to if it fails. Control-plane funding
 * never settles (it is `success` at once), so a recharge or withdraw that settles is always one
 * of the API's (docs "topup or withdraw card").
 */
const MOVED_FROM = {
  recharge: () => FLOAT,
  withdraw: (t: Movement) => cardAccount(t.cardReference),
  transfer: (t: Movement) => cardAccount(t.cardReference),
}
type CardMovementKind = keyof typeof MOVED_TO

export type CardMovementInput = {
  action: CardMovementKind
  amount: number
  cardReference: string
  receiverCardReference?: string
  reference?: string
}

/**
 * POST /v1/transactions/create: a recharge moves money from the business float to the card, a
 * withdraw from the card to the float, a transfer from the card to another of the tenant's
 * cards; `pending`, held at once (422 when the float or the card is short), settled by the clock.
 */
export function createCardMovement(
  ctx: DomainContext,
  input: CardMovementInput,
): Promise<Transaction> {
  return atomically(ctx, async (ctx) => {
    const card = await usableCard(ctx, input.cardReference)
    let receiver: Card | undefined
    if (input.action === 'transfer') {
      if (input.receiverCardReference === undefined)
        throw refused(
          'receiver_card_reference',
          'The receiver card reference field is required when action is transfer.',
        )
      if (input.receiverCardReference === card.reference)
        throw refused('receiver_card_reference', 'The receiver card must be another card.')
      receiver = await usableCard(ctx, input.receiverCardReference, 'receiver_card_reference')
    }
    const source = MOVED_FROM[input.action]({
      cardReference: card.reference,
      receiverCardReference: receiver?.reference ?? null,
    })
    await assertFunds(ctx, source, input.amount, 'amount')
    const transaction = await pendingTransfer(ctx, card, {
      kind: input.action,
      amount: input.amount,
      reference: input.reference,
      receiverCardReference: receiver?.reference,
    })
    await move(ctx, {
      from: source,
      to: HOLDS,
      amount: input.amount,
      source: transaction.slug,
      memo: `hold ${input.action}`,
    })
    return transaction
  })
}

/** Control-plane funding: a `recharge` (money in) or `withdraw` (money out), already settled. */
export function fundCard(
  ctx: DomainContext,
  input: { cardReference: string; amount: number; kind: 'recharge' | 'withdraw' },
): Promise<Transaction> {
  return atomically(ctx, async (ctx) => {
    const card = await findCard(ctx, input.cardReference, 'reference')
    if (card.status === 'failed')
      throw refused('reference', 'The card failed to issue and holds no money.')
    const account = cardAccount(card.reference)
    if (input.kind === 'withdraw') await assertFunds(ctx, account, input.amount, 'amount')
    const transaction = await insertTransaction(ctx, card, {
      kind: input.kind,
      amount: input.amount,
      status: 'success',
    })
    const [from, to] = input.kind === 'recharge' ? [WORLD, account] : [account, WORLD]
    await move(ctx, { from, to, amount: input.amount, source: transaction.slug, memo: input.kind })
    return transaction
  })
}

export function cardToBank(ctx: DomainContext, input: CardToBankInput): Promise<Transaction> {
  return atomically(ctx, async (ctx) => {
    const card = await usableCard(ctx, input.cardReference)
    const holder = await findCardUser(ctx, card.cardUserReference)
    return await holdingTransfer(ctx, card, {
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

export function cardToWallet(ctx: DomainContext, input: CardToWalletInput): Promise<Transaction> {
  return atomically(ctx, async (ctx) => {
    const card = await usableCard(ctx, input.cardReference)
    return await holdingTransfer(ctx, card, {
      kind: 'card_to_wallet',
      amount: input.amount,
      reference: input.reference,
      phone: input.phone,
      network: input.network,
    })
  })
}

export function walletToCard(ctx: DomainContext, input: WalletToCardInput): Promise<Transaction> {
  return atomically(ctx, async (ctx) => {
    const card = await usableCard(ctx, input.cardReference)
    await useWalletCode(ctx, input)
    const transaction = await pendingTransfer(ctx, card, {
      kind: 'wallet_to_card',
      amount: input.amount,
      reference: input.reference,
      phone: input.phone,
      network: input.network,
    })
    await move(ctx, {
      from: WORLD,
      to: INCOMING,
      amount: input.amount,
      source: transaction.slug,
      memo: 'promise wallet_to_card',
    })
    return transaction
  })
}

export async function findTransaction(
  ctx: DomainContext,
  slug: string,
  field = 'transaction_slug',
): Promise<Transaction> {
  const transaction = await transactionBySlug(ctx.db, ctx.tenant.id, slug)
  if (!transaction) throw notFound(field, 'transaction', slug)
  return transaction
}

/**
 * Show transaction (docs "show transaction"): `x` is a slug, else a client reference, of which
 * the newest transaction is shown (a client reference is unique per card, not per tenant).
 */
export async function showTransaction(
  ctx: DomainContext,
  x: string,
  field = 'reference',
): Promise<Transaction> {
  const transaction =
    (await transactionBySlug(ctx.db, ctx.tenant.id, x)) ??
    (await newestTransactionWithReference(ctx.db, ctx.tenant.id, x))
  if (!transaction) throw notFound(field, 'transaction', x)
  return transaction
}

export async function listTransactions(
  ctx: DomainContext,
  page: Page,
  cardReference?: string,
): Promise<PageOf<Transaction>> {
  if (cardReference === undefined) return await transactionPages(ctx.db, ctx.tenant.id, page)
  await findCard(ctx, cardReference)
  return await cardTransactionPages(ctx.db, ctx.tenant.id, page, cardReference)
}
