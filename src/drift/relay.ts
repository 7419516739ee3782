/**
 * The relay of `card-sandbox proxy` (proxy.ts): `/v1/<rest>` to `<upstream>/<rest>`, query kept,
 * method, body and the caller's headers through (Authorization included) but Host and the
 * hop-by-hop headers; the caller gets the upstream's status, headers and bytes as sent, streamed
 * both ways. Refused or reset → 502, no answer within the timeout → 504; a body that stalls as
 * long has the relay cut.
 */
import type {
  Agent as HttpAgent,
  IncomingMessage,
  OutgoingHttpHeaders,
  ServerResponse,
} from 'node:http'
import type { request as httpRequest } from 'node:http'
import type { Agent as HttpsAgent } from 'node:https'
import { maskUrlPassword } from '../lib/masking.js'
import { headerRecord, type Capture, type WrittenLine } from './record.js'

/** Where and how exchanges are relayed: one per proxy. */
export type Upstream = {
  url: URL
  /** Its URL as shown in messages: no password. */
  shown: string
  timeoutMs: number
  agent: HttpAgent | HttpsAgent
  send: typeof httpRequest
}

/** How a relay ended: the status the caller got, the headers recorded, and why it failed if it did. */
export type RelayEnd = {
  status: number
  answerHeaders: Record<string, string>
  error?: WrittenLine['error']
  /** The proxy's own answer when it answered itself (null: the relay was cut short). */
  ownBody?: unknown
}

/** The exchange being relayed: where to, with what, and what to call once, when it ends. */
export type Relaying = {
  upstreamPath: string
  sentHeaders: OutgoingHttpHeaders
  corsHeaders: string[]
  requestBody: Capture
  answerBody: Capture
  end: (end: RelayEnd) => void
}

/** Hop-by-hop headers (RFC 9110 §7.6.1), never relayed either way; `proxy-*` too. */
const HOP_BY_HOP = new Set([
  'connection',
  'keep-alive',
  'te',
  'trailer',
  'transfer-encoding',
  'upgrade',
])

/** The upstream's base URL, checked: http(s), no query or fragment, no trailing slash. */
export function upstreamBase(value: string): URL {
  if (!URL.canParse(value)) throw new Error(`upstream must be an http(s) URL (got "${value}")`)
  const url = new URL(value)
  if (!/^https?:$/.test(url.protocol))
    throw new Error(`upstream must be an http(s) URL (got "${maskUrlPassword(value)}")`)
  if (url.search || url.hash)
    throw new Error(
      `upstream is a base URL: no query or fragment (got "${maskUrlPassword(value)}")`,
    )
  url.pathname = url.pathname.replace(/\/+$/, '')
  return url
}

