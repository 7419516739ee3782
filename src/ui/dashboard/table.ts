/**
 * The dashboard's building blocks for resource tables: a titled table, a row with one button per
 * move its state machine allows, a shortened reference, a stored body shown readably.
 */
import { html } from 'hono/html'
import { allowedMoves } from '../../domain/lifecycles.js'
import { TRANSITION_RESOURCES, type TransitionResource } from '../../domain/lifecycles.js'
import { parsedBody } from '../../journal/entry.js'
import { statusBadge, type Html } from '../layout.js'
import { call } from './actions.js'

/** Rows shown per table: the newest. */
export const ROWS = 25

export function section(title: string, columns: string[], rows: Html[]) {
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
export function row(
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

/** A stored body, indented when it parses back as JSON (parsedBody, journal/entry.ts), else as it came. */
export function pretty(text: string | null): string {
  if (text === null) return '(no body)'
  const body = parsedBody(text)
  return typeof body === 'string' ? body : JSON.stringify(body, null, 2)
}

/** A reference shortened to its first 8 characters; the title holds the whole of it. */
export function ref(reference: string) {
  return html`<code class="id" title="${reference}">${reference.slice(0, 8)}</code>`
}

/** A name the client chose (a partner reference), whole but cut by an ellipsis when long. */
export function clientId(text: string) {
  return html`<code class="id" title="${text}">${text}</code>`
}
