/**
 * A real webhook delivery, saved by the team's handler as `{headers, body}` (the body the raw
 * string it received), compared with the event of that name as the sandbox sends it (its own
 * payload builders, with the default shapes: quirks on): keys, JSON types, the values the
 * sandbox keeps in a closed list, the headers it sends, and the signature's header and scheme
 * (`x-alal-signature`, the hex HMAC-SHA512 of the raw body), verified when a secret is given.
 * Findings never carry a value from the delivery (it holds card numbers and identities): a
 * type's name, a header's name, a signature's shape.
 */
import { createHmac } from 'node:crypto'
import type { Card, CardUser, Disburse, Payment, Transaction } from '../db/schema.js'
import { CARD_BRANDS, CARD_TYPES } from '../db/values.js'
import {
  brandName,
  cardCreationEvent,
  extensionEvent,
  verificationEvent,
} from '../domain/webhook-events.js'
import type { WebhookEventName } from '../domain/webhook-payloads.js'
import { moneyRequestExtension, transactionExtension } from '../domain/transitions.js'
import {
  ATTEMPT_HEADER,
  EVENT_ID_HEADER,
  EXTENSION_HEADER,
  SIGNATURE_HEADER,
  verifySignature,
} from '../webhooks/sign.js'

export type WebhookFinding = {
  /** `webhook <event name>` (`webhook ?` when the body names none). */
  route: string
  /** A JSON path in the body (`$` the whole body), or `header:<name>`. */
  path: string
  kind:
    | 'missing-key'
    | 'extra-key'
    | 'type'
    | 'null'
    | 'enum'
    | 'format'
    | 'key-order'
    | 'header'
    | 'signature'
    | 'unknown-event'
  /** What the delivery has there, described (a type, a shape, "absent"), never its value. */
  upstream: unknown
  /** What the sandbox sends there. */
  sandbox: unknown
}

export type SavedDelivery = {
  headers: Record<string, string | string[] | undefined>
  body: string
}

const SCHEME = 'hex HMAC-SHA512 of the raw body (128 hex digits)'

/** The differences between a saved delivery and the sandbox's event of its name. */
export function compareWebhook(saved: SavedDelivery, secret?: string): WebhookFinding[] {
  const headers = lowerCase(saved.headers)
  const findings: WebhookFinding[] = []
  let body: unknown
  try {
    body = JSON.parse(saved.body)
  } catch {
    body = undefined
  }
  const name =
    body !== null &&
    typeof body === 'object' &&
    typeof (body as { event?: unknown }).event === 'string'
      ? (body as { event: string }).event
      : undefined
  const route = `webhook ${name ?? '?'}`
  const add = (path: string, kind: WebhookFinding['kind'], upstream: unknown, sandbox: unknown) =>
    findings.push({ route, path, kind, upstream, sandbox })

  const sample =
    name !== undefined && Object.hasOwn(SAMPLES, name)
      ? SAMPLES[name as WebhookEventName]
      : undefined
  if (body === undefined) add('$', 'type', 'not JSON', 'object')
  else if (name === undefined) add('$.event', 'missing-key', 'absent', 'string')
  else if (!sample) add('$.event', 'unknown-event', name, Object.keys(SAMPLES))
  else compareValue(sample.payload, body, '$', undefined, add)

  compareHeaders(headers, sample?.extension ?? false, add)
  checkSignature(saved.body, headers, secret, add)
  return findings
}

type Add = (path: string, kind: WebhookFinding['kind'], upstream: unknown, sandbox: unknown) => void

