/**
 * Hardening headers of everything under /__sandbox, where the pages live (PRODUCT §8): `nosniff`,
 * `no-referrer`, and a Content-Security-Policy under which a page runs only the sandbox's own
 * inline scripts, allowed by their sha256 (computed once, here, at start), and talks only to
 * its own origin. No page may be framed (`frame-ancestors 'none'`, `X-Frame-Options: DENY`)
 * except the verify page, which the widget frames on the client's own origin. /v1 answers only
 * JSON, which carries nosniff from sendJson: no header list is built per request there.
 */
import { createHash } from 'node:crypto'
import type { MiddlewareHandler } from 'hono'
import type { AppEnv } from '../../env.js'
import { CHECKOUT_SCRIPT } from '../../ui/checkout.js'
import { DASHBOARD_SCRIPT } from '../../ui/dashboard/script.js'
import { VERIFY_PAGE_SCRIPT } from '../../ui/widget.js'

/** The inline script of each page (layout.ts writes each exactly, so its hash matches). */
export const PAGE_SCRIPTS = [DASHBOARD_SCRIPT, VERIFY_PAGE_SCRIPT, CHECKOUT_SCRIPT]

/** Pages other sites may frame: the widget's overlay (a card-reveal page would join it). */
const FRAMED_PAGES = ['/__sandbox/verify/']

export const scriptHash = (script: string) =>
  `'sha256-${createHash('sha256').update(script).digest('base64')}'`

const POLICY = [
  "default-src 'none'",
  `script-src ${PAGE_SCRIPTS.map(scriptHash).join(' ')}`,
  // style attributes and blocks (the widget's accent colour) cannot run script
  "style-src 'unsafe-inline'",
  "connect-src 'self'",
  "img-src 'self' data:",
  "form-action 'self'",
  "base-uri 'none'",
]
export const CONTENT_SECURITY_POLICY = [...POLICY, "frame-ancestors 'none'"].join('; ')
export const FRAMED_CONTENT_SECURITY_POLICY = POLICY.join('; ')

export function securityHeaders(): MiddlewareHandler<AppEnv> {
  return function securityHeaders(c, next) {
    const framed = FRAMED_PAGES.some((prefix) => c.req.path.startsWith(prefix))
    c.header('X-Content-Type-Options', 'nosniff')
    c.header('Referrer-Policy', 'no-referrer')
    c.header(
      'Content-Security-Policy',
      framed ? FRAMED_CONTENT_SECURITY_POLICY : CONTENT_SECURITY_POLICY,
    )
    if (!framed) c.header('X-Frame-Options', 'DENY')
    return next()
  }
}
