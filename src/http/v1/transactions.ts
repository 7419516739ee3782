/**
 * /v1/transactions (SPEC §4.4). Quirks on: `merchant` is a string on card-to-bank and `false`
 * elsewhere, `created_at` has microseconds, and the wallet-to-card response says
 * `card_to_wallet` (PRODUCT §2).
 */
import { Hono } from 'hono'
import { z } from 'zod'
import type { Transaction } from '../../db/schema.js'
import { CODE_NETWORKS } from '../../domain/wallet-codes.js'
import {
  WALLET_NETWORKS,
  WALLET_TO_CARD_NETWORKS,
  cardToBank,
  cardToWallet,
  createCardMovement,
  listTransactions,
  showTransaction,
  walletToCard,
} from '../../domain/transactions.js'
import type { AppEnv } from '../../env.js'
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
import { describeRoute } from '../route-meta.js'
import { sdkTransactionKeys } from '../sdk-compat.js'
import { validate } from '../validate.js'
import { amount, evenWithOtherErrors, phone, text, uuid } from './schemas.js'

export const cardToBankBody = z.object({
  amount: amount(),
  card_reference: uuid(),
  reference: text().optional(),
  bank_id: text(),
  bank_name: text(),
  bank_account_name: text().optional(),
  description: text(1000).optional(),
})

export const cardToWalletBody = z.object({
  amount: amount(),
  card_reference: uuid(),
  reference: text().optional(),
  phone: phone(),
  network: z.enum(WALLET_NETWORKS),
})

/**
 * Docs "topup or withdraw card": the newer page's body, and the older one's `slug` as another
 * name of the client `reference`.
 */
export const cardMovementBody = z.object({
  action: z.enum(['recharge', 'withdraw', 'transfer']),
  amount: amount(),
  card_reference: uuid(),
  receiver_card_reference: uuid().optional(),
  reference: text().optional(),
  slug: text().optional(),
})

export const walletToCardBody = z
  .object({
    amount: amount(),
    card_reference: uuid(),
    reference: text().optional(),
    phone: phone(),
    network: z.enum(WALLET_TO_CARD_NETWORKS),
    code: text(32).optional(),
  })
  .superRefine((body, check) => {
    if (body.code === undefined && (CODE_NETWORKS as readonly string[]).includes(body.network)) {
      check.addIssue({
        code: 'custom',
        path: ['code'],
        message: `The code field is required when network is ${body.network}.`,
      })
    }
  }, evenWithOtherErrors)

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

export const transactionsApi = new Hono<AppEnv>()
  .post(
    '/create',
    describeRoute({ auth: 'bearer', summary: 'Top up, withdraw from or transfer between cards' }),
    validate('json', cardMovementBody),
    (c) => {
      const body = c.req.valid('json')
      const transaction = createCardMovement(c.get('ctx'), {
        action: body.action,
        amount: body.amount,
        cardReference: body.card_reference,
        receiverCardReference: body.receiver_card_reference,
        reference: body.reference ?? body.slug,
      })
      return ok(c, 'OK', {
        data: { transaction: transactionJson(transaction, presenting(c), 'create') },
      })
    },
  )
  .post(
    '/create/card-to-bank',
    describeRoute({ auth: 'bearer', summary: 'Card to bank account' }),
    validate('json', cardToBankBody),
    (c) => {
      const body = c.req.valid('json')
      const transaction = cardToBank(c.get('ctx'), {
        amount: body.amount,
        cardReference: body.card_reference,
        reference: body.reference,
        bankId: body.bank_id,
        bankName: body.bank_name,
        bankAccountName: body.bank_account_name,
        description: body.description,
      })
      return ok(c, TRANSFER_INITIATED, {
        data: { transaction: transactionJson(transaction, presenting(c), 'create') },
      })
    },
  )
  .post(
    '/create/card-to-wallet',
    describeRoute({ auth: 'bearer', summary: 'Card to wallet' }),
    validate('json', cardToWalletBody),
    (c) => {
      const body = c.req.valid('json')
      const transaction = cardToWallet(c.get('ctx'), {
        amount: body.amount,
        cardReference: body.card_reference,
        reference: body.reference,
        phone: body.phone,
        network: body.network,
      })
      return ok(c, TRANSFER_INITIATED, {
        data: { transaction: transactionJson(transaction, presenting(c), 'create') },
      })
    },
  )
  .post(
    '/create/wallet-to-card',
    describeRoute({ auth: 'bearer', summary: 'Wallet to card' }),
    validate('json', walletToCardBody),
    (c) => {
      const body = c.req.valid('json')
      const transaction = walletToCard(c.get('ctx'), {
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
      return ok(c, TRANSFER_INITIATED, {
        data: { transaction: transactionJson(transaction, p, 'create', kind) },
      })
    },
  )
  .get(
    '/',
    describeRoute({ auth: 'bearer', summary: 'List transactions on card' }),
    validate('query', transactionsQuery),
    (c) => {
      const query = c.req.valid('query')
      const asked = toPage(query)
      const key = `transactions ${asked.page} ${asked.perPage} ${query.card_reference ?? ''}`
      return okList(c, key, 'Transactions fetched successfully', () => {
        const p = presenting(c)
        const page = listTransactions(c.get('ctx'), asked, query.card_reference)
        return {
          data: { transaction: page.rows.map((t) => transactionJson(t, p, 'list')) },
          meta: pageMeta(page),
        }
      })
    },
  )
  .get(
    '/:reference',
    describeRoute({ auth: 'bearer', summary: 'Show transaction (by slug or client reference)' }),
    validate('param', transactionParam),
    (c) => {
      const transaction = showTransaction(c.get('ctx'), c.req.valid('param').reference)
      const p = presenting(c)
      const json = transactionJson(transaction, p, 'create')
      // docs "show transaction": `transaction` beside `message`, outside SPEC's `data` envelope
      if (!p.quirks) return ok(c, 'OK', { data: { transaction: json } })
      return ok(c, 'OK', { transaction: json, ...sdkTransactionKeys(json, p) })
    },
  )
