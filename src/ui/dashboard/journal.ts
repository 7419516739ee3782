/**
 * The dashboard's request table: the tenant's newest journal entries (journal/journal.ts), each
 * with its masked request and response bodies.
 */
import { html } from 'hono/html'
import type { JournalEntry } from '../../journal/journal.js'
import { statusBadge } from '../layout.js'
import { pretty } from './table.js'

export function journalSection(entries: JournalEntry[]) {
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
