/**
 * Buttons and small forms that call the control plane with the tenant's token: the page's
 * script (script.ts) reads `data-call` and `data-body` and sends the same request a test would.
 */
import { html } from 'hono/html'
import type { Html } from '../layout.js'

/** A button that sends `METHOD path` with a JSON body, with the tenant's token. */
export function call(route: string, label: string, body?: unknown, className = '') {
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
export function callForm(route: string, label: string, fields: Html[]) {
  return html`<form class="inline" data-call="${route}">
    ${fields}<button type="submit">${label}</button>
  </form>`
}
