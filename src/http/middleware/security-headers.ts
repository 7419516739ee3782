/**
 * Hardening headers of everything under /__sandbox, where the pages live (PRODUCT §8): `nosniff`,
 * `no-referrer`, and a Content-Security-Policy under which a page runs only the sandbox's own
 * inline scripts, allowed by their sha256 (computed once, here, at start), and talks only to
 * its own origin. No page may be framed (`frame-ancestors 'none'`, `X-Frame-Options: DENY`)
 * except the verify page, which the widget frames on the client's own origin, and the
 * card-reveal page, which a client frames in its app, styled by the `css_url` it chose: that
 * page alone may load styles, fonts and images from that URL's origin. /v1 answers only
 * JSON, which carries nosniff from sendJson: no header list is built per request there.
 */
import { createHash } from 'node:crypto'
import type { MiddlewareHandler } from 'hono'
import type { AppEnv } from '../../wiring/env.js'

/** Pages other sites may frame: the widget's overlay and the card-reveal page. */
const FRAMED_PAGES = ['/__sandbox/verify/', '/__sandbox/card-reveal/']

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
  /** A framed page that links a stylesheet of `origin` (an origin: no space, `;` or `,`). */
  const framedPolicyWith = (origin: string) =>
    [
      ...policy.map((directive) =>
        directive.startsWith('style-src') || directive.startsWith('img-src')
          ? `${directive} ${origin}`
          : directive,
      ),
      `font-src ${origin}`,
    ].join('; ')
  // set on the answer once it is made, whoever made it (a page, an error, sendJson)
  return async function securityHeaders(c, next) {
    await next()
    const framed = FRAMED_PAGES.some((prefix) => c.req.path.startsWith(prefix))
    const headers = c.res.headers
    headers.set('X-Content-Type-Options', 'nosniff')
    headers.set('Referrer-Policy', 'no-referrer')
    const styleSource = framed ? c.get('pageStyleSource') : undefined
    headers.set(
      'Content-Security-Policy',
      styleSource ? framedPolicyWith(styleSource) : framed ? framedPolicy : unframedPolicy,
    )
    if (!framed) headers.set('X-Frame-Options', 'DENY')
  }
}
