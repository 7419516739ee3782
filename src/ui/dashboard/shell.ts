/**
 * The dashboard's public page (PRODUCT §8): no tenant's data, tokens masked; a person opens a
 * tenant by pasting its token, and the page's script fetches that tenant's panel.
 */
import { html } from 'hono/html'
import { maskToken } from '../../lib/masking.js'
import { page } from '../layout.js'
import { DASHBOARD_SCRIPT } from './script.js'

type KnownTenant = { token: string; businessName: string }

/**
 * The public page: no tenant's data, tokens masked. A person opens a tenant by pasting its
 * token; the page's script keeps it in sessionStorage (this tab only, never sent by the browser
 * on its own, so no other site can make use of it) and sends it as the Authorization header.
 * The token field has no name: even without the script, a submit puts nothing in the URL.
 * `known` is null when the sandbox is reachable from the network: then no tenant is listed.
 */
export function shell(known: KnownTenant[] | null) {
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
        known === null
          ? html`<p class="muted" id="not-listed">
              This sandbox listens on an address other machines can reach: its tenants are not
              listed here. Paste a token to open its tenant.
            </p>`
          : known.length
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

const DASHBOARD_STYLE = `
.top { display: flex; gap: 16px; align-items: center; padding: 12px 20px; background: #fff;
  border-bottom: 1px solid var(--line); flex-wrap: wrap; }
.top h1 { margin: 0 12px 0 0; }
.picker { display: flex; gap: 6px; align-items: center; flex-wrap: wrap; }
main { padding: 16px 20px; }
.tenant { display: flex; justify-content: space-between; gap: 16px; flex-wrap: wrap; background: #fff;
  border: 1px solid var(--line); border-radius: 10px; padding: 12px 16px; margin-bottom: 16px; }
.tenant > div { min-width: 0; max-width: 100%; }
.tenant p { margin: 4px 0; }
.clock { display: flex; flex-wrap: wrap; gap: 8px; align-items: center; }
/* two tables side by side only where the widest row fits in each (a pending payment: its cells, three
   moves and its checkout link, about 900 px); below that, one table a line */
.grid { display: grid; grid-template-columns: repeat(auto-fit, minmax(min(920px, 100%), 1fr)); gap: 16px; }
.table { background: #fff; border: 1px solid var(--line); border-radius: 10px; padding: 12px 16px;
  margin-bottom: 16px; overflow-x: auto; min-width: 0; }
table { border-collapse: collapse; width: 100%; }
th { text-align: left; font-weight: 500; color: var(--muted); font-size: 12px; }
td, th { padding: 5px 8px 5px 0; border-bottom: 1px solid var(--line); vertical-align: top; }
.table td { white-space: nowrap; }
/* ids and paths stay on one line: what does not fit ends in an ellipsis, the title holds it all */
code.id, summary code, .tenant code { display: inline-block; max-width: 100%; overflow: hidden;
  text-overflow: ellipsis; white-space: nowrap; vertical-align: bottom; }
code.id { max-width: 20ch; }
summary code { max-width: calc(100% - 1.5em); }
/* buttons never break inside, and a row's actions stay on one line (on a phone, a line of their own) */
.actions button, .actions form, .actions a { margin: 0 4px 2px 0; }
form.inline { display: inline-flex; gap: 4px; }
form.inline input { width: 90px; }
.attempts { margin: 0; padding-left: 18px; font-size: 12px; white-space: normal; }
pre { background: #f2f4f7; padding: 8px; border-radius: 6px; max-height: 240px; overflow: auto; font-size: 12px; }
#toast { position: fixed; right: 20px; bottom: 20px; background: #1d2330; color: #fff; padding: 10px 14px;
  border-radius: 8px; max-width: min(420px, calc(100% - 40px)); }
#toast.error { background: #912018; }
/* a phone: each row's cells flow on lines of their own, with its buttons below them */
@media (max-width: 700px) {
  .top, main { padding-left: 12px; padding-right: 12px; }
  .table { padding: 10px 12px; }
  .table thead { display: none; }
  .table table, .table tbody { display: block; }
  .table tr { display: flex; flex-wrap: wrap; align-items: baseline; gap: 4px 12px; padding: 6px 0;
    border-bottom: 1px solid var(--line); }
  .table td { border: 0; padding: 0; min-width: 0; max-width: 100%; }
  .table td.actions, .table td:has(> details) { flex-basis: 100%; }
  .table td.actions { white-space: normal; }
  .table td:empty { display: none; }
}
`
