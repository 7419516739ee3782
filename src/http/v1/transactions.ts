/**
 * /v1/transactions (SPEC §4.4). Quirks on: `merchant` is a string on card-to-bank and `false`
 * elsewhere, `created_at` has microseconds, and the wallet-to-card response says
 * `card_to_wallet` (PRODUCT §2).
 */
import { Hono } from 'hono'
import { z } from 'zod'
import type { Transaction } from '../../db/schema.js'
import {
  cardToBank,
  cardToWallet,
  createCardMovement,
  listTransactions,
  showTransaction,
  walletToCard,
} from '../../domain/transactions.js'
import type { AppEnv } from '../../wiring/env.js'
import {
  createdAtJson,
  ok,
  okList,
  pageMeta,
  pageQuery,
  presenting,
  toPage,
  type Presenting,
} from '../envelope.js'
import { describeRoute, type RouteMeta } from '../route-meta.js'
import { sdkTransactionKeys } from '../sdk-compat.js'
import { validate } from '../validate.js'
import { cardMovementBody, cardToBankBody, cardToWalletBody, walletToCardBody } from './bodies.js'
import { text, uuid } from './schemas.js'
import { listTransactionsAnswer, oneTransactionAnswer, showTransactionAnswer } from './answers.js'

/** A slug or a client reference: client references are free text, so no UUID check here. */
const transactionParam = z.object({ reference: text() })

export const transactionsQuery = pageQuery.extend({ card_reference: uuid().optional() })

/** SPEC §2.5: a merchant name on card-to-bank responses; `false` on wallet transfers and lists. */
function merchantJson(t: Transaction, p: Presenting, view: 'create' | 'list') {
  if (!p.quirks) return t.merchant
  return view === 'create' && t.merchant !== null ? t.merchant : false
}

export function transactionJson(
  t: Transaction,
  p: Presenting,
  view: 'create' | 'list',
  kindShown: string = t.kind,
) {
  return {
    slug: t.slug,
    card_reference: t.cardReference,
    reference: t.reference,
    status: t.status,
    kind: kindShown,
    merchant: merchantJson(t, p, view),
    amount: t.amount,
    ...(t.kind === 'card_to_bank' && {
      bank_name: t.bankName,
      bank_id: t.bankId,
      bank_account_name: t.bankAccountName,
    }),
    ...(t.phone !== null && { phone: t.phone, network: t.network }),
    created_at: createdAtJson(t.createdAt, p),
  }
}

const TRANSFER_INITIATED = 'Transaction initiated successfully'

/** Each route's declaration (route-meta.ts): the handler answers 200 with its `message`. */
const meta = {
  create: {
    auth: 'bearer',
    summary: 'Top up, withdraw from or transfer between cards',
    answer: oneTransactionAnswer,
    message: 'OK',
  },
  cardToBank: {
    auth: 'bearer',
    summary: 'Card to bank account',
    answer: oneTransactionAnswer,
    message: TRANSFER_INITIATED,
  },
  cardToWallet: {
    auth: 'bearer',
    summary: 'Card to wallet',
    answer: oneTransactionAnswer,
    message: TRANSFER_INITIATED,
  },
  walletToCard: {
    auth: 'bearer',
    summary: 'Wallet to card',
    answer: oneTransactionAnswer,
    message: TRANSFER_INITIATED,
  },
  list: {
    auth: 'bearer',
    summary: 'List transactions on card',
    answer: listTransactionsAnswer,
    message: 'Transactions fetched successfully',
  },
  show: {
    auth: 'bearer',
    summary: 'Show transaction (by slug or client reference)',
    answer: showTransactionAnswer,
    message: 'OK',
  },
} satisfies Record<string, RouteMeta>

export const transactionsApi = new Hono<AppEnv>()
  .post('/create', describeRoute(meta.create), validate('json', cardMovementBody), async (c) => {
    const body = c.req.valid('json')
    const transaction = await createCardMovement(c.get('ctx'), {
      action: body.action,
      amount: body.amount,
      cardReference: body.card_reference,
      receiverCardReference: body.receiver_card_reference,
      reference: body.reference ?? body.slug,
    })
    return ok(c, meta.create.message, {
      data: { transaction: transactionJson(transaction, presenting(c), 'create') },
    })
  })
  .post(
    '/create/card-to-bank',
    describeRoute(meta.cardToBank),
    validate('json', cardToBankBody),
    async (c) => {
      const body = c.req.valid('json')
      const transaction = await cardToBank(c.get('ctx'), {
        amount: body.amount,
        cardReference: body.card_reference,
        reference: body.reference,
        bankId: body.bank_id,
        bankName: body.bank_name,
        bankAccountName: body.bank_account_name,
        description: body.description,
      })
      return ok(c, meta.cardToBank.message, {
        data: { transaction: transactionJson(transaction, presenting(c), 'create') },
      })
    },
  )
  .post(
    '/create/card-to-wallet',
    describeRoute(meta.cardToWallet),
    validate('json', cardToWalletBody),
    async (c) => {
      const body = c.req.valid('json')
      const transaction = await cardToWallet(c.get('ctx'), {
        amount: body.amount,
        cardReference: body.card_reference,
        reference: body.reference,
        phone: body.phone,
        network: body.network,
      })
      return ok(c, meta.cardToWallet.message, {
        data: { transaction: transactionJson(transaction, presenting(c), 'create') },
      })
    },
  )
  .post(
    '/create/wallet-to-card',
    describeRoute(meta.walletToCard),
    validate('json', walletToCardBody),
    async (c) => {
      const body = c.req.valid('json')
      const transaction = await walletToCard(c.get('ctx'), {
        amount: body.amount,
        cardReference: body.card_reference,
        reference: body.reference,
        phone: body.phone,
        network: body.network,
        code: body.code,
      })
      const p = presenting(c)
      // SPEC §4.4: the wallet-to-card example answers with kind card_to_wallet.
      const kind = p.quirks ? 'card_to_wallet' : transaction.kind
      return ok(c, meta.walletToCard.message, {
        data: { transaction: transactionJson(transaction, p, 'create', kind) },
      })
    },
  )
  .get('/', describeRoute(meta.list), validate('query', transactionsQuery), (c) => {
    const query = c.req.valid('query')
    const asked = toPage(query)
    const key = `transactions ${asked.page} ${asked.perPage} ${query.card_reference ?? ''}`
    return okList(c, key, meta.list.message, async () => {
      const p = presenting(c)
      const page = await listTransactions(c.get('ctx'), asked, query.card_reference)
      return {
        data: { transaction: page.rows.map((t) => transactionJson(t, p, 'list')) },
        meta: pageMeta(page),
      }
    })
  })
  .get('/:reference', describeRoute(meta.show), validate('param', transactionParam), async (c) => {
    const transaction = await showTransaction(c.get('ctx'), c.req.valid('param').reference)
    const p = presenting(c)
    const json = transactionJson(transaction, p, 'create')
    // docs "show transaction": `transaction` beside `message`, outside SPEC's `data` envelope
    if (!p.quirks) return ok(c, meta.show.message, { data: { transaction: json } })
    return ok(c, meta.show.message, { transaction: json, ...sdkTransactionKeys(json, p) })
  })
