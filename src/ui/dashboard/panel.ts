/**
 * The panel of one tenant (PRODUCT §8), rendered on the server and fetched by the shell's script
 * every second: the tenant and its clock, then every resource it owns with the moves its state
 * machines allow, its webhooks and its request journal.
 */
import { html } from 'hono/html'
import { listOperations } from '../../domain/business.js'
import { listCards } from '../../domain/cards.js'
import { listCardUsers } from '../../domain/card-users.js'
import type { DomainContext } from '../../domain/context.js'
import { listDisburses } from '../../domain/disburses.js'
import { listDisputes } from '../../domain/disputes.js'
import { FLOAT, balanceOf } from '../../domain/ledger.js'
import { listPayments } from '../../domain/payments.js'
import { listTransactions } from '../../domain/transactions.js'
import type { JournalRecord } from '../../journal/journal.js'
import { maskToken } from '../../lib/masking.js'
import type { Page } from '../../store/rows.js'
import { money, statusBadge } from '../layout.js'
import { call, callForm } from './actions.js'
import { journalSection } from './journal.js'
import { ROWS, clientId, ref, row, section } from './table.js'
import { webhooksSection } from './webhooks.js'

/** `journal`: the tenant's newest requests; null when the sandbox keeps no journal. */
export async function panel(ctx: DomainContext, journal: JournalRecord[] | null) {
  const first = { page: 1, perPage: ROWS }
  return html`${await tenantHeader(ctx)}
    <div class="grid">
      ${section(
        'Card users',
        ['reference', 'name', 'phone', 'flow', 'status', ''],
        (await listCardUsers(ctx, first)).rows.map((u) =>
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
        (await cardsWithBalances(ctx, first)).map(({ card, balance }) =>
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
        (await listTransactions(ctx, first)).rows.map((t) =>
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
        (await listPayments(ctx, first)).rows.map((p) =>
          row(
            'payments',
            p.reference,
            p.status,
            [ref(p.reference), clientId(p.partnerReference), p.network, money(p.amount)],
            html`<a href="/__sandbox/checkout/${p.reference}" target="_blank">checkout</a>`,
          ),
        ),
      )}
      ${section(
        'Disburses',
        ['reference', 'partner reference', 'network', 'amount', 'status', ''],
        (await listDisburses(ctx, first)).rows.map((d) =>
          row('disburses', d.reference, d.status, [
            ref(d.reference),
            clientId(d.partnerReference),
            d.network,
            money(d.amount),
          ]),
        ),
      )}
      ${section(
        'Disputes',
        ['reference', 'transaction', 'reason', 'status', ''],
        (await listDisputes(ctx, first)).rows.map((d) =>
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
        (await listOperations(ctx, first)).rows.map(
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
    ${await webhooksSection(ctx)} ${journalSection(journal)}`
}

async function cardsWithBalances(ctx: DomainContext, page: Page) {
  const cards = (await listCards(ctx, page)).rows
  return cards.map((card) => ({ card, balance: card.balance }))
}

async function tenantHeader(ctx: DomainContext) {
  const { tenant, now } = ctx
  return html`<section class="tenant">
    <div>
      <h2>${tenant.businessName}</h2>
      <p class="muted">
        token <code>${maskToken(tenant.token)}</code> · float ${money(await balanceOf(ctx, FLOAT))}
        · webhooks →
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
