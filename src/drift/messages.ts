/**
 * What the sandbox says beside the schema, for drift to compare: the messages of the errors that
 * never depend on the request, and the headers every /v1 answer carries (and those that any
 * server or CDN adds, never compared). Each route's 200 message is its own declaration
 * (http/route-meta.ts), read with the contract (contract.ts).
 */
import { PAYLOAD_TOO_LARGE } from '../http/errors.js'
import { MALFORMED_JSON, TOO_MANY_ATTEMPTS, UNAUTHENTICATED } from '../domain/errors.js'

/** The errors whose message never depends on the request (the others name the field or value). */
export const ERROR_MESSAGES: Record<number, string> = {
  400: MALFORMED_JSON,
  401: UNAUTHENTICATED,
  413: PAYLOAD_TOO_LARGE,
  429: TOO_MANY_ATTEMPTS,
}

/** Headers whose presence or value depends on the path taken, not on the API (proxies, CDNs). */
export const IGNORED_HEADERS = new Set([
  'date',
  'etag',
  'last-modified',
  'content-length',
  'content-encoding',
  'transfer-encoding',
  'connection',
  'keep-alive',
  'server',
  'via',
  'vary',
  'age',
  'alt-svc',
  'cache-control',
  'expires',
  'pragma',
  'set-cookie',
  'strict-transport-security',
  'x-request-id',
  'x-powered-by',
  'report-to',
  'nel',
])
export const IGNORED_PREFIXES = ['access-control-', 'cf-', 'x-amz-', 'x-cache']

/** The headers the sandbox sends on a /v1 answer of this status, and a test of their values. */
export function sandboxHeaders(
  status: number,
): Record<string, { says: string; ok: (v: string) => boolean }> {
  const integer = { says: 'integer', ok: (v: string) => /^\d+$/.test(v.trim()) }
  return {
    'content-type': {
      says: 'application/json',
      ok: (v) => v.split(';')[0].trim().toLowerCase() === 'application/json',
    },
    'x-content-type-options': { says: 'nosniff', ok: (v) => v.trim().toLowerCase() === 'nosniff' },
    // counted once the tenant is known: never on a 401 (no token) or a 403 (a foreign Host)
    ...(status !== 401 &&
      status !== 403 && { 'x-ratelimit-limit': integer, 'x-ratelimit-remaining': integer }),
    ...(status === 429 && { 'retry-after': integer }),
  }
}
