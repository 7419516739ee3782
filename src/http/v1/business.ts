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
import { describeRoute, type RouteMeta } from '../route-meta.js'
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

/** Each route's declaration (route-meta.ts): the handler answers 200 with its `message`. */
const meta = {
  balances: {
    auth: 'bearer',
    summary: 'Business balances (shape guessed: no docs page)',
    answer: businessBalancesAnswer,
    message: 'Business balances fetched successfully',
  },
  operations: {
    auth: 'bearer',
    summary: 'List business operations',
    answer: listBusinessOperationsAnswer,
    message: 'Business operations fetched successfully',
  },
} satisfies Record<string, RouteMeta>

export const businessApi = new Hono<AppEnv>()
  .get('/balances', describeRoute(meta.balances), async (c) =>
    ok(c, meta.balances.message, {
      data: { balance: await balanceOf(c.get('ctx'), FLOAT) },
    }),
  )
  .get('/operations', describeRoute(meta.operations), validate('query', pageQuery), (c) => {
    const asked = toPage(c.req.valid('query'))
    const key = `operations ${asked.page} ${asked.perPage}`
    return okList(c, key, meta.operations.message, async () => {
      const p = presenting(c)
      const page = await listOperations(c.get('ctx'), asked)
      return {
        data: page.rows.map((operation) => operationJson(operation, p)),
        meta: pageMeta(page),
      }
    })
  })
