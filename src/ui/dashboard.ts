/**
 * The dashboard (PRODUCT §8): `/__sandbox/ui` is a public shell where a person opens a tenant by
 * pasting its token (no tenant's data in it, tokens masked); `/__sandbox/ui/panel`, fetched by
 * the page with that tenant's bearer token every second, renders everything it owns on the
 * server — card users, cards, transactions, payments, disburses, disputes, business operations,
 * webhooks with their bodies and attempts, the request journal, the clock — with a button for
 * every move its state machines allow and the other control-plane actions. Buttons call the
 * control plane itself (the page's script sends the same requests a test would). Tokens, card
 * numbers and cvv2 show masked (masking.ts).
 */
import { Hono } from 'hono'
import { html } from 'hono/html'
import { listOperations } from '../domain/business.js'
import { cardBalances, listCards } from '../domain/cards.js'
import { listCardUsers } from '../domain/card-users.js'
import { listPage, type DomainContext, type Page } from '../domain/context.js'
import { listDisburses } from '../domain/disburses.js'
import { allowedMoves } from '../domain/lifecycles.js'
import { FLOAT, balanceOf } from '../domain/ledger.js'
import { listPayments } from '../domain/payments.js'
import { listTransactions } from '../domain/transactions.js'
import { TRANSITION_RESOURCES, type TransitionResource } from '../domain/transitions.js'
import { disputes } from '../db/schema.js'
import type { AppEnv } from '../env.js'
import { webhookLog } from '../http/control/webhooks.js'
import { parsedBody, type JournalEntry } from '../http/journal.js'
import { auth } from '../http/middleware/auth.js'
import { describeRoute } from '../http/route-meta.js'
import { maskToken } from '../masking.js'
import { money, page, statusBadge, type Html } from './layout.js'

/** Rows shown per table: the newest. */
const ROWS = 25

export const dashboardApi = new Hono<AppEnv>()
  .get('/ui', describeRoute({ auth: 'none', summary: 'Dashboard' }), (c) =>
    c.html(shell(c.get('deps').tenants.all())),
  )
  .get(
    '/ui/panel',
    describeRoute({ auth: 'bearer', summary: "Dashboard panel of the token's tenant (HTML)" }),
    auth(),
    (c) => {
      const { journal } = c.get('deps')
      const ctx = c.get('ctx')
      return c.html(panel(ctx, journal.find(ctx.tenant.id).slice(0, ROWS)))
    },
  )

type KnownTenant = { token: string; businessName: string }

/**
 * The public page: no tenant's data, tokens masked. A person opens a tenant by pasting its
 * token; the page's script keeps it in sessionStorage (this tab only, never sent by the browser
 * on its own, so no other site can make use of it) and sends it as the Authorization header.
 * The token field has no name: even without the script, a submit puts nothing in the URL.
 */
function shell(known: KnownTenant[]) {
  const body = html`<header class="top">
      <h1>card-sandbox</h1>
      <form id="open-tenant" class="picker" autocomplete="off">
        <label
          >Tenant token
          <input
            id="token"
            type="password"
            placeholder="paste a bearer token"
            spellcheck="false"
            required
          />
        </label>
        <button type="submit" class="primary">Open</button>
      </form>
      <button type="button" id="close-tenant" hidden>Close tenant</button>
      <a href="/__sandbox/docs">API reference</a>
    </header>
    <div id="toast" role="status" hidden></div>
    <main id="welcome">
      <p>
        Paste the bearer token of the tenant to open: each token your app sends is its own business.
        The token stays in this browser tab and travels only in the Authorization header.
      </p>
      ${
        known.length
          ? html`<section class="table" data-section="Tenants">
              <h2>Tenants seen so far <span class="muted">${known.length}</span></h2>
              <table>
                <thead>
                  <tr>
                    <th>token</th>
                    <th>business</th>
                  </tr>
                </thead>
                <tbody>
                  ${known.map(
                    (t) =>
                      html`<tr>
                        <td><code>${maskToken(t.token)}</code></td>
                        <td>${t.businessName}</td>
                      </tr>`,
                  )}
                </tbody>
              </table>
            </section>`
          : html`<p class="muted">
              No tenant yet: the first request with a bearer token makes one.
            </p>`
      }
    </main>
    <main id="panel" hidden></main>`
  return page('card-sandbox dashboard', body, { style: DASHBOARD_STYLE, script: DASHBOARD_SCRIPT })
}

