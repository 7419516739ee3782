/**
 * The hosted card-reveal page (docs "get access token card"): `POST /v1/cards/auth/access_token`
 * answers `embedded_ui`, `/__sandbox/card-reveal/{token}`, which shows the card's number, cvv2
 * and expiry: the one page of the sandbox where they appear. Any site may frame it (the client
 * shows it in its own app), styled by the `css_url` given with the token, which the page's
 * Content-Security-Policy allows by origin (security-headers.ts). An unknown token is a 404
 * page, an expired one a 410 page; the token in the path is masked in the journal and the
 * request log (lib/masking.ts).
 */
import { Hono, type Context } from 'hono'
import { html } from 'hono/html'
import type { Card } from '../db/schema.js'
import { findRevealToken, openReveal, type Reveal } from '../domain/card-reveal.js'
import type { AppEnv } from '../wiring/env.js'
import { tenantContext } from '../http/middleware/tenant.js'
import { describeRoute } from '../http/route-meta.js'
import { page, statusBadge, type Html } from './layout.js'

export const cardRevealApi = new Hono<AppEnv>().get(
  '/card-reveal/:token',
  describeRoute({ auth: 'none', summary: 'Card reveal page (embedded_ui of a card access token)' }),
  async (c) => {
    const reveal = await revealOf(c, c.req.param('token'))
    // card details: never kept by a cache
    c.header('Cache-Control', 'no-store')
    if (!reveal) return c.html(messagePage('This card link is not valid.'), 404)
    if (reveal.state === 'expired') {
      return c.html(messagePage('This card link has expired. Ask the app for a new one.'), 410)
    }
    if (reveal.cssUrl) c.set('pageStyleSource', new URL(reveal.cssUrl).origin)
    return c.html(revealPage(reveal.card, reveal.cssUrl ?? undefined))
  },
)

/** The token's page, as its tenant (clock caught up, journal written), or nothing. */
async function revealOf(c: Context<AppEnv>, token: string): Promise<Reveal | undefined> {
  const deps = c.get('deps')
  const row = await findRevealToken(deps.db, token)
  const tenant = row && (await deps.tenants.byId(row.tenantId))
  if (!row || !tenant) return undefined
  const ctx = await tenantContext(deps, tenant)
  c.set('tenant', tenant)
  c.set('ctx', ctx)
  return await openReveal(ctx, row)
}

function revealPage(card: Card, stylesheet: string | undefined) {
  const body = html`<main class="card-reveal" data-status="${card.status}">
    <p class="card-brand">${card.brand} · ${card.type} ${statusBadge(card.status)}</p>
    ${card.cardNumber === null ? notReady() : details(card)}
    <p class="muted">card-sandbox · a test card: no money moves outside the sandbox</p>
  </main>`
  return page('Card details', body, { style: REVEAL_STYLE, stylesheet })
}

function details(card: Card): Html {
  return html`<dl>
    <dt>Card number</dt>
    <dd data-field="card_number">${grouped(card.cardNumber!)}</dd>
    <dt>Expiry</dt>
    <dd data-field="expiry">${card.expiry}</dd>
    <dt>CVV2</dt>
    <dd data-field="cvv2">${card.cvv2}</dd>
  </dl>`
}

function notReady(): Html {
  return html`<p data-field="pending">
    The card is still being generated: its details are not ready yet.
  </p>`
}

/** `4111111111111111` → `4111 1111 1111 1111`. */
function grouped(number: string): string {
  return number.replace(/(\d{4})(?=\d)/g, '$1 ')
}

function messagePage(message: string) {
  return page(
    'Card details',
    html`<main class="card-reveal"><p data-field="message">${message}</p></main>`,
    { style: REVEAL_STYLE },
  )
}

const REVEAL_STYLE = `
.card-reveal { max-width: 380px; margin: 24px auto; padding: 20px; background: #fff;
  border: 1px solid var(--line); border-radius: 12px; }
.card-reveal dl { display: grid; grid-template-columns: auto 1fr; gap: 6px 16px; margin: 12px 0; }
.card-reveal dt { color: var(--muted); } .card-reveal dd { margin: 0; }
[data-field="card_number"] { font: 18px ui-monospace, SFMono-Regular, Menlo, monospace; letter-spacing: 1px; }
`
