/**
 * `card-sandbox proxy`: a recording proxy in front of the real service (or any upstream whose
 * base URL ends in `/v1`), for a team's suite to run through once, so that where the real
 * service and the sandbox differ is found on the team's own traffic.
 *
 * `/v1/<rest>` goes to `<upstream>/<rest>`, query kept, method, body and the caller's headers
 * through (Authorization included) but Host and the hop-by-hop headers; the caller gets the
 * upstream's status, headers and bytes as sent. Anything else is a 501: the real service has no
 * control plane and no pages. Refused or reset → 502, no answer within `timeoutMs` → 504.
 *
 * Why node:http rather than hono for the relay: @hono/node-server writes a Fetch Response,
 * whose Headers join repeated headers, lower-case their names and gain a default Content-Type,
 * and whose body fetch would decompress; node's own server and client relay the status line,
 * the raw header list and the bytes untouched, streamed both ways. Hono still runs the Host
 * check and `--cors` (http/middleware/), exactly as `serve` has them.
 *
 * Each exchange may be appended to a record file, one JSON line written whole by one
 * appendFileSync: what was sent and answered, masked (mask.ts), and the findings `compare`
 * made of the raw answer before masking.
 */
import { parsedBody } from '../journal/entry.js'
import { appendFileSync } from 'node:fs'
import { Agent as HttpAgent, createServer, request as httpRequest } from 'node:http'
import type { IncomingMessage, OutgoingHttpHeaders, Server, ServerResponse } from 'node:http'
import { Agent as HttpsAgent, request as httpsRequest } from 'node:https'
import type { AddressInfo } from 'node:net'
import { brotliDecompressSync, gunzipSync, inflateSync } from 'node:zlib'
import { Hono } from 'hono'
import { wallClock } from '../domain/clock.js'
import { onError } from '../http/errors.js'
import { cors as corsStage, corsOrigin } from '../http/middleware/cors.js'
import {
  allowedHostnames,
  hostCheck,
  isWildcard,
  listeningOrigin,
} from '../http/middleware/host-check.js'
import { maskUrlPassword } from '../lib/masking.js'
import type { AppEnv } from '../wiring/env.js'
import { compareExchange, type Exchange, type Finding } from './compare.js'
import { maskBody, maskFindingValue, maskHeaders, maskRecordValue } from './mask.js'

/** One line of the record file (JSON Lines), as written (report.ts reads it as `RecordLine`). */
export type WrittenLine = {
  /** When the request arrived (ISO 8601, wall time). */
  at: string
  /** The upstream round trip in milliseconds. */
  ms: number
  method: string
  path: string
  /** `""` or `"?a=1&b=2"`, as sent. */
  query: string
  request: { headers: Record<string, string>; body: unknown; truncated?: true }
  status: number
  response: { headers: Record<string, string>; body: unknown; truncated?: true }
  findings: Finding[]
  /** Set when the upstream gave no (whole) answer: the proxy answered 502 or 504 itself, or cut the relay. */
  error?: 'refused' | 'reset' | 'timeout' | 'unreachable'
}

export type ProxyOptions = {
  /** The upstream's base URL, `/v1` included: `https://api.example.com/v1`. */
  upstream: string
  /** Default 4010, the sandbox's: a suite pointed at the sandbox runs through the proxy as is. 0 picks a free port. */
  port?: number
  /** Default 127.0.0.1: the proxy relays a real key, so it is not reachable from elsewhere unless asked. */
  host?: string
  /** More Host names it answers to, as `serve --allowed-host`. */
  allowedHosts?: string[]
  /** Origins whose pages may call it, as `serve --cors` (`*` for any). */
  cors?: string[]
  /** Append one JSON line per exchange to this file. */
  record?: string
  /** How long the upstream has to answer (its status and headers), then 504. Default 30 000. */
  timeoutMs?: number
  /** Mask personal fields too (names, phone, email, id_no, address, bank_id, image URLs). */
  maskPersonal?: boolean
  /**
   * Finds the differences in one raw answer; its findings go in the record line. Default: the
   * sandbox's own contract (compare.ts `compareExchange`); `false` records no findings.
   */
  compare?: ((exchange: Exchange) => Finding[]) | false
  /** Called with one masked line per exchange (`POST /v1/cards/create 200 84.2ms`). */
  log?: (line: string) => void
}