function panel(ctx: DomainContext, journal: JournalEntry[]) {
  const first = { page: 1, perPage: ROWS }
  return html`${tenantHeader(ctx)}
    <div class="grid">
      ${section(
        'Card users',
        ['reference', 'name', 'phone', 'flow', 'status', ''],
        listCardUsers(ctx, first).rows.map((u) =>
          row('card-users', u.reference, u.status, [
            ref(u.reference),
            [u.firstName, u.lastName].filter(Boolean).join(' ') ||
              html`<span class="muted">—</span>`,
            u.phone,
            u.flow,
          ]),
        ),
      )}
      ${section(
        'Cards',
        ['reference', 'card', 'number', 'balance', 'status', ''],
        cardsWithBalances(ctx, first).map(({ card, balance }) =>
          row(
            'cards',
            card.reference,
            card.status,
            [
              ref(card.reference),
              `${card.brand} ${card.type}`,
              card.cardNumber ? `•••• ${card.cardNumber.slice(-4)}` : '—',
              money(balance),
            ],
            card.status === 'issued' || card.status === 'frozen'
              ? callForm(`POST /__sandbox/cards/${card.reference}/fund`, 'Fund', [
                  html`<input
                    name="amount"
                    type="number"
                    min="1"
                    value="10000"
                    aria-label="amount"
                  />`,
                ])
              : '',
          ),
        ),
      )}
      ${section(
        'Transactions',
        ['slug', 'kind', 'card', 'amount', 'status', ''],
        listTransactions(ctx, first).rows.map((t) =>
          row('transactions', t.slug, t.status, [
            ref(t.slug),
            t.kind,
            ref(t.cardReference),
            money(t.amount),
          ]),
        ),
      )}
      ${section(
        'Payments',
        ['reference', 'partner reference', 'network', 'amount', 'status', ''],
        listPayments(ctx, first).rows.map((p) =>
          row(
            'payments',
            p.reference,
            p.status,
            [ref(p.reference), p.partnerReference, p.network, money(p.amount)],
            html`<a href="/__sandbox/checkout/${p.reference}" target="_blank">checkout</a>`,
          ),
        ),
      )}
      ${section(
        'Disburses',
        ['reference', 'partner reference', 'network', 'amount', 'status', ''],
        listDisburses(ctx, first).rows.map((d) =>
          row('disburses', d.reference, d.status, [
            ref(d.reference),
            d.partnerReference,
            d.network,
            money(d.amount),
          ]),
        ),
      )}
      ${section(
        'Disputes',
        ['reference', 'transaction', 'reason', 'status', ''],
        listPage(ctx, disputes, first).rows.map((d) =>
          row('disputes', d.reference, d.status, [
            ref(d.reference),
            ref(d.transactionSlug),
            d.reason,
          ]),
        ),
      )}
      ${section(
        'Business operations',
        ['reference', 'kind', 'amount', 'fees', 'status', ''],
        listOperations(ctx, first).rows.map(
          (o) =>
            html`<tr data-reference="${o.reference}">
              <td>${ref(o.reference)}</td>
              <td>${o.kind}</td>
              <td>${money(o.amount)}</td>
              <td>${money(o.fees)}</td>
              <td>${statusBadge(o.status)}</td>
              <td></td>
            </tr>`,
        ),
      )}
    </div>
    ${webhooksSection(ctx)} ${journalSection(journal)}`
}

