/**
 * Probe: a tenant's requests racing its own reset. Over real sockets, every
 * round forces the interleaving that answered 500: the request has resolved its tenant (the
 * server has sent `100 Continue`, which it does right after dispatching the request), then the
 * tenant is reset, then the body is sent. Then rounds of 5 unforced concurrent requests, as the
 * fuzz that found it sent. Nothing may answer a 5xx; what a request wrote lands on the fresh
 * tenant. SECURITY_ROUNDS sets the rounds.
 */
import type { SqliteDb } from '../../src/store/sqlite/driver.js'
import { request } from 'node:http'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { OPENING_FLOAT } from '../../src/domain/ledger.js'
import { startSandbox, type RunningSandbox } from '../../src/server/sandbox.js'

const ROUNDS = Number(process.env.SECURITY_ROUNDS ?? 25)
const TOKEN = 'racing-token'
const HEADERS = { Authorization: `Bearer ${TOKEN}`, 'Content-Type': 'application/json' }

let sandbox: RunningSandbox

beforeAll(async () => {
  sandbox = await startSandbox({ port: 0, clock: 'manual', log: 'silent', seed: 7 })
})
afterAll(() => sandbox.close())

type Answer = { status: number; body: any }

async function send(method: string, path: string, body?: unknown): Promise<Answer> {
  const res = await fetch(`${sandbox.url}${path}`, {
    method,
    headers: HEADERS,
    body: body === undefined ? undefined : JSON.stringify(body),
  })
  return { status: res.status, body: await res.json() }
}

/**
 * Sends the request's headers at once and its body in a later write: once the server has sent
 * `100 Continue` (right after dispatching the request, so its tenant is resolved) when `between`
 * is given, after running `between` (a reset); else 2 ms later, a window that the other
 * requests' resets may or may not fall into.
 */
function sendInTwoParts(
  method: string,
  path: string,
  body: unknown,
  between?: () => Promise<void>,
): Promise<Answer> {
  const payload = JSON.stringify(body ?? {})
  return new Promise((resolve, reject) => {
    const req = request(`${sandbox.url}${path}`, {
      method,
      headers: {
        ...HEADERS,
        'Content-Length': Buffer.byteLength(payload),
        ...(between && { Expect: '100-continue' }),
      },
    })
    if (between) req.on('continue', () => void between().then(() => req.end(payload), reject))
    else {
      req.flushHeaders()
      setTimeout(() => req.end(payload), 2)
    }
    req.on('response', (res) => {
      let text = ''
      res.setEncoding('utf8')
      res.on('data', (chunk) => (text += chunk))
      res.on('end', () => resolve({ status: res.statusCode ?? 0, body: JSON.parse(text) }))
    })
    req.on('error', reject)
  })
}

async function reset(): Promise<void> {
  const answer = await send('POST', '/__sandbox/reset')
  if (answer.status !== 200) throw new Error(`reset answered ${answer.status}`)
}

describe('a reset racing the same tenant’s requests (real sockets)', () => {
  it(`never answers 5xx, and writes to the fresh tenant, when the reset falls between tenant lookup and write (${ROUNDS} rounds)`, async () => {
    for (let round = 0; round < ROUNDS; round++) {
      const url = `http://127.0.0.1:9/hooks/${round}`
      const writes: [string, string, unknown][] = [
        ['PUT', '/__sandbox/clock', { mode: round % 2 ? 'real' : 'manual' }],
        ['PUT', '/__sandbox/webhook', { url }],
        ['PUT', '/__sandbox/delays', { card_issuing: `${round + 1}s` }],
        ['POST', '/__sandbox/clock/advance', { by: '1m' }],
        ['POST', '/__sandbox/business/fund', { amount: round + 1 }],
        ['POST', '/v1/card-users/create', { phone: '+221770000000' }],
      ]
      for (const [method, path, body] of writes) {
        const answer = await sendInTwoParts(method, path, body, reset)
        expect(answer.status, `${method} ${path}: ${JSON.stringify(answer.body)}`).toBe(200)
      }
      // the last reset came before the last write: only that write shows on the fresh tenant,
      // and every earlier one was undone by the reset that followed it
      expect((await send('GET', '/v1/card-users')).body.meta.total).toBe(1)
      expect((await send('GET', '/__sandbox/business')).body.data.float_balance).toBe(OPENING_FLOAT)
      expect((await send('GET', '/__sandbox/webhook')).body.data.url).toBe(url)
    }
  })

  it(`never answers 5xx to 5 concurrent updates and resets of one tenant (${ROUNDS * 3} rounds)`, async () => {
    const requests: [string, string, unknown?][] = [
      ['PUT', '/__sandbox/clock', { mode: 'manual' }],
      ['PUT', '/__sandbox/webhook', { url: 'http://127.0.0.1:9/hooks' }],
      ['POST', '/__sandbox/reset'],
      ['PUT', '/__sandbox/delays', { card_issuing: '1s' }],
      ['POST', '/__sandbox/clock/advance', { by: '1s' }],
    ]
    for (let round = 0; round < ROUNDS * 3; round++) {
      const answers = await Promise.all(requests.map(([m, p, b]) => sendInTwoParts(m, p, b)))
      for (const [i, answer] of answers.entries())
        expect(answer.status, `${requests[i][1]}: ${JSON.stringify(answer.body)}`).toBe(200)
    }
    const rows = (sandbox.deps.db as SqliteDb).$client
      .prepare('SELECT COUNT(*) AS n FROM tenants WHERE token = ?')
      .get(TOKEN) as { n: number }
    expect(rows.n).toBe(1)
  })
})