function compareValue(
  sandbox: unknown,
  upstream: unknown,
  path: string,
  key: string | undefined,
  add: Add,
) {
  const want = typeName(sandbox)
  const got = typeName(upstream)
  if (want !== got) {
    add(path, got === 'null' ? 'null' : 'type', got, want)
    return
  }
  if (want === 'object') {
    const mine = sandbox as Record<string, unknown>
    const theirs = upstream as Record<string, unknown>
    for (const k of Object.keys(mine))
      if (!(k in theirs)) add(`${path}.${k}`, 'missing-key', 'absent', typeName(mine[k]))
    for (const k of Object.keys(theirs))
      if (!(k in mine)) add(`${path}.${k}`, 'extra-key', typeName(theirs[k]), 'absent')
    const shared = Object.keys(theirs).filter((k) => k in mine)
    const expected = Object.keys(mine).filter((k) => k in theirs)
    // receivers re-serialise the parsed body to check the signature: the order matters
    if (shared.join() !== expected.join()) add(path, 'key-order', shared, expected)
    for (const k of shared) compareValue(mine[k], theirs[k], `${path}.${k}`, k, add)
    return
  }
  if (want === 'array') {
    const [first] = sandbox as unknown[]
    const items = upstream as unknown[]
    if (first !== undefined)
      items.forEach((item, i) => compareValue(first, item, `${path}[${i}]`, key, add))
    return
  }
  if (typeof upstream !== 'string' || key === undefined) return
  const allowed = ENUMS[key]?.(sandbox as string)
  if (allowed && !allowed.includes(upstream)) add(path, 'enum', upstream, allowed)
  if (key === 'expiry' && !/^\d{4}-\d{2}$/.test(upstream))
    add(path, 'format', shapeOf(upstream), 'YYYY-MM')
}

/** The values the sandbox keeps in a closed list: a delivery's value outside it is a finding. */
const ENUMS: Record<string, (sandbox: string) => readonly string[]> = {
  status: (sandbox) => [sandbox],
  card_type: () => CARD_TYPES,
  card_brand: () => [...CARD_BRANDS.map(brandName), ...CARD_BRANDS],
}

function compareHeaders(headers: Record<string, string>, extension: boolean, add: Add) {
  const type = headers['content-type']
  if (type === undefined) add('header:content-type', 'header', 'absent', 'application/json')
  else if (type.split(';')[0].trim().toLowerCase() !== 'application/json')
    add('header:content-type', 'header', type, 'application/json')
  // the signature's own header is checked with the signature
  for (const name of [EVENT_ID_HEADER, ATTEMPT_HEADER])
    if (headers[name] === undefined)
      add(`header:${name}`, 'header', 'absent', 'sent on every delivery')
  const ours = new Set([SIGNATURE_HEADER, EVENT_ID_HEADER, ATTEMPT_HEADER, EXTENSION_HEADER])
  for (const name of Object.keys(headers)) {
    if (name.startsWith('x-alal-') && !ours.has(name) && !signatureLike(name))
      add(`header:${name}`, 'header', 'present', 'absent')
  }
  if (extension && headers[EXTENSION_HEADER] === undefined)
    add(`header:${EXTENSION_HEADER}`, 'header', 'absent', 'true')
}

function signatureLike(name: string): boolean {
  return /signature|hmac|sign$/i.test(name)
}

function checkSignature(
  body: string,
  headers: Record<string, string>,
  secret: string | undefined,
  add: Add,
) {
  let header = SIGNATURE_HEADER
  if (headers[SIGNATURE_HEADER] === undefined) {
    const other = Object.keys(headers).find(signatureLike)
    add(
      `header:${SIGNATURE_HEADER}`,
      'header',
      other ? `absent; a signature is in ${other}` : 'absent',
      SCHEME,
    )
    if (!other) return
    header = other
  }
  const value = headers[header]
  const path = `header:${header}`
  if (verifySignature(body, value, secret ?? '')) return
  if (secret === undefined) {
    if (!/^[0-9a-f]{128}$/i.test(value))
      add(path, 'signature', `unknown scheme: ${shapeOf(value)}`, SCHEME)
    return
  }
  const scheme = otherScheme(body, value, secret)
  if (scheme) add(path, 'signature', `verifies as ${scheme}`, SCHEME)
  else if (/^[0-9a-f]{128}$/i.test(value))
    add(path, 'signature', 'does not verify with the secret given', SCHEME)
  else add(path, 'signature', `unknown scheme: ${shapeOf(value)}; does not verify`, SCHEME)
}

