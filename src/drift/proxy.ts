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
 * Each exchange may be appended to a record file (record.ts). This file is the server: the Host
 * check and CORS, what is not /v1, then the relay (relay.ts) and the record.
 */
import { appendFileSync } from 'node:fs'
import { Agent as HttpAgent, createServer, request as httpRequest } from 'node:http'
import type { IncomingMessage, Server, ServerResponse } from 'node:http'
import { Agent as HttpsAgent, request as httpsRequest } from 'node:https'
import type { AddressInfo } from 'node:net'
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
import { maskRecordValue } from './mask.js'
import { Capture, recordLine, recordWriter } from './record.js'
import { forwardHeaders, relayExchange, sendError, upstreamBase, type Upstream } from './relay.js'

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

const DEFAULT_TIMEOUT_MS = 30_000

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
  const relayTo: Upstream = {
    url: upstream,
    shown: shownUpstream,
    timeoutMs,
    agent,
    send: secure ? httpsRequest : httpRequest,
  }
  const ownName = isWildcard(host) ? '127.0.0.1' : host.includes(':') ? `[${host}]` : host
  const compare = options.compare === undefined ? compareExchange : options.compare
  const writeRecord = recordWriter(record)

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
    const joined = upstream.pathname.replace(/\/$/, '') + path.slice('/v1'.length)
    const sentHeaders = forwardHeaders(req.rawHeaders)
    relayExchange(relayTo, req, res, {
      upstreamPath: (joined.startsWith('/') ? joined : `/${joined}`) + query,
      sentHeaders,
      corsHeaders,
      requestBody,
      answerBody,
      end: (end) => {
        const ms = Math.round((performance.now() - started) * 100) / 100
        const exchange = { arrived, ms, method, path, query, sentHeaders, requestBody, answerBody }
        const line = recordLine({ ...exchange, ...end }, mask, compare)
        writeRecord(line)
        const shownPath = maskRecordValue(undefined, path + query, mask) as string
        const found = line.findings.length
        options.log?.(
          `${method.padEnd(6)} ${shownPath} ${end.status} ${ms}ms` +
            (found ? `  ${found} finding${found === 1 ? '' : 's'}` : '') +
            (end.error ? `  (${end.error})` : ''),
        )
      },
    })
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

/** A Response the guard made (a 403, a preflight) written as it is. */
async function sendResponse(res: ServerResponse, response: Response) {
  const body = Buffer.from(await response.arrayBuffer())
  const headers: string[] = []
  response.headers.forEach((value, name) => headers.push(name, value))
  if (body.length) headers.push('content-length', String(body.length))
  res.writeHead(response.status, headers)
  res.end(body)
}
