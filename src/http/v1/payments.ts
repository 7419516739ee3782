/**
 * /v1/payments (SPEC §4.7). Quirks on: the create response says `kind: "disburse"` and carries
 * `meta: {wallet_url}`, while list and show say `payment` and `meta: []` (PRODUCT §2).
 * `wallet_url` opens this sandbox's checkout page for the payment.
 */
import { Hono } from 'hono'
import type { Payment, Tenant } from '../../db/schema.js'
import { createPayment, findPayment, listPayments } from '../../domain/payments.js'
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
import { createPaymentBody } from './bodies.js'
import { referenceParam } from './schemas.js'
import { createPaymentAnswer, listPaymentsAnswer, showPaymentAnswer } from './answers.js'

type View = 'create' | 'read'

export function checkoutUrl(p: Presenting, reference: string): string {
  return `${p.origin}/__sandbox/checkout/${reference}`
}

export function paymentJson(payment: Payment, tenant: Tenant, p: Presenting, view: View) {
  const walletUrl = { wallet_url: checkoutUrl(p, payment.reference) }
  return {
    business: tenant.businessName,
    customer: {
      full_name: payment.customerFullName,
      email: payment.customerEmail,
      phone: payment.customerPhone,
    },
    slug: payment.slug,
    reference: payment.reference,
    kind: p.quirks && view === 'create' ? 'disburse' : 'payment',
    network: payment.network,
    ...(view === 'create' && { partner_reference: payment.partnerReference }),
    amount: payment.amount,
    status: payment.status,
    expired_at: expiredAtJson(payment.expiredAt),
    meta: p.quirks && view === 'read' ? [] : walletUrl,
  }
}

/** Each route's declaration (route-meta.ts): the handler answers 200 with its `message`. */
const meta = {
  create: {
    auth: 'bearer',
    summary: 'Create a payment',
    answer: createPaymentAnswer,
    message: 'Payment initiated successfully',
  },
  list: {
    auth: 'bearer',
    summary: 'List payments',
    answer: listPaymentsAnswer,
    message: 'Payments fetched successfully',
  },
  show: {
    auth: 'bearer',
    summary: 'Show payment',
    answer: showPaymentAnswer,
    message: 'Payment fetched successfully',
  },
} satisfies Record<string, RouteMeta>

export const paymentsApi = new Hono<AppEnv>()
  .post('/create', describeRoute(meta.create), validate('json', createPaymentBody), async (c) => {
    const body = c.req.valid('json')
    const payment = await createPayment(c.get('ctx'), {
      amount: body.amount,
      network: body.network,
      partnerReference: body.partner_reference,
      customer: body.customer,
    })
    const p = presenting(c)
    const json = paymentJson(payment, c.get('tenant'), p, 'create')
    // The schema puts `payment` beside `message`; the example (quirks on) under `data`.
    return ok(c, meta.create.message, p.quirks ? { data: { payment: json } } : { payment: json })
  })
  .get('/', describeRoute(meta.list), validate('query', pageQuery), (c) => {
    const asked = toPage(c.req.valid('query'))
    const key = `payments ${asked.page} ${asked.perPage}`
    return okList(c, key, meta.list.message, async () => {
      const p = presenting(c)
      const page = await listPayments(c.get('ctx'), asked)
      return {
        data: page.rows.map((payment) => paymentJson(payment, c.get('tenant'), p, 'read')),
        meta: pageMeta(page),
      }
    })
  })
  .get('/:reference', describeRoute(meta.show), validate('param', referenceParam), async (c) => {
    const payment = await findPayment(c.get('ctx'), c.req.valid('param').reference)
    return ok(c, meta.show.message, {
      data: paymentJson(payment, c.get('tenant'), presenting(c), 'read'),
    })
  })