/** Which usual HMAC scheme the value verifies under with the secret, if one. */
function otherScheme(body: string, value: string, secret: string): string | undefined {
  const prefix = /^([a-z0-9]+)=/i.exec(value)
  const signature = prefix ? value.slice(prefix[0].length) : value
  for (const algorithm of ['sha512', 'sha256', 'sha1'] as const) {
    const mac = createHmac(algorithm, secret).update(body).digest()
    for (const encoding of ['hex', 'base64'] as const) {
      if (mac.toString(encoding) !== (encoding === 'hex' ? signature.toLowerCase() : signature))
        continue
      return (
        `${encoding} HMAC-${algorithm.toUpperCase()} of the raw body` +
        (prefix ? `, prefixed ${prefix[0]}` : '')
      )
    }
  }
  return undefined
}

/** A value's shape without the value: `128 hex digits`, `sha256=<64 hex digits>`. */
function shapeOf(value: string): string {
  const prefix = /^([a-z0-9]+)=(?=.)/i.exec(value)
  if (prefix) return `${prefix[0]}<${shapeOf(value.slice(prefix[0].length))}>`
  if (/^[0-9a-f]+$/i.test(value)) return `${value.length} hex digits`
  if (/^[A-Za-z0-9+/]+={0,2}$/.test(value)) return `${value.length} base64 characters`
  return `${value.length} characters`
}

function typeName(value: unknown): string {
  if (value === null) return 'null'
  if (Array.isArray(value)) return 'array'
  return typeof value
}

function lowerCase(headers: SavedDelivery['headers']): Record<string, string> {
  const out: Record<string, string> = {}
  for (const [name, value] of Object.entries(headers ?? {})) {
    if (value === undefined) continue
    out[name.toLowerCase()] = Array.isArray(value) ? value.join(', ') : String(value)
  }
  return out
}

/**
 * Each event as the sandbox builds it, from made-up rows (the builders read only these fields);
 * `extension`: sent with `--webhook-extensions on` only, marked with its header.
 */
const SAMPLES: Record<WebhookEventName, { payload: unknown; extension: boolean }> = (() => {
  const user = {
    reference: '00000000-0000-4000-8000-000000000001',
    firstName: 'Awa',
    lastName: 'Diop',
    address: '12 Rue Carnot, Dakar',
    idNo: '1234567890123',
    phone: '+221770000001',
    email: 'awa.diop@example.com',
  } as CardUser
  const card = {
    reference: '00000000-0000-4000-8000-000000000002',
    brand: 'visa',
    type: 'virtual',
    status: 'issued',
    cardNumber: '4000000000000002',
    cvv2: '123',
    expiry: '2029-11',
  } as Card
  const transaction = {
    slug: '00000000-0000-4000-8000-000000000003',
    reference: 'order-1',
    cardReference: card.reference,
    kind: 'card_to_bank',
    amount: 15000,
  } as Transaction
  const payment = {
    reference: '00000000-0000-4000-8000-000000000004',
    partnerReference: 'order-2',
    network: 'orange-money-ci',
    amount: 5000,
  } as Payment
  const moved = (resource: string, status: string, data: Record<string, unknown>) => ({
    payload: extensionEvent(resource, status, { ...data, status }),
    extension: true,
  })
  const own = (payload: unknown) => ({ payload, extension: false })
  return {
    'card_user_verification.successful': own(verificationEvent(user, 'passed')),
    'card_user_verification.failed': own(verificationEvent(user, 'failed')),
    'card_creation.successful': own(cardCreationEvent(card, 0, true)),
    'card_creation.failed': own(cardCreationEvent({ ...card, status: 'failed' }, 0, true)),
    'transaction.success': moved('transaction', 'success', transactionExtension(transaction)),
    'transaction.failed': moved('transaction', 'failed', transactionExtension(transaction)),
    'payment.success': moved('payment', 'success', moneyRequestExtension(payment)),
    'payment.failed': moved('payment', 'failed', moneyRequestExtension(payment)),
    'payment.expired': moved('payment', 'expired', moneyRequestExtension(payment)),
    'disburse.success': moved('disburse', 'success', moneyRequestExtension(payment as Disburse)),
    'disburse.failed': moved('disburse', 'failed', moneyRequestExtension(payment as Disburse)),
  }
})()
