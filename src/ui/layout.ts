/**
 * The frame of the sandbox's own pages (dashboard, verification widget, checkout): one HTML
 * document with inline CSS and script, nothing fetched from elsewhere (the sandbox runs
 * offline). `html` escapes every interpolated value; `raw` is only used for our own constants.
 */
import { html, raw } from 'hono/html'
import { FAVICON_PATH } from './favicon.js'

export type Html = ReturnType<typeof html>

/** The sandbox's icon (favicon.ts), in the head of every page. */
export const FAVICON_LINK = html`<link rel="icon" type="image/svg+xml" href="${FAVICON_PATH}" />`

const BASE_STYLE = `
:root { --accent: #0f6e5a; --bg: #f6f7f9; --fg: #1d2330; --muted: #667085; --line: #e4e7ec; }
* { box-sizing: border-box; }
[hidden] { display: none !important; }
body { margin: 0; font: 14px/1.45 system-ui, -apple-system, "Segoe UI", Roboto, sans-serif;
  background: var(--bg); color: var(--fg); }
h1 { font-size: 20px; margin: 0 0 4px; } h2 { font-size: 15px; margin: 0 0 8px; }
button, .button { font: inherit; border: 1px solid var(--line); background: #fff; color: var(--fg);
  border-radius: 6px; padding: 4px 10px; cursor: pointer; white-space: nowrap; }
button.primary { background: var(--accent); border-color: var(--accent); color: #fff; }
button.danger { color: #b42318; border-color: #fda29b; }
button:disabled { opacity: .5; cursor: default; }
input, select { font: inherit; padding: 5px 8px; border: 1px solid var(--line); border-radius: 6px; }
code { font: 12px ui-monospace, SFMono-Regular, Menlo, monospace; }
.muted { color: var(--muted); }
.status { display: inline-block; padding: 1px 8px; border-radius: 999px; font-size: 12px;
  background: #eef2f6; }
.status-passed, .status-issued, .status-success, .status-won, .status-delivered { background: #d1fadf; color: #05603a; }
.status-failed, .status-lost, .status-expired { background: #fee4e2; color: #912018; }
.status-pending, .status-issuing, .status-processing, .status-open, .status-submitted { background: #fef0c7; color: #93370d; }
.status-frozen { background: #d1e9ff; color: #1849a9; }
`

export function page(
  title: string,
  body: Html,
  options: { style?: string; script?: string; stylesheet?: string } = {},
) {
  return html`<!doctype html>
    <html lang="en">
      <head>
        <meta charset="utf-8" />
        <meta name="viewport" content="width=device-width, initial-scale=1" />
        <title>${title}</title>
        ${FAVICON_LINK}
        <style>
          ${raw(BASE_STYLE + (options.style ?? ''))}
        </style>
        ${
          // after the page's own style, so that it wins (the card-reveal page's css_url)
          options.stylesheet ? html`<link rel="stylesheet" href="${options.stylesheet}" />` : ''
        }
      </head>
      <body>
        ${body}
        ${
          // written byte for byte: the Content-Security-Policy allows it by its hash
          options.script ? raw(`<script>${options.script}</script>`) : ''
        }
      </body>
    </html>`
}

export function statusBadge(status: string) {
  return html`<span class="status status-${status}">${status}</span>`
}

/** XOF and the other CFA francs have no minor unit: amounts are whole francs. */
export function money(amount: number): string {
  return `${amount.toLocaleString('en-US').replace(/,/g, ' ')} F CFA`
}
