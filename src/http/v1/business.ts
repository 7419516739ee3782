/**
 * /v1/business (SPEC §4.8): the business account's float operations, newest first; and its
 * balance (`/balances`: only the PHP SDK calls it, with no docs page; the shape is our guess).
 */
import { Hono } from 'hono'
import type { BusinessOperation } from '../../db/schema.js'
import { listOperations } from '../../domain/business.js'
import { FLOAT, balanceOf } from '../../domain/ledger.js'
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
import { describeRoute } from '../route-meta.js'
import { validate } from '../validate.js'
import { businessBalancesAnswer, listBusinessOperationsAnswer } from './answers.js'

export function operationJson(operation: BusinessOperation, p: Presenting) {
  return {
    amount: operation.amount,
    fees: operation.fees,
    description: operation.description,
    type: operation.type,
    kind: operation.kind,
    bank_name: operation.bankName,
    bank_id: operation.bankId,
    bank_account_name: operation.bankAccountName,
    status: operation.status,
    created_at: createdAtJson(operation.createdAt, p),
  }
}

export const businessApi = new Hono<AppEnv>()
  .get(
    '/balances',
    describeRoute({
      auth: 'bearer',
      summary: 'Business balances (shape guessed: no docs page)',
      answer: businessBalancesAnswer,
    }),
    async (c) =>
      ok(c, 'Business balances fetched successfully', {
        data: { balance: await balanceOf(c.get('ctx'), FLOAT) },
      }),
  )
  .get(
    '/operations',
    describeRoute({
      auth: 'bearer',
      summary: 'List business operations',
      answer: listBusinessOperationsAnswer,
    }),
    validate('query', pageQuery),
    (c) => {
      const asked = toPage(c.req.valid('query'))
      const key = `operations ${asked.page} ${asked.perPage}`
      return okList(c, key, 'Business operations fetched successfully', async () => {
        const p = presenting(c)
        const page = await listOperations(c.get('ctx'), asked)
        return {
          data: page.rows.map((operation) => operationJson(operation, p)),
          meta: pageMeta(page),
        }
      })
    },
  )