/** Relays one exchange to the upstream and its answer back; `end` is called once. */
export function relayExchange(
  upstream: Upstream,
  req: IncomingMessage,
  res: ServerResponse,
  relaying: Relaying,
): void {
  const { url, shown: shownUpstream, timeoutMs, agent, send } = upstream
  const { upstreamPath, sentHeaders, corsHeaders, requestBody, answerBody } = relaying
  const method = req.method ?? 'GET'
  let settled = false
  // the upstream's headers once they came: a relay cut short still records them
  let relayedHeaders: Record<string, string> = {}
  const finish = (
    status: number,
    answerHeaders: Record<string, string>,
    error?: WrittenLine['error'],
    ownBody?: unknown,
  ) => {
    if (settled) return
    settled = true
    relaying.end({ status, answerHeaders, error, ownBody })
  }

  const fail = (status: 502 | 504, error: NonNullable<WrittenLine['error']>, message: string) => {
    if (settled) return
    if (!res.headersSent) {
      const body = { message, statusCode: status }
      sendError(res, status, message, corsHeaders)
      finish(status, { 'content-type': 'application/json' }, error, body)
    } else {
      // the status line is gone: all that is left is to cut the caller's answer short
      res.destroy()
      finish(res.statusCode, relayedHeaders, error, null)
    }
  }

  const upReq = send({
    protocol: url.protocol,
    hostname: url.hostname.replace(/^\[|\]$/g, ''),
    port: url.port || undefined,
    auth:
      url.username || url.password
        ? `${decodeURIComponent(url.username)}:${decodeURIComponent(url.password)}`
        : undefined,
    method,
    path: upstreamPath,
    headers: sentHeaders,
    agent,
  })
  const timer = setTimeout(() => {
    fail(
      504,
      'timeout',
      `The upstream ${shownUpstream} did not answer within ${timeoutMs} ms (the proxy's --timeout).`,
    )
    upReq.destroy()
  }, timeoutMs)
  upReq.on('error', (error: NodeJS.ErrnoException) => {
    clearTimeout(timer)
    const code = error.code ?? ''
    if (code === 'ETIMEDOUT')
      fail(504, 'timeout', `The upstream ${shownUpstream} stopped sending within its answer.`)
    else if (code === 'ECONNREFUSED')
      fail(502, 'refused', `The upstream ${shownUpstream} refused the connection (${code}).`)
    else if (code === 'ECONNRESET' || code === 'EPIPE')
      fail(
        502,
        'reset',
        `The upstream ${shownUpstream} closed the connection without a whole answer (${code}).`,
      )
    else
      fail(
        502,
        'unreachable',
        `The upstream ${shownUpstream} could not be reached: ${code || error.message}.`,
      )
  })
  upReq.on('response', (upRes) => {
    clearTimeout(timer)
    if (settled) return void upRes.resume()
    // a body that stalls for as long gets the relay cut (the status is already sent)
    upRes.setTimeout(timeoutMs, () =>
      upReq.destroy(Object.assign(new Error('timeout'), { code: 'ETIMEDOUT' })),
    )
    upRes.on('error', () => {})
    upRes.on('aborted', () => fail(502, 'reset', 'reset'))
    const relayed = relayHeaders(upRes.rawHeaders)
    // what was relayed is what is recorded and compared: no hop-by-hop header
    relayedHeaders = headerRecord(pairs(relayed))
    res.writeHead(upRes.statusCode ?? 502, upRes.statusMessage, [...relayed, ...corsHeaders])
    upRes.on('data', (chunk: Buffer) => answerBody.add(chunk))
    upRes.on('end', () => {
      if (!upRes.complete) return
      finish(upRes.statusCode ?? 502, relayedHeaders)
    })
    upRes.pipe(res)
  })
  upReq.on('close', () => {
    // a body stall past the timeout, or a reset while the body came
    if (!settled && res.headersSent) fail(502, 'reset', 'reset')
  })
  // the caller gave up: so does the upstream request
  res.on('close', () => {
    if (!res.writableFinished) upReq.destroy()
  })
  req.on('data', (chunk: Buffer) => requestBody.add(chunk))
  req.pipe(upReq)
}

/** Hop-by-hop, `proxy-*`, and whatever `Connection` names: never relayed. */
function hopByHop(rawHeaders: string[]): Set<string> {
  const drop = new Set(HOP_BY_HOP)
  for (let i = 0; i < rawHeaders.length; i += 2)
    if (rawHeaders[i].toLowerCase() === 'connection')
      for (const name of rawHeaders[i + 1].split(','))
        if (name.trim()) drop.add(name.trim().toLowerCase())
  return drop
}

/** The caller's headers for the upstream, names as sent: not Host, not hop-by-hop. */
export function forwardHeaders(rawHeaders: string[]): OutgoingHttpHeaders {
  const drop = hopByHop(rawHeaders)
  const out: Record<string, string | string[]> = {}
  for (let i = 0; i < rawHeaders.length; i += 2) {
    const name = rawHeaders[i]
    const lower = name.toLowerCase()
    if (lower === 'host' || drop.has(lower) || lower.startsWith('proxy-')) continue
    const had = out[name]
    out[name] = had === undefined ? rawHeaders[i + 1] : [had, rawHeaders[i + 1]].flat()
  }
  return out
}

/** The upstream's headers for the caller, a flat raw list (case and repeats as sent). */
function relayHeaders(rawHeaders: string[]): string[] {
  const drop = hopByHop(rawHeaders)
  const out: string[] = []
  for (let i = 0; i < rawHeaders.length; i += 2) {
    const lower = rawHeaders[i].toLowerCase()
    if (drop.has(lower) || lower.startsWith('proxy-')) continue
    out.push(rawHeaders[i], rawHeaders[i + 1])
  }
  return out
}

/** A flat name-value list as name → value(s). */
function pairs(flat: string[]): Record<string, string[]> {
  const out: Record<string, string[]> = {}
  for (let i = 0; i < flat.length; i += 2) (out[flat[i].toLowerCase()] ??= []).push(flat[i + 1])
  return out
}

export function sendError(res: ServerResponse, status: number, message: string, extra: string[]) {
  const text = JSON.stringify({ message, statusCode: status })
  res.writeHead(status, [
    'Content-Type',
    'application/json',
    'X-Content-Type-Options',
    'nosniff',
    'Content-Length',
    String(Buffer.byteLength(text)),
    ...extra,
  ])
  res.end(text)
}
