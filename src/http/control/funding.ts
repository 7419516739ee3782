/**
 * Money from outside (PRODUCT §8, §10): fund or withdraw from a card (a `recharge` or `withdraw`
 * transaction already in `success`), read and top up the business float.
 */
import { Hono } from 'hono'
import { z } from 'zod'
import { fundFloat } from '../../domain/business.js'
import { cardBalance, findCard } from '../../domain/cards.js'
import { FLOAT, balanceOf } from '../../domain/ledger.js'
import { fundCard } from '../../domain/transactions.js'
import type { AppEnv } from '../../wiring/env.js'
import { ok, presenting } from '../envelope.js'
import { describeRoute } from '../route-meta.js'
import { validate } from '../validate.js'
import { transactionJson } from '../v1/transactions.js'
import { amount, referenceParam, withExample } from '../v1/schemas.js'

export const amountBody = withExample(z.strictObject({ amount: amount() }), { amount: 50000 })

function cardFunding(kind: 'recharge' | 'withdraw') {
  return new Hono<AppEnv>().post(
    '/',
    describeRoute({
      auth: 'bearer',
      summary: kind === 'recharge' ? 'Fund a card' : 'Withdraw from a card',
    }),
    validate('param', referenceParam),
    validate('json', amountBody),
    async (c) => {
      const ctx = c.get('ctx')
      const transaction = await fundCard(ctx, {
        cardReference: c.req.valid('param').reference,
        amount: c.req.valid('json').amount,
        kind,
      })
      const balance = await cardBalance(ctx, await findCard(ctx, transaction.cardReference))
      return ok(c, kind === 'recharge' ? 'Card funded' : 'Card withdrawn', {
        data: { transaction: transactionJson(transaction, presenting(c), 'list'), balance },
      })
    },
  )
}

export const fundingApi = new Hono<AppEnv>()
  .route('/cards/:reference/fund', cardFunding('recharge'))
  .route('/cards/:reference/withdraw', cardFunding('withdraw'))
  .get(
    '/business',
    describeRoute({ auth: 'bearer', summary: 'Read the business float' }),
    async (c) =>
      ok(c, 'Business account', {
        data: {
          business: c.get('tenant').businessName,
          float_balance: await balanceOf(c.get('ctx'), FLOAT),
        },
      }),
  )
  .post(
    '/business/fund',
    describeRoute({ auth: 'bearer', summary: 'Fund the business float' }),
    validate('json', amountBody),
    async (c) => {
      const floatBalance = await fundFloat(c.get('ctx'), c.req.valid('json').amount)
      return ok(c, 'Float funded', {
        data: { business: c.get('tenant').businessName, float_balance: floatBalance },
      })
    },
  )
