/**
 * The checkout page a payment's `wallet_url` opens (PRODUCT §8): `/__sandbox/checkout/{reference}`
 * shows what is asked and who asks, and the person pays or declines; the payment then succeeds
 * or fails exactly as through the control plane (balances, float, webhooks). A disburse's
 * wallet_url opens the same page, where its customer confirms or refuses the money.
 */
import { Hono } from 'hono'
import { html } from 'hono/html'
import { z } from 'zod'
import type { Disburse, Payment } from '../db/schema.js'
import type { DomainContext } from '../domain/context.js'
import { findDisburse } from '../domain/disburses.js'
import { notFound } from '../domain/errors.js'
import { answerCheckout, type CheckoutKind } from '../domain/hosted-pages.js'
import { findPayment } from '../domain/payments.js'
import type { AppEnv } from '../wiring/env.js'
import { ok } from '../http/envelope.js'
import { describeRoute } from '../http/route-meta.js'
import { validate } from '../http/validate.js'
import { withExample } from '../http/v1/schemas.js'
import { money, page, statusBadge } from './layout.js'
import { actAsOwner } from './owner.js'

export const checkoutBody = withExample(z.object({ answer: z.enum(['pay', 'decline']) }), {
  answer: 'pay',
})

const referenceParam = z.object({ reference: z.uuid() })

type Checkout = { kind: CheckoutKind; ctx: DomainContext; item: Payment | Disburse }

const CHECKOUT_KINDS = ['payments', 'disburses'] as const

async function checkoutOf(
  c: Parameters<typeof actAsOwner>[0],
  reference: string,
): Promise<Checkout | undefined> {
  const owner = await actAsOwner(c, CHECKOUT_KINDS, reference)
  if (!owner) return undefined
  const { kind, ctx } = owner
  const item =
    kind === 'payments'
      ? await findPayment(ctx, reference)
      : await findDisburse(ctx, reference, 'reference')
  return { kind, ctx, item }
}

export const checkoutApi = new Hono<AppEnv>()
  .get(
    '/checkout/:reference',
    describeRoute({ auth: 'none', summary: 'Payment page' }),
    async (c) => {
      const checkout = await checkoutOf(c, c.req.param('reference'))
      return c.html(checkoutPage(checkout), checkout ? 200 : 404)
    },
  )
  .post(
    '/checkout/:reference',
    describeRoute({ auth: 'none', summary: 'Pay or decline on the checkout page' }),
    validate('param', referenceParam),
    validate('json', checkoutBody),
    async (c) => {
      const { reference } = c.req.valid('param')
      const checkout = await checkoutOf(c, reference)
      if (!checkout) throw notFound('reference', 'payment', reference)
      const moved = await answerCheckout(
        checkout.ctx,
        checkout.kind,
        reference,
        c.req.valid('json').answer,
      )
      c.get('deps').deliverer.kick()
      return ok(c, moved.to === 'success' ? 'Paid' : 'Declined', {
        data: { reference, status: moved.to },
      })
    },
  )

function checkoutPage(checkout: Checkout | undefined) {
  const body = checkout
    ? checkoutCard(checkout)
    : html`<main class="checkout">
        <h1>Checkout</h1>
        <p>No payment has this reference.</p>
      </main>`
  return page('Checkout', body, { style: CHECKOUT_STYLE, script: CHECKOUT_SCRIPT })
}

function checkoutCard({ kind, ctx, item }: Checkout) {
  const isPayment = kind === 'payments'
  return html`<main class="checkout" data-reference="${item.reference}">
    <p class="muted">card-sandbox · test mode: no money moves outside the sandbox</p>
    <h1>
      ${isPayment ? `Pay ${ctx.tenant.businessName}` : `Receive from ${ctx.tenant.businessName}`}
    </h1>
    <p class="amount">${money(item.amount)}</p>
    <dl>
      <dt>Network</dt>
      <dd>${item.network}</dd>
      <dt>${isPayment ? 'Payer' : 'Beneficiary'}</dt>
      <dd>${item.customerFullName} · ${item.customerPhone}</dd>
      <dt>Reference</dt>
      <dd><code>${item.partnerReference}</code></dd>
      <dt>Status</dt>
      <dd data-status>${statusBadge(item.status)}</dd>
    </dl>
    ${
      item.status === 'pending' || item.status === 'processing'
        ? html`<div class="actions">
            <button type="button" data-answer="decline" class="danger">Decline</button>
            <button type="button" data-answer="pay" class="primary">
              ${isPayment ? 'Pay' : 'Accept'} ${money(item.amount)}
            </button>
          </div>`
        : ''
    }
    <p data-result class="muted"></p>
  </main>`
}

const CHECKOUT_STYLE = `
/* 16 px clear of each edge on a phone */
.checkout { width: calc(100% - 32px); max-width: 420px; margin: 40px auto; padding: 24px; background: #fff;
  border-radius: 12px; border: 1px solid var(--line); }
.amount { font-size: 28px; font-weight: 600; margin: 8px 0 16px; }
dl { display: grid; grid-template-columns: auto 1fr; gap: 6px 16px; margin: 0 0 20px; }
dt { color: var(--muted); } dd { margin: 0; min-width: 0; overflow-wrap: anywhere; }
.actions { display: flex; flex-wrap: wrap; gap: 8px; justify-content: flex-end; }
@media (max-width: 460px) { .checkout { margin-top: 16px; padding: 20px 16px; } }
.actions button { padding: 8px 16px; }
`

export const CHECKOUT_SCRIPT = `
(function () {
  var main = document.querySelector('main.checkout')
  document.querySelectorAll('[data-answer]').forEach(function (button) {
    button.addEventListener('click', function () {
      document.querySelectorAll('[data-answer]').forEach(function (b) { b.disabled = true })
      fetch(location.pathname, { method: 'POST', headers: { 'Content-Type': 'application/json' },
        body: JSON.stringify({ answer: button.dataset.answer }) })
        .then(function (res) { return res.json() })
        .then(function (json) {
          var status = json.data ? json.data.status : 'error'
          main.querySelector('[data-status]').innerHTML = '<span class="status status-' + status + '">' + status + '</span>'
          main.querySelector('[data-result]').textContent = json.message
          var actions = main.querySelector('.actions')
          if (json.data && actions) actions.remove()
          else document.querySelectorAll('[data-answer]').forEach(function (b) { b.disabled = false })
        })
    })
  })
})()
`
