/**
 * /v1/disburses (SPEC §4.6). `meta` is `{wallet_url}` on create and `[]` in list and show with
 * quirks on (PRODUCT §2); `partner_reference` is on the create response only.
 */
import { Hono } from 'hono'
import { z } from 'zod'
import type { Disburse, Tenant } from '../../db/schema.js'
import {
  DISBURSE_NETWORKS,
  createDisburse,
  findDisburse,
  listDisburses,
} from '../../domain/disburses.js'
import type { AppEnv } from '../../env.js'
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
import { describeRoute } from '../route-meta.js'
import { validate } from '../validate.js'
import { checkoutUrl } from './payments.js'
import { amount, email, evenWithOtherErrors, phone, referenceParam, text } from './schemas.js'

const BANK_FIELDS = ['bank_name', 'bank_id', 'bank_account_name'] as const

/** A bank disburse needs the customer's bank details; a wallet disburse needs their phone. */
export const createDisburseBody = z
  .object({
    amount: amount(),
    network: z.enum(DISBURSE_NETWORKS),
    partner_reference: text().optional(),
    customer: z.object({
      full_name: text(),
      email: email().optional(),
      phone: phone().optional(),
      bank_name: text().optional(),
      bank_id: text().optional(),
      bank_account_name: text().optional(),
    }),
  })
  .superRefine((body, check) => {
    const customer: Record<string, unknown> | null =
      typeof body.customer === 'object' && body.customer !== null && !Array.isArray(body.customer)
        ? body.customer
        : null
    if (!customer || !(DISBURSE_NETWORKS as readonly string[]).includes(body.network)) return
    const needed = body.network === 'bank' ? BANK_FIELDS : (['phone'] as const)
    for (const field of needed) {
      if (customer[field] !== undefined) continue
      check.addIssue({
        code: 'custom',
        path: ['customer', field],
        message: `The customer.${field.replaceAll('_', ' ')} field is required when network is ${body.network}.`,
      })
    }
  }, evenWithOtherErrors)

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

export const disbursesApi = new Hono<AppEnv>()
  .post(
    '/create',
    describeRoute({ auth: 'bearer', summary: 'Create a disburse' }),
    validate('json', createDisburseBody),
    (c) => {
      const body = c.req.valid('json')
      const disburse = createDisburse(c.get('ctx'), {
        amount: body.amount,
        network: body.network,
        partnerReference: body.partner_reference,
        customer: body.customer,
      })
      return ok(c, 'Disburse initiated successfully', {
        data: { disburse: disburseJson(disburse, c.get('tenant'), presenting(c), 'create') },
      })
    },
  )
  .get(
    '/',
    describeRoute({ auth: 'bearer', summary: 'List of disburses' }),
    validate('query', pageQuery),
    (c) => {
      const asked = toPage(c.req.valid('query'))
      const key = `disburses ${asked.page} ${asked.perPage}`
      return okList(c, key, 'Disburses fetched successfully', () => {
        const p = presenting(c)
        const page = listDisburses(c.get('ctx'), asked)
        return {
          data: page.rows.map((disburse) => disburseJson(disburse, c.get('tenant'), p, 'read')),
          meta: pageMeta(page),
        }
      })
    },
  )
  .get(
    '/:reference',
    describeRoute({ auth: 'bearer', summary: 'Show disburse' }),
    validate('param', referenceParam),
    (c) => {
      const disburse = findDisburse(c.get('ctx'), c.req.valid('param').reference)
      return ok(c, 'Disburse fetched successfully', {
        data: disburseJson(disburse, c.get('tenant'), presenting(c), 'read'),
      })
    },
  )
