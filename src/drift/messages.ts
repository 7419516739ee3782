/**
 * What the sandbox says beside the schema, for drift to compare: the envelope's message of each
 * /v1 route's 200, the messages of the errors that never depend on the request, and the headers
 * every /v1 answer carries (and those that any server or CDN adds, never compared).
 */
import { PAYLOAD_TOO_LARGE } from '../http/errors.js'
import { UNAUTHENTICATED } from '../http/middleware/tenant.js'

/** The envelope's `message` of each /v1 route's 200 (http/v1/*.ts). */
export const SUCCESS_MESSAGES: Record<string, string> = {
  'POST /v1/card-users/create': 'User verification in progress',
  'POST /v1/card-users/resubmit': 'User verification in progress',
  'GET /v1/card-users': 'Card users fetched successfully',
  'GET /v1/card-users/{reference}': 'OK',
  'POST /v1/cards/create': 'Card is being generated',
  'POST /v1/cards/link': 'Card is being generated',
  'POST /v1/cards/freeze': 'Card frozen successfully',
  'POST /v1/cards/unfreeze': 'Card unfrozen successfully',
  'POST /v1/cards/auth/access_token': 'Access Token generated successfully',
  'GET /v1/cards': 'Cards fetched successfully',
  'GET /v1/cards/{reference}': 'OK',
  'POST /v1/transactions/create': 'OK',
  'POST /v1/transactions/create/card-to-bank': 'Transaction initiated successfully',
  'POST /v1/transactions/create/card-to-wallet': 'Transaction initiated successfully',
  'POST /v1/transactions/create/wallet-to-card': 'Transaction initiated successfully',
  'GET /v1/transactions': 'Transactions fetched successfully',
  'GET /v1/transactions/{reference}': 'OK',
  'POST /v1/disputes/create': 'dispute successfully created!',
  'POST /v1/disputes/update/{reference}': 'Dispute updated successfully',
  'GET /v1/disputes': 'Disputes fetched successfully',
  'GET /v1/disputes/{reference}': 'OK',
  'POST /v1/disburses/create': 'Disburse initiated successfully',
  'GET /v1/disburses': 'Disburses fetched successfully',
  'GET /v1/disburses/{reference}': 'Disburse fetched successfully',
  'POST /v1/payments/create': 'Payment initiated successfully',
  'GET /v1/payments': 'Payments fetched successfully',
  'GET /v1/payments/{reference}': 'Payment fetched successfully',
  'GET /v1/business/balances': 'Business balances fetched successfully',
  'GET /v1/business/operations': 'Business operations fetched successfully',
  'POST /v1/phone/verify': 'Phone verified successfully',
}

/** The errors whose message never depends on the request (the others name the field or value). */
export const ERROR_MESSAGES: Record<number, string> = {
  400: 'Malformed JSON in request body.',
  401: UNAUTHENTICATED,
  413: PAYLOAD_TOO_LARGE,
  429: 'Too Many Attempts.',
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
