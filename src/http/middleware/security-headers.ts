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

/** Pages other sites may frame: the widget's overlay (a card-reveal page would join it). */
const FRAMED_PAGES = ['/__sandbox/verify/']

export const scriptHash = (script: string) =>
  `'sha256-${createHash('sha256').update(script).digest('base64')}'`

/** `pageScripts`: the inline script of every page (ui/pages.ts PAGE_SCRIPTS), allowed by hash. */
export function securityHeaders(pageScripts: readonly string[]): MiddlewareHandler<AppEnv> {
  const policy = [
    "default-src 'none'",
    `script-src ${pageScripts.map(scriptHash).join(' ')}`,
    // style attributes and blocks (the widget's accent colour) cannot run script
    "style-src 'unsafe-inline'",
    "connect-src 'self'",
    "img-src 'self' data:",
    "form-action 'self'",
    "base-uri 'none'",
  ]
  const unframedPolicy = [...policy, "frame-ancestors 'none'"].join('; ')
  const framedPolicy = policy.join('; ')
  // set on the answer once it is made, whoever made it (a page, an error, sendJson)
  return async function securityHeaders(c, next) {
    await next()
    const framed = FRAMED_PAGES.some((prefix) => c.req.path.startsWith(prefix))
    const headers = c.res.headers
    headers.set('X-Content-Type-Options', 'nosniff')
    headers.set('Referrer-Policy', 'no-referrer')
    headers.set('Content-Security-Policy', framed ? framedPolicy : unframedPolicy)
    if (!framed) headers.set('X-Frame-Options', 'DENY')
  }
}
