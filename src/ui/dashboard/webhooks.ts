/**
 * The dashboard's webhook table: the tenant's newest events with their masked bodies and
 * attempts (webhooks/log.ts, as `GET /__sandbox/webhooks` reads them), and a replay button.
 */
import { html } from 'hono/html'
import type { DomainContext } from '../../domain/context.js'
import { webhookLog } from '../../webhooks/log.js'
import { statusBadge } from '../layout.js'
import { call } from './actions.js'
import { ROWS, pretty } from './table.js'

export async function webhooksSection(ctx: DomainContext) {
  const log = await webhookLog(ctx, { page: 1, perPage: ROWS })
  return html`<section class="table" data-section="Webhooks">
    <h2>Webhooks <span class="muted">${log.total}</span></h2>
    ${
      log.rows.length
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
              ${log.rows.map(
                (event) =>
                  html`<tr data-event="${event.id}">
                    <td><code class="id" title="${event.id}">${event.id}</code></td>
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