function cardsWithBalances(ctx: DomainContext, page: Page) {
  const cards = listCards(ctx, page).rows
  const balances = cardBalances(ctx, cards)
  return cards.map((card) => ({ card, balance: balances.get(card.reference)! }))
}

function tenantHeader(ctx: DomainContext) {
  const { tenant, now } = ctx
  return html`<section class="tenant">
    <div>
      <h2>${tenant.businessName}</h2>
      <p class="muted">
        token <code>${maskToken(tenant.token)}</code> · float ${money(balanceOf(ctx, FLOAT))} ·
        webhooks →
        <code>${tenant.webhookUrl ?? 'sandbox default'}</code>
      </p>
    </div>
    <div class="clock">
      <p>
        <strong data-clock>${new Date(now).toISOString()}</strong>
        <span class="status">${tenant.clockMode} clock</span>
      </p>
      ${callForm('POST /__sandbox/clock/advance', 'Advance', [
        html`<input name="by" value="15m" size="6" aria-label="advance by" />`,
      ])}
      ${call(
        'PUT /__sandbox/clock',
        tenant.clockMode === 'manual' ? 'Run in real time' : 'Stop (manual)',
        { mode: tenant.clockMode === 'manual' ? 'real' : 'manual' },
      )}
      ${call('POST /__sandbox/reset', 'Reset tenant', undefined, 'danger')}
    </div>
  </section>`
}

function section(title: string, columns: string[], rows: Html[]) {
  return html`<section class="table" data-section="${title}">
    <h2>${title} <span class="muted">${rows.length}</span></h2>
    ${
      rows.length
        ? html`<table>
            <thead>
              <tr>
                ${columns.map((c) => html`<th>${c}</th>`)}
              </tr>
            </thead>
            <tbody>
              ${rows}
            </tbody>
          </table>`
        : html`<p class="muted">None yet.</p>`
    }
  </section>`
}

/** A resource row: its cells, its status, and one button per move its state machine allows. */
function row(
  segment: TransitionResource,
  key: string,
  status: string,
  cells: (string | Html)[],
  extra: Html | string = '',
) {
  const moves = allowedMoves(TRANSITION_RESOURCES[segment], status)
  return html`<tr data-reference="${key}">
    ${cells.map((cell) => html`<td>${cell}</td>`)}
    <td>${statusBadge(status)}</td>
    <td class="actions">
      ${moves.map((to) =>
        call(`POST /__sandbox/${segment}/${key}/transition`, `→ ${to}`, { to }, `move-${to}`),
      )}
      ${extra}
    </td>
  </tr>`
}

function webhooksSection(ctx: DomainContext) {
  const log = webhookLog(ctx, { per_page: ROWS })
  return html`<section class="table" data-section="Webhooks">
    <h2>Webhooks <span class="muted">${log.meta.total}</span></h2>
    ${
      log.data.length
        ? html`<table>
            <thead>
              <tr>
                <th>event</th>
                <th>type</th>
                <th>status</th>
                <th>attempts</th>
                <th></th>
              </tr>
            </thead>
            <tbody>
              ${log.data.map(
                (event) =>
                  html`<tr data-event="${event.id}">
                    <td><code>${event.id}</code></td>
                    <td>
                      <details>
                        <summary>${event.type}</summary>
                        <pre>${pretty(event.body)}</pre>
                      </details>
                    </td>
                    <td>${statusBadge(event.status)}</td>
                    <td>
                      ${
                        event.attempts.length
                          ? html`<ol class="attempts">
                              ${event.attempts.map(
                                (a) =>
                                  html`<li>
                                    ${a.at.slice(11, 19)} ·
                                    ${a.status_code ?? a.error ?? 'no answer'} · ${a.latency_ms} ms
                                  </li>`,
                              )}
                            </ol>`
                          : html`<span class="muted">none yet</span>`
                      }
                    </td>
                    <td class="actions">
                      ${call(`POST /__sandbox/webhooks/${event.id}/replay`, 'Replay')}
                    </td>
                  </tr>`,
              )}
            </tbody>
          </table>`
        : html`<p class="muted">No events yet.</p>`
    }
  </section>`
}

