/**
 * `--cors <origin,…|*>` (off by default): lets a web front-end on another origin (a dev server
 * on another port) call the sandbox from the browser. A stage right after the Host check, so a
 * preflight (OPTIONS, no Authorization) is answered 204 before the tenant stage would refuse it,
 * and every answer (a 401 or a 422 included) carries `Access-Control-Allow-Origin` for the
 * origins given: a page reads the error, not an opaque network failure. A list answers with the
 * request's own origin and `Vary: Origin`; an origin not in it gets no CORS header, so its
 * browser keeps the answer from the page. No credentials: the token travels in the
 * Authorization header, never in a cookie.
 */
import { cors as honoCors } from 'hono/cors'
import { SCENARIO_HEADER } from './scenarios.js'

/** What a page may read of an answer besides the simple headers. */
const EXPOSED_HEADERS = [
  'X-RateLimit-Limit',
  'X-RateLimit-Remaining',
  'Retry-After',
  SCENARIO_HEADER,
]

/** How long a browser may keep a preflight's answer. */
const PREFLIGHT_MAX_AGE_SECONDS = 600

export function cors(origins: readonly string[]) {
  return honoCors({
    origin: origins.includes('*') ? '*' : [...origins],
    allowMethods: ['GET', 'HEAD', 'POST', 'PUT', 'PATCH', 'DELETE'],
    exposeHeaders: EXPOSED_HEADERS,
    maxAge: PREFLIGHT_MAX_AGE_SECONDS,
  })
}

/** `*`, or an http(s) origin as a browser sends it (`http://localhost:5173`: no path). */
export function corsOrigin(value: string): string {
  const trimmed = value.trim()
  if (trimmed === '*') return trimmed
  const origin = URL.canParse(trimmed) ? new URL(trimmed).origin : 'null'
  if (!/^https?:\/\//.test(origin) || origin !== trimmed.replace(/\/$/, ''))
    throw new Error(`"${value}" is not an origin (scheme://host[:port], or *)`)
  return origin
}
