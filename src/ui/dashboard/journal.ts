/**
 * The dashboard's request table: the tenant's newest journal records (journal/journal.ts), each
 * at its sandbox time and its wall time, with its masked request and response bodies, or a line
 * saying the journal is off.
 */
import { html } from 'hono/html'
import { entryId } from '../../journal/entry.js'
import type { JournalRecord } from '../../journal/journal.js'
import { statusBadge } from '../layout.js'
import { pretty } from './table.js'

/** `records`: null when the sandbox keeps no journal (`--journal off`). */
export function journalSection(records: JournalRecord[] | null) {
  return html`<section class="table" data-section="Requests">
    <h2>
      Requests <span class="muted">${records ? `newest ${records.length}` : 'journal off'}</span>
    </h2>
    ${
      records === null
        ? html`<p class="muted">
            The request journal is off (<code>--journal off</code>): no request is kept.
          </p>`
        : records.length
          ? html`<table>
              <thead>
                <tr>
                  <th>sandbox time</th>
                  <th>wall time</th>
                  <th>method</th>
                  <th>request</th>
                  <th>status</th>
                  <th>latency</th>
                </tr>
              </thead>
              <tbody>
                ${records.map(
                  (e) =>
                    html`<tr data-request="${entryId(e)}">
                      <td>${instant('sandbox time', e.at)}</td>
                      <td class="muted">${instant('wall time', e.wallAt)}</td>
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

/**
 * An instant as its UTC time of day, the whole of it in its title: `at` on the sandbox clock, or
 * `wall_at` on the machine's (they differ on a manual clock).
 */
function instant(clock: string, ms: number) {
  const iso = new Date(ms).toISOString()
  return html`<time datetime="${iso}" title="${clock} ${iso}">${iso.slice(11, 19)}</time>`
}
