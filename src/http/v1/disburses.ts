/**
 * /v1/disburses (SPEC §4.6). `meta` is `{wallet_url}` on create and `[]` in list and show with
 * quirks on (PRODUCT §2); `partner_reference` is on the create response only.
 */
import { Hono } from 'hono'
import type { Disburse, Tenant } from '../../db/schema.js'
import { createDisburse, findDisburse, listDisburses } from '../../domain/disburses.js'
import type { AppEnv } from '../../wiring/env.js'
import {
  expiredAtJson,
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
import { createDisburseBody } from './bodies.js'
import { checkoutUrl } from './payments.js'
import { referenceParam } from './schemas.js'
import { createDisburseAnswer, listDisbursesAnswer, showDisburseAnswer } from './answers.js'

export function disburseJson(
  disburse: Disburse,
  tenant: Tenant,
  p: Presenting,
  view: 'create' | 'read',
) {
  return {
    business: tenant.businessName,
    customer: {
      full_name: disburse.customerFullName,
      email: disburse.customerEmail,
      phone: disburse.customerPhone,
      bank_name: disburse.customerBankName,
      bank_id: disburse.customerBankId,
      bank_account_name: disburse.customerBankAccountName,
    },
    slug: disburse.slug,
    reference: disburse.reference,
    kind: 'disburse',
    network: disburse.network,
    ...(view === 'create' && { partner_reference: disburse.partnerReference }),
    amount: disburse.amount,
    status: disburse.status,
    expired_at: expiredAtJson(disburse.expiredAt),
    meta: p.quirks && view === 'read' ? [] : { wallet_url: checkoutUrl(p, disburse.reference) },
  }
}

/** Each route's declaration (route-meta.ts): the handler answers 200 with its `message`. */
const meta = {
  create: {
    auth: 'bearer',
    summary: 'Create a disburse',
    answer: createDisburseAnswer,
    message: 'Disburse initiated successfully',
  },
  list: {
    auth: 'bearer',
    summary: 'List of disburses',
    answer: listDisbursesAnswer,
    message: 'Disburses fetched successfully',
  },
  show: {
    auth: 'bearer',
    summary: 'Show disburse',
    answer: showDisburseAnswer,
    message: 'Disburse fetched successfully',
  },
} satisfies Record<string, RouteMeta>

export const disbursesApi = new Hono<AppEnv>()
  .post('/create', describeRoute(meta.create), validate('json', createDisburseBody), async (c) => {
    const body = c.req.valid('json')
    const disburse = await createDisburse(c.get('ctx'), {
      amount: body.amount,
      network: body.network,
      partnerReference: body.partner_reference,
      customer: body.customer,
    })
    return ok(c, meta.create.message, {
      data: { disburse: disburseJson(disburse, c.get('tenant'), presenting(c), 'create') },
    })
  })
  .get('/', describeRoute(meta.list), validate('query', pageQuery), (c) => {
    const asked = toPage(c.req.valid('query'))
    const key = `disburses ${asked.page} ${asked.perPage}`
    return okList(c, key, meta.list.message, async () => {
      const p = presenting(c)
      const page = await listDisburses(c.get('ctx'), asked)
      return {
        data: page.rows.map((disburse) => disburseJson(disburse, c.get('tenant'), p, 'read')),
        meta: pageMeta(page),
      }
    })
  })
  .get('/:reference', describeRoute(meta.show), validate('param', referenceParam), async (c) => {
    const disburse = await findDisburse(c.get('ctx'), c.req.valid('param').reference)
    return ok(c, meta.show.message, {
      data: disburseJson(disburse, c.get('tenant'), presenting(c), 'read'),
    })
  })