export type RunningProxy = {
  /** `http://host:port` */
  url: string
  /** `http://host:port/v1`: the base URL a client uses instead of the upstream's. */
  baseUrl: string
  port: number
  /** Stops accepting connections and waits for the exchanges in flight. */
  close(): Promise<void>
}

/** The most of one body kept in a record line; the relay itself is never cut. */
export const RECORD_BODY_LIMIT = 1024 * 1024

const DEFAULT_TIMEOUT_MS = 30_000

/** Hop-by-hop headers (RFC 9110 §7.6.1), never relayed either way; `proxy-*` too. */
const HOP_BY_HOP = new Set([
  'connection',
  'keep-alive',
  'te',
  'trailer',
  'transfer-encoding',
  'upgrade',
])

/** The marker the guard answers with when a request may go on to the relay. */
const PASS = 'x-card-sandbox-proxy-pass'

/**
 * Starts a proxy to `upstream`.
 * @example
 * const proxy = await startProxy({ upstream: 'https://api.example.com/v1', port: 0, record: 'run.jsonl' })
 * // point the suite's base_url at proxy.baseUrl, run it, then: card-sandbox drift run.jsonl
 * await proxy.close()
 */
export async function startProxy(options: ProxyOptions): Promise<RunningProxy> {
  const upstream = upstreamBase(options.upstream)
  const shownUpstream = maskUrlPassword(upstream.href)
  const host = options.host ?? '127.0.0.1'
  const timeoutMs = options.timeoutMs ?? DEFAULT_TIMEOUT_MS
  if (!Number.isInteger(timeoutMs) || timeoutMs <= 0)
    throw new Error(`timeoutMs must be a positive whole number of milliseconds (got ${timeoutMs})`)
  const origins = (options.cors ?? []).map((origin) => {
    try {
      return corsOrigin(origin)
    } catch (error) {
      throw new Error(`cors: ${(error as Error).message}`)
    }
  })
  const mask = { personal: options.maskPersonal ?? false }
  const record = options.record
  // a file that cannot be written fails now, not at the first exchange
  if (record !== undefined) appendFileSync(record, '')

  const guard = new Hono<AppEnv>()
  guard.use(hostCheck(allowedHostnames({ host, allowedHosts: options.allowedHosts })))
  if (origins.length) guard.use(corsStage(origins))
  guard.all('*', () => new Response(null, { status: 204, headers: { [PASS]: '1' } }))
  guard.onError(onError)

  const secure = upstream.protocol === 'https:'
  const agent = secure ? new HttpsAgent({ keepAlive: true }) : new HttpAgent({ keepAlive: true })
  const send = secure ? httpsRequest : httpRequest
  const ownName = isWildcard(host) ? '127.0.0.1' : host.includes(':') ? `[${host}]` : host
  let recordFailed = false
  const compare = options.compare === undefined ? compareExchange : options.compare

  function writeRecord(line: WrittenLine) {
    if (record === undefined) return
    try {
      appendFileSync(record, JSON.stringify(line) + '\n')
    } catch (error) {
      if (!recordFailed)
        process.stderr.write(
          `card-sandbox proxy: cannot write --record ${record}: ${(error as Error).message}\n`,
        )
      recordFailed = true
    }
  }

  async function handle(req: IncomingMessage, res: ServerResponse) {
    const method = req.method ?? 'GET'
    const target = req.url ?? '/'
    const q = target.indexOf('?')
    const path = q === -1 ? target : target.slice(0, q)
    const query = q === -1 ? '' : target.slice(q)
    // the Host check and CORS, as serve runs them (a preflight is answered here)
    // over a socket the Host header names the request's URL, as @hono/node-server builds it
    const hostHeader = req.headers.host ?? ownName
    if (!URL.canParse(`http://${hostHeader}/`))
      return sendError(res, 400, `The Host header "${hostHeader}" is not a host name.`, [])
    const guarded = await guard.fetch(
      new Request(`http://${hostHeader}/`, {
        method: method === 'OPTIONS' ? 'OPTIONS' : 'GET',
        headers: guardHeaders(req),
      }),
    )
    const corsHeaders = extraHeaders(guarded)
    if (!guarded.headers.has(PASS)) return sendResponse(res, guarded)
    if (path !== '/v1' && !path.startsWith('/v1/'))
      return sendError(
        res,
        501,
        `The proxy forwards /v1 only: ${method} ${path} has no counterpart on ${shownUpstream}.`,
        corsHeaders,
      )

    const arrived = wallClock()
    const started = performance.now()
    const requestBody = new Capture()
    const answerBody = new Capture()
    const url = new URL(upstream.href)
    const rest = path.slice('/v1'.length)
    const joined = upstream.pathname.replace(/\/$/, '') + rest
    const upstreamPath = (joined.startsWith('/') ? joined : `/${joined}`) + query
    const sentHeaders = forwardHeaders(req.rawHeaders)
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
      const ms = Math.round((performance.now() - started) * 100) / 100
      let findings: Finding[] = []
      let body: unknown = ownBody
      if (error === undefined) {
        body = answerBody.body(answerHeaders)
        if (compare && !answerBody.truncated) {
          try {
            findings = compare({ method, path, status, headers: answerHeaders, body })
          } catch (failure) {
            process.stderr.write(
              `card-sandbox proxy: the comparison of ${method} ${maskRecordValue(undefined, path, mask) as string} failed: ${(failure as Error).message}\n`,
            )
          }
        }
      }
      const requestHeaders = headerRecord(sentHeaders)
      const line: WrittenLine = {
        at: new Date(arrived).toISOString(),
        ms,
        method,
        path: maskRecordValue(undefined, path, mask) as string,
        query: maskRecordValue(undefined, query, mask) as string,
        request: {
          headers: maskHeaders(requestHeaders, mask),
          body: maskBody(requestBody.body(requestHeaders), mask),
          ...(requestBody.truncated && { truncated: true as const }),
        },
        status,
        response: {
          headers: maskHeaders(answerHeaders, mask),
          body: maskBody(body, mask),
          ...(answerBody.truncated && { truncated: true as const }),
        },
        findings: findings.map((finding) => ({
          ...finding,
          upstream: maskFindingValue(finding.path, finding.upstream, mask),
        })),
        ...(error && { error }),
      }
      writeRecord(line)
      const shownPath = maskRecordValue(undefined, path + query, mask) as string
      options.log?.(
        `${method.padEnd(6)} ${shownPath} ${status} ${ms}ms` +
          (findings.length
            ? `  ${findings.length} finding${findings.length === 1 ? '' : 's'}`
            : '') +
          (error ? `  (${error})` : ''),
      )
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

  const server: Server = createServer((req, res) => {
    handle(req, res).catch((error: unknown) => {
      process.stderr.write(`card-sandbox proxy: unexpected error: ${(error as Error).stack}\n`)
      if (!res.headersSent) sendError(res, 500, 'Server Error', [])
      else res.destroy()
    })
  })
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject)
    server.listen(options.port ?? 4010, host, () => {
      server.off('error', reject)
      resolve()
    })
  })
  const address = server.address() as AddressInfo
  const url = listeningOrigin(address)
  let closing: Promise<void> | undefined
  return {
    url,
    baseUrl: `${url}/v1`,
    port: address.port,
    close() {
      closing ??= new Promise<void>((resolve) => {
        const force = setTimeout(() => server.closeAllConnections(), 5_000)
        force.unref()
        server.close(() => {
          clearTimeout(force)
          agent.destroy()
          resolve()
        })
        server.closeIdleConnections()
      })
      return closing
    },
  }
}