function journalSection(entries: JournalEntry[]) {
  return html`<section class="table" data-section="Requests">
    <h2>Requests <span class="muted">newest ${entries.length}</span></h2>
    ${
      entries.length
        ? html`<table>
            <tbody>
              ${entries.map(
                (e) =>
                  html`<tr data-request="${e.id}">
                    <td>${new Date(e.at).toISOString().slice(11, 19)}</td>
                    <td><code>${e.method}</code></td>
                    <td>
                      <details>
                        <summary><code>${e.path}${e.query}</code></summary>
                        <pre>${pretty(e.requestBody)}</pre>
                        <pre>${pretty(e.responseBody)}</pre>
                      </details>
                    </td>
                    <td>${statusBadge(String(e.status))}</td>
                    <td class="muted">${e.latencyMs} ms</td>
                  </tr>`,
              )}
            </tbody>
          </table>`
        : html`<p class="muted">No requests yet.</p>`
    }
  </section>`
}

/** A stored body, indented when it parses back as JSON (parsedBody, http/journal.ts), else as it came. */
function pretty(text: string | null): string {
  if (text === null) return '(no body)'
  const body = parsedBody(text)
  return typeof body === 'string' ? body : JSON.stringify(body, null, 2)
}

function ref(reference: string) {
  return html`<code title="${reference}">${reference.slice(0, 8)}</code>`
}

/** A button that sends `METHOD path` with a JSON body, with the tenant's token. */
function call(route: string, label: string, body?: unknown, className = '') {
  return html`<button
    type="button"
    class="${className}"
    data-call="${route}"
    data-body="${body === undefined ? '' : JSON.stringify(body)}"
  >
    ${label}
  </button>`
}

/** A small form whose fields (numbers as numbers) are the JSON body of `METHOD path`. */
function callForm(route: string, label: string, fields: Html[]) {
  return html`<form class="inline" data-call="${route}">
    ${fields}<button type="submit">${label}</button>
  </form>`
}

const DASHBOARD_STYLE = `
.top { display: flex; gap: 16px; align-items: center; padding: 12px 20px; background: #fff;
  border-bottom: 1px solid var(--line); flex-wrap: wrap; }
.top h1 { margin: 0 12px 0 0; }
.picker { display: flex; gap: 6px; align-items: center; }
main { padding: 16px 20px; }
.tenant { display: flex; justify-content: space-between; gap: 16px; flex-wrap: wrap; background: #fff;
  border: 1px solid var(--line); border-radius: 10px; padding: 12px 16px; margin-bottom: 16px; }
.tenant p { margin: 4px 0; }
.clock { display: flex; flex-wrap: wrap; gap: 8px; align-items: center; }
.grid { display: grid; grid-template-columns: repeat(auto-fit, minmax(520px, 1fr)); gap: 16px; }
.table { background: #fff; border: 1px solid var(--line); border-radius: 10px; padding: 12px 16px;
  margin-bottom: 16px; overflow-x: auto; }
table { border-collapse: collapse; width: 100%; }
th { text-align: left; font-weight: 500; color: var(--muted); font-size: 12px; }
td, th { padding: 5px 8px 5px 0; border-bottom: 1px solid var(--line); vertical-align: top; }
.actions { white-space: nowrap; }
.actions button { margin: 0 4px 2px 0; }
form.inline { display: inline-flex; gap: 4px; }
form.inline input { width: 90px; }
.attempts { margin: 0; padding-left: 18px; font-size: 12px; }
pre { background: #f2f4f7; padding: 8px; border-radius: 6px; max-height: 240px; overflow: auto; font-size: 12px; }
#toast { position: fixed; right: 20px; bottom: 20px; background: #1d2330; color: #fff; padding: 10px 14px;
  border-radius: 8px; max-width: 420px; }
#toast.error { background: #912018; }
`