/** The upstream's base URL, checked: http(s), no query or fragment, no trailing slash. */
function upstreamBase(value: string): URL {
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

/** What the guard needs of a request: its Host, and what CORS reads. */
function guardHeaders(req: IncomingMessage): Headers {
  const headers = new Headers()
  for (const name of [
    'origin',
    'access-control-request-method',
    'access-control-request-headers',
  ]) {
    const value = req.headers[name]
    if (typeof value === 'string') headers.set(name, value)
  }
  return headers
}

/** The guard's headers that go on the answer (CORS's), as a flat name-value list. */
function extraHeaders(guarded: Response): string[] {
  const out: string[] = []
  guarded.headers.forEach((value, name) => {
    if (name.startsWith('access-control-') || name === 'vary') out.push(name, value)
  })
  return out
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
function forwardHeaders(rawHeaders: string[]): OutgoingHttpHeaders {
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

/** Headers as one string per lower-case name (repeats joined with ", "). */
function headerRecord(
  headers: OutgoingHttpHeaders | IncomingMessage['headers'],
): Record<string, string> {
  const out: Record<string, string> = {}
  for (const [name, value] of Object.entries(headers)) {
    if (value === undefined) continue
    out[name.toLowerCase()] = Array.isArray(value) ? value.join(', ') : String(value)
  }
  return out
}

/** A body's first RECORD_BODY_LIMIT bytes, for the record and the comparison. */
class Capture {
  private chunks: Buffer[] = []
  private size = 0
  truncated = false

  add(chunk: Buffer) {
    if (this.size >= RECORD_BODY_LIMIT) {
      this.truncated = true
      return
    }
    const room = RECORD_BODY_LIMIT - this.size
    if (chunk.length > room) this.truncated = true
    const kept = chunk.length > room ? chunk.subarray(0, room) : chunk
    this.chunks.push(kept)
    this.size += kept.length
  }

  /** Parsed JSON if JSON, else the text, null if none; decoded when the headers say gzip, deflate or br. */
  body(headers: Record<string, string>): unknown {
    if (this.size === 0) return null
    let bytes = Buffer.concat(this.chunks)
    const encoding = (headers['content-encoding'] ?? '').trim().toLowerCase()
    if (encoding && encoding !== 'identity') {
      if (this.truncated) return `(${encoding} body over ${RECORD_BODY_LIMIT} bytes, not kept)`
      try {
        const limit = { maxOutputLength: RECORD_BODY_LIMIT }
        bytes =
          encoding === 'gzip' || encoding === 'x-gzip'
            ? gunzipSync(bytes, limit)
            : encoding === 'deflate'
              ? inflateSync(bytes, limit)
              : encoding === 'br'
                ? brotliDecompressSync(bytes, limit)
                : bytes
      } catch {
        return `(${encoding} body, not decoded)`
      }
      if (!['gzip', 'x-gzip', 'deflate', 'br'].includes(encoding))
        return `(${encoding} body, not decoded)`
    }
    const text = bytes.toString('utf8')
    const type = (headers['content-type'] ?? '').toLowerCase()
    // deeper than the journal keeps parsed stays text: the masking walks what is parsed
    if (!this.truncated && (type.includes('json') || /^\s*[[{]/.test(text))) return parsedBody(text)
    return text
  }
}

function sendError(res: ServerResponse, status: number, message: string, extra: string[]) {
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

/** A Response the guard made (a 403, a preflight) written as it is. */
async function sendResponse(res: ServerResponse, response: Response) {
  const body = Buffer.from(await response.arrayBuffer())
  const headers: string[] = []
  response.headers.forEach((value, name) => headers.push(name, value))
  if (body.length) headers.push('content-length', String(body.length))
  res.writeHead(response.status, headers)
  res.end(body)
}