/**
 * Opens a tenant from the token form (kept in sessionStorage), polls its panel every second,
 * and turns buttons and forms into control-plane calls with its token.
 */
export const DASHBOARD_SCRIPT = `
(function () {
  var KEY = 'card-sandbox-token'
  var form = document.getElementById('open-tenant')
  var input = document.getElementById('token')
  var closer = document.getElementById('close-tenant')
  var welcome = document.getElementById('welcome')
  var panel = document.getElementById('panel')
  var toast = document.getElementById('toast')
  var token = null
  var shown = ''
  var timer = null
  function headers(json) {
    var h = { Authorization: 'Bearer ' + token }
    if (json) h['Content-Type'] = 'application/json'
    return h
  }
  function open(value) {
    token = value
    sessionStorage.setItem(KEY, value)
    welcome.hidden = true
    closer.hidden = false
    panel.hidden = false
    panel.innerHTML = '<p class="muted">Loading...</p>'
    shown = ''
    refresh(true)
    clearInterval(timer)
    timer = setInterval(refresh, 1000)
  }
  function close(message) {
    token = null
    sessionStorage.removeItem(KEY)
    clearInterval(timer)
    panel.hidden = true
    panel.innerHTML = ''
    shown = ''
    closer.hidden = true
    welcome.hidden = false
    if (message) say(message, true)
  }
  function busy() {
    var active = document.activeElement
    return active && panel.contains(active) && active.tagName === 'INPUT' ||
      panel.querySelector('details[open]') !== null
  }
  function refresh(force) {
    if (!token || (!force && busy())) return Promise.resolve()
    var asked = token
    return fetch('/__sandbox/ui/panel', { headers: headers(false), cache: 'no-store' })
      .then(function (res) {
        if (asked !== token) return
        if (res.status === 401) return close('The sandbox does not let this token in (--tokens).')
        return res.text().then(function (text) {
          if (asked !== token) return
          if (text !== shown) { shown = text; panel.innerHTML = text }
          panel.dataset.loaded = String(Date.now())
        })
      })
      .catch(function () {})
  }
  function say(message, failed) {
    toast.textContent = message
    toast.className = failed ? 'error' : ''
    toast.hidden = false
    clearTimeout(say.timer)
    say.timer = setTimeout(function () { toast.hidden = true }, 4000)
  }
  function send(route, body) {
    var parts = route.split(' ')
    return fetch(parts[1], { method: parts[0], headers: headers(body !== undefined),
      body: body === undefined ? undefined : JSON.stringify(body) })
      .then(function (res) { return res.json().then(function (json) { return { ok: res.ok, json: json } }) })
      .then(function (answer) {
        var errors = answer.json.errors ? ' ' + JSON.stringify(answer.json.errors) : ''
        say(answer.json.message + errors, !answer.ok)
        return refresh(true)
      })
  }
  form.addEventListener('submit', function (event) {
    event.preventDefault()
    var value = input.value.trim()
    input.value = ''
    if (value) open(value)
  })
  closer.addEventListener('click', function () { close() })
  panel.addEventListener('click', function (event) {
    var button = event.target.closest('button[data-call]')
    if (!button) return
    button.disabled = true
    send(button.dataset.call, button.dataset.body ? JSON.parse(button.dataset.body) : undefined)
  })
  panel.addEventListener('submit', function (event) {
    var form = event.target.closest('form[data-call]')
    if (!form) return
    event.preventDefault()
    var body = {}
    Array.prototype.forEach.call(form.elements, function (field) {
      if (!field.name) return
      body[field.name] = field.type === 'number' ? Number(field.value) : field.value
    })
    document.activeElement && document.activeElement.blur()
    send(form.dataset.call, body)
  })
  var kept = sessionStorage.getItem(KEY)
  if (kept) open(kept)
})()
`
