/**
 * The recording proxy over real HTTP: in front of a sandbox started on a port (the stand-in for
 * the real service) or of small node:http upstreams that echo, plant secrets, hang or reset.
 */
import { mkdtempSync, readFileSync } from 'node:fs'
import { createServer, request, type IncomingMessage, type Server } from 'node:http'
import { connect, type AddressInfo } from 'node:net'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { gzipSync } from 'node:zlib'
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest'
import { createSandboxClient } from '../../src/clients/client.js'
import { startProxy, type Exchange, type RunningProxy } from '../../src/index.js'
import type { WrittenLine as RecordLine } from '../../src/drift/record.js'
import { startSandbox, type RunningSandbox } from '../../src/index.js'

const dir = mkdtempSync(join(tmpdir(), 'card-sandbox-proxy-'))
let files = 0
const recordFile = () => join(dir, `record-${++files}.jsonl`)
const readRecord = (file: string): RecordLine[] =>
  readFileSync(file, 'utf8')
    .split('\n')
    .filter(Boolean)
    .map((line) => JSON.parse(line) as RecordLine)

const open: { close(): Promise<void> }[] = []
afterEach(async () => {
  await Promise.all(open.splice(0).map((item) => item.close()))
})

async function proxy(options: Parameters<typeof startProxy>[0]): Promise<RunningProxy> {
  const running = await startProxy({ port: 0, ...options })
  open.push(running)
  return running
}

/** A node:http upstream on a free port; `handler` answers. */
async function upstream(
  handler: (req: IncomingMessage, body: Buffer, res: import('node:http').ServerResponse) => void,
): Promise<{ url: string; server: Server; close(): Promise<void> }> {
  const server = createServer((req, res) => {
    const chunks: Buffer[] = []
    req.on('data', (chunk: Buffer) => chunks.push(chunk))
    req.on('end', () => handler(req, Buffer.concat(chunks), res))
  })
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  const { port } = server.address() as AddressInfo
  const item = {
    url: `http://127.0.0.1:${port}`,
    server,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections()
        server.close(() => resolve())
      }),
  }
  open.push(item)
  return item
}

/** Answers what it received: method, the request target, headers, body. */
const echo = () =>
  upstream((req, body, res) => {
    const text = JSON.stringify({
      method: req.method,
      url: req.url,
      headers: req.headers,
      body: body.toString('utf8'),
    })
    res.writeHead(200, { 'Content-Type': 'application/json' })
    res.end(text)
  })

/** A raw request, to see header names, repeats and bytes as they arrive. */
function raw(
  url: string,
  options: { method?: string; headers?: Record<string, string>; body?: string } = {},
): Promise<{ status: number; rawHeaders: string[]; body: Buffer }> {
  return new Promise((resolve, reject) => {
    const req = request(
      url,
      { method: options.method ?? 'GET', headers: options.headers },
      (res) => {
        const chunks: Buffer[] = []
        res.on('data', (chunk: Buffer) => chunks.push(chunk))
        res.on('end', () =>
          resolve({
            status: res.statusCode!,
            rawHeaders: res.rawHeaders,
            body: Buffer.concat(chunks),
          }),
        )
      },
    )
    req.on('error', reject)
    req.end(options.body)
  })
}

describe('forwarding', () => {
  it('sends /v1/<rest> to <base_url>/<rest> with its query, never a doubled /v1', async () => {
    const up = await echo()
    const p = await proxy({ upstream: `${up.url}/v1` })
    for (const [asked, arrived] of [
      ['/v1/cards?page=2&per_page=5', '/v1/cards?page=2&per_page=5'],
      ['/v1/cards/abc-123', '/v1/cards/abc-123'],
      ['/v1', '/v1'],
    ]) {
      const res = await fetch(p.url + asked, { headers: { Authorization: 'Bearer t' } })
      expect(res.status).toBe(200)
      expect(((await res.json()) as { url: string }).url).toBe(arrived)
    }
    // a base URL with a deeper path (and a trailing slash) keeps it
    const deeper = await proxy({ upstream: `${up.url}/api/v1/` })
    const res = await fetch(`${deeper.url}/v1/cards?page=2`)
    expect(((await res.json()) as { url: string }).url).toBe('/api/v1/cards?page=2')
  })

  it('reaches a sandbox upstream at the paths it should, as its request journal shows', async () => {
    const sandbox: RunningSandbox = await startSandbox({ port: 0, clock: 'manual', seed: 1 })
    open.push(sandbox)
    const p = await proxy({ upstream: sandbox.baseUrl })
    const headers = { Authorization: 'Bearer journal-tenant' }
    expect((await fetch(`${p.url}/v1/cards?page=2`, { headers })).status).toBe(200)
    expect((await fetch(`${p.url}/v1/card-users`, { headers })).status).toBe(200)
    const direct = createSandboxClient({ baseUrl: sandbox.baseUrl, token: 'journal-tenant' })
    const journal = await direct.requests({ path: '/v1/*' })
    expect(journal.data.map((entry) => `${entry.path}${entry.query}`).sort()).toEqual([
      '/v1/card-users',
      '/v1/cards?page=2',
    ])
  })

  it("sends the caller's method, body and headers, Authorization included, but Host and hop-by-hop", async () => {
    const up = await echo()
    const p = await proxy({ upstream: `${up.url}/v1` })
    const res = await raw(`${p.url}/v1/cards/create`, {
      method: 'POST',
      headers: {
        Authorization: 'Bearer team-key-0123456789',
        'Content-Type': 'application/json',
        'X-Request-Id': 'req-1',
        Connection: 'keep-alive, X-Hop',
        'X-Hop': 'only for the next hop',
        'Keep-Alive': 'timeout=5',
        'Proxy-Authorization': 'Basic abc',
        TE: 'trailers',
      },
      body: '{"card_brand":"visa"}',
    })
    const seen = JSON.parse(res.body.toString()) as {
      method: string
      headers: Record<string, string>
      body: string
    }
    expect(seen.method).toBe('POST')
    expect(seen.body).toBe('{"card_brand":"visa"}')
    expect(seen.headers.authorization).toBe('Bearer team-key-0123456789')
    expect(seen.headers['x-request-id']).toBe('req-1')
    expect(seen.headers['content-type']).toBe('application/json')
    // the upstream's own name, not the proxy's
    expect(seen.headers.host).toBe(new URL(up.url).host)
    for (const name of ['x-hop', 'keep-alive', 'proxy-authorization', 'te'])
      expect(seen.headers, name).not.toHaveProperty(name)
  })

  it("relays the upstream's status, headers (names, repeats) and bytes as sent, a gzip body too", async () => {
    const json = JSON.stringify({
      message: 'Cards fetched successfully',
      statusCode: 200,
      data: [],
    })
    const gzipped = gzipSync(json)
    const up = await upstream((_req, _body, res) => {
      res.writeHead(201, 'Made Here', [
        'Content-Type',
        'application/json',
        'Content-Encoding',
        'gzip',
        'X-RateLimit-Limit',
        '60',
        'Set-Cookie',
        'a=1',
        'Set-Cookie',
        'b=2',
        'Content-Length',
        String(gzipped.length),
      ])
      res.end(gzipped)
    })
    const file = recordFile()
    const p = await proxy({ upstream: `${up.url}/v1`, record: file })
    const res = await raw(`${p.url}/v1/cards`, { headers: { 'Accept-Encoding': 'gzip' } })
    expect(res.status).toBe(201)
    expect(res.body.equals(gzipped)).toBe(true)
    const pairs = []
    for (let i = 0; i < res.rawHeaders.length; i += 2)
      pairs.push(`${res.rawHeaders[i]}: ${res.rawHeaders[i + 1]}`)
    expect(pairs).toEqual(
      expect.arrayContaining([
        'Content-Encoding: gzip',
        'X-RateLimit-Limit: 60',
        'Set-Cookie: a=1',
        'Set-Cookie: b=2',
      ]),
    )
    // the record has the body decoded
    const [line] = readRecord(file)
    expect(line.status).toBe(201)
    expect(line.response.body).toEqual(JSON.parse(json))
    expect(line.response.headers['x-ratelimit-limit']).toBe('60')
    // cookies are credentials: masked, their length kept ('a=1, b=2')
    expect(line.response.headers['set-cookie']).toBe('********')
    // hop-by-hop headers are neither relayed nor recorded
    expect(line.response.headers).not.toHaveProperty('connection')
    expect(line.response.headers).not.toHaveProperty('keep-alive')
  })

  it('answers 501 in the error shape for what the real service has no counterpart of', async () => {
    const up = await echo()
    const p = await proxy({ upstream: `${up.url}/v1` })
    for (const path of ['/__sandbox/requests', '/', '/__sandbox/ui', '/v1x/cards']) {
      const res = await fetch(p.url + path)
      expect(res.status, path).toBe(501)
      const body = (await res.json()) as { message: string; statusCode: number }
      expect(body.statusCode).toBe(501)
      expect(body.message).toContain('forwards /v1 only')
      expect(body.message).toContain(`${up.url}/v1`)
    }
  })

  it('refuses a Host that is not its own (403) and answers --cors as serve does', async () => {
    const up = await echo()
    const p = await proxy({ upstream: `${up.url}/v1`, cors: ['http://localhost:5173'] })
    const rebound = await raw(`${p.url}/v1/cards`, { headers: { Host: 'evil.example' } })
    expect(rebound.status).toBe(403)
    expect(JSON.parse(rebound.body.toString()).message).toContain('evil.example')
    const preflight = await fetch(`${p.url}/v1/cards`, {
      method: 'OPTIONS',
      headers: { Origin: 'http://localhost:5173', 'Access-Control-Request-Method': 'POST' },
    })
    expect(preflight.status).toBe(204)
    expect(preflight.headers.get('access-control-allow-origin')).toBe('http://localhost:5173')
    const relayed = await fetch(`${p.url}/v1/cards`, {
      headers: { Origin: 'http://localhost:5173' },
    })
    expect(relayed.status).toBe(200)
    expect(relayed.headers.get('access-control-allow-origin')).toBe('http://localhost:5173')
    const other = await fetch(`${p.url}/v1/cards`, { headers: { Origin: 'http://evil.example' } })
    expect(other.headers.get('access-control-allow-origin')).toBeNull()
  })
})

describe('an upstream that fails', () => {
  it('refused: 502 naming the upstream, and the proxy goes on serving', async () => {
    const closed = await upstream(() => {})
    const url = closed.url
    await closed.close()
    const file = recordFile()
    const p = await proxy({ upstream: `${url}/v1`, record: file })
    for (let i = 0; i < 2; i++) {
      const res = await fetch(`${p.url}/v1/cards`)
      expect(res.status).toBe(502)
      const body = (await res.json()) as { message: string; statusCode: number }
      expect(body).toEqual({ message: expect.stringContaining(`${url}/v1`), statusCode: 502 })
      expect(body.message).toContain('refused')
    }
    expect(readRecord(file).map((line) => [line.status, line.error])).toEqual([
      [502, 'refused'],
      [502, 'refused'],
    ])
  })

  it('reset: 502; hung past the timeout: 504; then the next request is relayed', async () => {
    const up = await upstream((req, _body, res) => {
      if (req.url === '/v1/reset') return req.socket.destroy()
      if (req.url === '/v1/hang') return
      res.writeHead(200, { 'Content-Type': 'application/json' })
      res.end('{"ok":true}')
    })
    const file = recordFile()
    const p = await proxy({ upstream: `${up.url}/v1`, timeoutMs: 200, record: file })

    const reset = await fetch(`${p.url}/v1/reset`)
    expect(reset.status).toBe(502)
    expect(((await reset.json()) as { message: string }).message).toContain(up.url)
    expect((await fetch(`${p.url}/v1/ok`)).status).toBe(200)

    const started = performance.now()
    const hung = await fetch(`${p.url}/v1/hang`)
    const waited = performance.now() - started
    expect(hung.status).toBe(504)
    expect(await hung.json()).toEqual({
      message: expect.stringContaining(`${up.url}/v1 did not answer within 200 ms`),
      statusCode: 504,
    })
    expect(waited).toBeGreaterThanOrEqual(190)
    expect(waited).toBeLessThan(5_000)
    const next = await fetch(`${p.url}/v1/ok`)
    expect(next.status).toBe(200)
    expect(await next.json()).toEqual({ ok: true })
    expect(readRecord(file).map((line) => [line.path, line.status, line.error ?? null])).toEqual([
      ['/v1/reset', 502, 'reset'],
      ['/v1/ok', 200, null],
      ['/v1/hang', 504, 'timeout'],
      ['/v1/ok', 200, null],
    ])
  })
})

describe('an answer cut short', () => {
  it('a body that stalls past the timeout: the relay is cut, the line says timeout', async () => {
    const up = await upstream((_req, _body, res) => {
      res.writeHead(200, { 'Content-Type': 'application/json', 'Content-Length': '100' })
      res.write('{"partial":')
    })
    const file = recordFile()
    const p = await proxy({ upstream: `${up.url}/v1`, timeoutMs: 200, record: file })
    const res = await fetch(`${p.url}/v1/slow`)
    expect(res.status).toBe(200)
    await expect(res.text()).rejects.toThrow()
    const [line] = readRecord(file)
    expect(line).toMatchObject({ path: '/v1/slow', status: 200, error: 'timeout' })
    expect(line.response.headers['content-length']).toBe('100')
    expect((await fetch(`${p.url}/__sandbox/requests`)).status).toBe(501)
  })
  it('a body that keeps coming past the timeout, never stalling that long: relayed whole', async () => {
    // 30 pieces 20 ms apart: 600 ms in all, each gap far within the 400 ms timeout
    const pieces = Array.from({ length: 30 }, (_, i) => JSON.stringify({ piece: i }))
    const whole = `[${pieces.join(',')}]`
    const up = await upstream((_req, _body, res) => {
      res.writeHead(200, { 'Content-Type': 'application/json' })
      res.write('[')
      let sent = 0
      const timer = setInterval(() => {
        res.write((sent ? ',' : '') + pieces[sent++])
        if (sent < pieces.length) return
        clearInterval(timer)
        res.end(']')
      }, 20)
      res.on('close', () => clearInterval(timer))
    })
    const file = recordFile()
    const p = await proxy({ upstream: `${up.url}/v1`, timeoutMs: 400, record: file })
    const res = await fetch(`${p.url}/v1/stream`)
    expect(res.status).toBe(200)
    expect(await res.text()).toBe(whole)
    const [line] = readRecord(file)
    expect(line).toMatchObject({ path: '/v1/stream', status: 200 })
    expect(line.error).toBeUndefined()
    expect(line.response.body).toEqual(JSON.parse(whole))
  })
})

describe('the record file', () => {
  it('holds one whole line per exchange under 50 concurrent requests', async () => {
    // answers big enough that a line split across writes would show
    const up = await upstream((req, body, res) => {
      res.writeHead(200, { 'Content-Type': 'application/json' })
      res.end(JSON.stringify({ url: req.url, got: body.toString(), pad: 'x'.repeat(200_000) }))
    })
    const file = recordFile()
    const p = await proxy({ upstream: `${up.url}/v1`, record: file, compare: false })
    const answers = await Promise.all(
      Array.from({ length: 50 }, (_, i) =>
        fetch(`${p.url}/v1/items/${i}?n=${i}`, {
          method: 'POST',
          headers: { 'Content-Type': 'application/json' },
          body: JSON.stringify({ i }),
        }),
      ),
    )
    expect(answers.every((res) => res.status === 200)).toBe(true)
    await Promise.all(answers.map((res) => res.arrayBuffer()))
    const lines = readFileSync(file, 'utf8').split('\n')
    expect(lines.pop()).toBe('')
    expect(lines).toHaveLength(50)
    const parsed = lines.map((line) => JSON.parse(line) as RecordLine)
    expect(parsed.map((line) => line.path).sort()).toEqual(
      Array.from({ length: 50 }, (_, i) => `/v1/items/${i}`).sort(),
    )
    for (const line of parsed) {
      const i = Number(line.path.split('/').pop())
      expect(line).toMatchObject({
        method: 'POST',
        query: `?n=${i}`,
        status: 200,
        request: { body: { i } },
        response: { body: { url: `/v1/items/${i}?n=${i}`, got: JSON.stringify({ i }) } },
        findings: [],
      })
      expect(Number.isNaN(Date.parse(line.at))).toBe(false)
      expect(line.ms).toBeGreaterThan(0)
    }
  })

  it('keeps at most 1 MiB of a body, saying it was cut, while relaying all of it', async () => {
    const big = 'y'.repeat(3 * 1024 * 1024)
    const up = await upstream((_req, _body, res) => {
      res.writeHead(200, { 'Content-Type': 'text/plain' })
      res.end(big)
    })
    const file = recordFile()
    const p = await proxy({ upstream: `${up.url}/v1`, record: file })
    const res = await fetch(`${p.url}/v1/export`)
    expect((await res.text()).length).toBe(big.length)
    const [line] = readRecord(file)
    expect(line.response.truncated).toBe(true)
    expect((line.response.body as string).length).toBe(1024 * 1024)
  })

  it("records a JSON answer nested past the journal's depth as its text, and serves on", async () => {
    const deep = '['.repeat(100_000) + ']'.repeat(100_000)
    const up = await upstream((_req, _body, res) => {
      res.writeHead(200, { 'Content-Type': 'application/json' })
      res.end(deep)
    })
    const file = recordFile()
    const p = await proxy({ upstream: `${up.url}/v1`, record: file })
    expect(await (await fetch(`${p.url}/v1/deep`)).text()).toBe(deep)
    expect((await fetch(`${p.url}/v1/deep`)).status).toBe(200)
    const lines = readRecord(file)
    expect(lines).toHaveLength(2)
    expect(lines[0].response.body).toBe(deep)
  })
})

describe('secrets', () => {
  it('never reach the record or the console: the token, card number, cvv2 and access token of a sandbox', async () => {
    const sandbox = await startSandbox({ port: 0, clock: 'manual', seed: 7 })
    open.push(sandbox)
    const token = 'team-live-key-7f3a9c2e51'
    const file = recordFile()
    const console: string[] = []
    const p = await proxy({ upstream: sandbox.baseUrl, record: file, log: (l) => console.push(l) })
    const call = async (method: string, path: string, body?: unknown) => {
      const res = await fetch(p.url + path, {
        method,
        headers: {
          Authorization: `Bearer ${token}`,
          ...(body !== undefined && { 'Content-Type': 'application/json' }),
        },
        body: body === undefined ? undefined : JSON.stringify(body),
      })
      expect(res.status, `${method} ${path}`).toBeLessThan(300)
      return (await res.json()) as { data: Record<string, Record<string, unknown>> }
    }
    const direct = createSandboxClient({ baseUrl: sandbox.baseUrl, token })
    const user = await call('POST', '/v1/card-users/create', {
      first_name: 'Awa',
      last_name: 'Diop',
      address: '12 Rue Carnot, Dakar',
      phone: '+221771234567',
      email: 'awa.diop@example.com',
      id_no: '1234567890123',
      selfie_image: 'https://img.example.com/selfie.jpg',
      id_image: 'https://img.example.com/id-front.jpg',
      back_id_image: 'https://img.example.com/id-back.jpg',
    })
    const userRef = ((user.data ?? user) as unknown as { userCard: { reference: string } }).userCard
      .reference
    await direct.transition('card-users', userRef, 'passed')
    const order = await call('POST', '/v1/cards/create', {
      card_user_reference: userRef,
      card_brand: 'visa',
      card_type: 'virtual',
    })
    const cardRef = order.data.card.reference as string
    await direct.transition('cards', cardRef, 'issued')
    const shown = await call('GET', `/v1/cards/${cardRef}`)
    const cardNumber = shown.data.card.card_number as string
    const cvv2 = shown.data.card.cvv2 as string
    expect(cardNumber).toMatch(/^\d{13,19}$/)
    expect(cvv2).toMatch(/^\d{3,4}$/)
    const access = await call('POST', '/v1/cards/auth/access_token', { reference: cardRef })
    const accessToken = access.data.access_token as unknown as string
    const revealUrl = access.data.embedded_ui as unknown as string
    expect(revealUrl).toContain(accessToken)

    const text = readFileSync(file, 'utf8')
    const shownConsole = console.join('\n')
    for (const secret of [token, cardNumber, accessToken, `"cvv2":"${cvv2}"`]) {
      expect(text.includes(secret), secret).toBe(false)
      expect(shownConsole.includes(secret), secret).toBe(false)
    }
    // what is left: the same keys, masked, types and lengths kept
    const lines = readRecord(file)
    const card = (
      lines.find((line) => line.path === `/v1/cards/${cardRef}`)!.response.body as {
        data: { card: Record<string, unknown> }
      }
    ).data.card
    expect(card.card_number).toBe('0'.repeat(cardNumber.length - 4) + cardNumber.slice(-4))
    expect(card.cvv2).toBe('0'.repeat(cvv2.length))
    expect(lines[0].request.headers.authorization).toBe(
      `Bearer ${'*'.repeat(token.length - 4)}${token.slice(-4)}`,
    )
    // personal fields stay, by default
    expect(text).toContain('Awa')
    expect(text).toContain('+221771234567')
    expect(shownConsole).toMatch(/^GET {4}\/v1\/cards\/[0-9a-f-]{36} 200 \d+(\.\d+)?ms$/m)
  })

  it('planted by an upstream never reach the file, and a type drift on cvv2 is still reported', async () => {
    const planted = {
      card: '4242424242424242',
      cvv2: 987,
      accessToken: 'acc_9f8e7d6c5b4a39281706',
      bearer: 'srv_0a1b2c3d4e5f6a7b8c9d',
      webhookSecret: 'whsec_planted_5e6f7a8b',
    }
    const up = await upstream((_req, _body, res) => {
      res.writeHead(200, {
        'Content-Type': 'application/json',
        'X-Echo-Auth': `Bearer ${planted.bearer}`,
      })
      res.end(
        JSON.stringify({
          message: `Card ${planted.card} fetched`,
          statusCode: 200,
          data: {
            card: { reference: 'c-1', card_number: planted.card, cvv2: planted.cvv2 },
            access_token: planted.accessToken,
            webhook_secret: planted.webhookSecret,
            note: `Authorization: Bearer ${planted.bearer}`,
            identifier: Number(planted.card),
          },
        }),
      )
    })
    const file = recordFile()
    const console: string[] = []
    const seen: Exchange[] = []
    const p = await proxy({
      upstream: `${up.url}/v1`,
      record: file,
      log: (line) => console.push(line),
      compare: (exchange) => {
        seen.push(exchange)
        const cvv = (exchange.body as { data: { card: { cvv2: unknown } } }).data.card.cvv2
        return typeof cvv === 'string'
          ? []
          : [
              {
                route: 'GET /v1/cards/{reference}',
                path: '$.data.card.cvv2',
                kind: 'type',
                upstream: cvv,
                sandbox: 'string',
              },
            ]
      },
    })
    const res = await fetch(`${p.url}/v1/cards/c-1?access_token=${planted.accessToken}`, {
      headers: { Authorization: `Bearer ${planted.bearer}` },
    })
    expect(res.status).toBe(200)
    // the caller gets it all, unmasked, and so does the comparison
    expect(((await res.json()) as { data: { card: { cvv2: number } } }).data.card.cvv2).toBe(987)
    expect((seen[0].body as { data: { card: { cvv2: number } } }).data.card.cvv2).toBe(987)

    const text = readFileSync(file, 'utf8')
    for (const secret of [
      planted.card,
      planted.accessToken,
      planted.bearer,
      planted.webhookSecret,
      '"cvv2":987',
      ':987',
    ]) {
      expect(text.includes(secret), secret).toBe(false)
      expect(console.join('\n').includes(secret), secret).toBe(false)
    }
    const [line] = readRecord(file)
    expect(line.findings).toEqual([
      {
        route: 'GET /v1/cards/{reference}',
        path: '$.data.card.cvv2',
        kind: 'type',
        upstream: 100,
        sandbox: 'string',
      },
    ])
    expect(
      typeof (line.response.body as { data: { card: { cvv2: unknown } } }).data.card.cvv2,
    ).toBe('number')
    expect(line.query).toBe(
      `?access_token=${'*'.repeat(planted.accessToken.length - 4)}${planted.accessToken.slice(-4)}`,
    )
  })

  it('masks personal fields too with maskPersonal', async () => {
    const up = await upstream((_req, _body, res) => {
      res.writeHead(200, { 'Content-Type': 'application/json' })
      res.end(
        JSON.stringify({ data: { first_name: 'Awa', phone: '+221771234567', status: 'passed' } }),
      )
    })
    const file = recordFile()
    const p = await proxy({ upstream: `${up.url}/v1`, record: file, maskPersonal: true })
    await (await fetch(`${p.url}/v1/card-users/u-1`)).arrayBuffer()
    const [line] = readRecord(file)
    expect(line.response.body).toEqual({
      data: { first_name: '***', phone: '*************', status: 'passed' },
    })
  })
})

describe('startProxy', () => {
  let sandbox: RunningSandbox
  beforeAll(async () => {
    sandbox = await startSandbox({ port: 0, clock: 'manual', seed: 2 })
  })
  afterAll(() => sandbox.close())

  it('refuses an upstream that is not an http(s) base URL, and a record file it cannot write', async () => {
    await expect(startProxy({ upstream: 'ftp://example.com/v1', port: 0 })).rejects.toThrow(
      'upstream must be an http(s) URL',
    )
    await expect(startProxy({ upstream: `${sandbox.baseUrl}?x=1`, port: 0 })).rejects.toThrow(
      'no query',
    )
    await expect(
      startProxy({ upstream: sandbox.baseUrl, port: 0, record: join(dir, 'missing', 'r.jsonl') }),
    ).rejects.toThrow('ENOENT')
  })

  it('binds 127.0.0.1 by default', async () => {
    const p = await proxy({ upstream: sandbox.baseUrl })
    expect(p.url).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/)
    expect(p.baseUrl).toBe(`${p.url}/v1`)
  })
})

describe('startProxy options', () => {
  it('refuses a timeout that is not a positive whole number of milliseconds', async () => {
    for (const timeoutMs of [0, -5, 1.5])
      await expect(
        startProxy({ upstream: 'http://127.0.0.1:9/v1', port: 0, timeoutMs }),
      ).rejects.toThrow(
        new Error(`timeoutMs must be a positive whole number of milliseconds (got ${timeoutMs})`),
      )
  })

  it('refuses a --cors value that is not an origin, naming the option', async () => {
    await expect(
      startProxy({ upstream: 'http://127.0.0.1:9/v1', port: 0, cors: ['example.com'] }),
    ).rejects.toThrow(
      new Error('cors: "example.com" is not an origin (scheme://host[:port], or *)'),
    )
  })

  it('logs one line per exchange: method, path, status, ms, then the findings and the error', async () => {
    let findings = 0
    const up = await upstream((_req, _body, res) => {
      res.writeHead(200, { 'Content-Type': 'application/json' })
      res.end('{}')
    })
    const logged: string[] = []
    const p = await proxy({
      upstream: `${up.url}/v1`,
      log: (line) => logged.push(line),
      compare: ({ path }) =>
        Array.from({ length: findings }, () => ({
          route: `GET ${path}`,
          path: '$',
          kind: 'type' as const,
          upstream: 'object',
          sandbox: 'array',
        })),
    })
    for (findings = 0; findings < 3; findings++)
      await (await fetch(`${p.url}/v1/cards?n=${findings}`)).arrayBuffer()
    const closed = await upstream(() => {})
    await closed.close()
    const gone = await proxy({ upstream: `${closed.url}/v1`, log: (line) => logged.push(line) })
    await (await fetch(`${gone.url}/v1/cards`)).arrayBuffer()
    expect(logged.map((line) => line.replace(/ \d+(\.\d+)?ms/, ' <ms>ms'))).toEqual([
      'GET    /v1/cards?n=0 200 <ms>ms',
      'GET    /v1/cards?n=1 200 <ms>ms  1 finding',
      'GET    /v1/cards?n=2 200 <ms>ms  2 findings',
      'GET    /v1/cards 502 <ms>ms  (refused)',
    ])
  })
})

describe('the relay, over real HTTP', () => {
  it('to an upstream at its root: /v1 is /, /v1/<rest> is /<rest>, query kept', async () => {
    const up = await echo()
    const p = await proxy({ upstream: up.url })
    const urls: string[] = []
    for (const path of ['/v1', '/v1?a=1', '/v1/cards?b=2']) {
      const res = await fetch(`${p.url}${path}`)
      urls.push(((await res.json()) as { url: string }).url)
    }
    expect(urls).toEqual(['/', '/?a=1', '/cards?b=2'])
  })

  it('keeps its connections to the upstream alive, and sends the base URL credentials as Basic', async () => {
    const up = await echo()
    const plain = await proxy({ upstream: `${up.url}/v1` })
    const seen = (await (await fetch(`${plain.url}/v1/x`)).json()) as {
      headers: Record<string, string>
    }
    expect(seen.headers.connection).toBe('keep-alive')
    expect(seen.headers.authorization).toBe(undefined)
    const withAuth = await proxy({ upstream: up.url.replace('//', '//user:p%40ss@') + '/v1' })
    const authed = (await (await fetch(`${withAuth.url}/v1/x`)).json()) as {
      headers: Record<string, string>
    }
    expect(authed.headers.authorization).toBe(
      `Basic ${Buffer.from('user:p@ss').toString('base64')}`,
    )
    const userOnly = await proxy({ upstream: up.url.replace('//', '//user@') + '/v1' })
    const named = (await (await fetch(`${userOnly.url}/v1/x`)).json()) as {
      headers: Record<string, string>
    }
    expect(named.headers.authorization).toBe(`Basic ${Buffer.from('user:').toString('base64')}`)
  })

  it('speaks TLS to an https upstream: a plain-HTTP one is unreachable (502), recorded as such', async () => {
    const up = await echo()
    const base = `${up.url.replace('http:', 'https:')}/v1`
    const file = recordFile()
    const p = await proxy({ upstream: base, record: file })
    const res = await raw(`${p.url}/v1/cards`)
    const message = `The upstream ${base} could not be reached: EPROTO.`
    expect(res.status).toBe(502)
    expect(JSON.parse(res.body.toString('utf8'))).toEqual({ message, statusCode: 502 })
    expect(res.rawHeaders.slice(0, 6)).toEqual([
      'Content-Type',
      'application/json',
      'X-Content-Type-Options',
      'nosniff',
      'Content-Length',
      String(res.body.length),
    ])
    const [line] = readRecord(file)
    expect(line.status).toBe(502)
    expect(line.error).toBe('unreachable')
    expect(line.response).toStrictEqual({
      headers: { 'content-type': 'application/json' },
      body: { message, statusCode: 502 },
    })
  })

  it("does not relay the upstream's proxy-* headers nor what its Connection names", async () => {
    const up = await upstream((_req, _body, res) => {
      res.writeHead(200, [
        'Content-Type',
        'text/plain',
        'Proxy-Authenticate',
        'Basic',
        'X-Proxy-Id',
        'kept',
        'Connection',
        'X-Drop',
        'X-Drop',
        '1',
      ])
      res.end('ok')
    })
    const file = recordFile()
    const p = await proxy({ upstream: `${up.url}/v1`, record: file })
    const res = await raw(`${p.url}/v1/x`)
    const names = res.rawHeaders.filter((_, i) => i % 2 === 0)
    expect(names).toContain('X-Proxy-Id')
    expect(names).not.toContain('Proxy-Authenticate')
    expect(names).not.toContain('X-Drop')
    const [line] = readRecord(file)
    expect(line.response.headers['x-proxy-id']).toBe('kept')
    expect(Object.keys(line.response.headers)).not.toContain('proxy-authenticate')
  })

  it('a caller that gives up takes the upstream request down with it', async () => {
    const up = await upstream(() => {})
    let requested!: () => void
    let upstreamClosed!: () => void
    const arrived = new Promise<void>((resolve) => (requested = resolve))
    const closed = new Promise<void>((resolve) => (upstreamClosed = resolve))
    up.server.once('request', (_req: IncomingMessage, res: import('node:http').ServerResponse) => {
      res.on('close', () => upstreamClosed())
      requested()
    })
    const p = await proxy({ upstream: `${up.url}/v1`, timeoutMs: 60_000 })
    const caller = new AbortController()
    const answered = fetch(`${p.url}/v1/hang`, { signal: caller.signal }).catch(() => 'aborted')
    await arrived
    caller.abort()
    expect(await answered).toBe('aborted')
    await closed
  })
})

describe('the guard', () => {
  it('answers a preflight with the CORS headers it asks for, and puts only CORS headers and Vary on a relayed answer', async () => {
    const up = await upstream((_req, _body, res) => {
      res.writeHead(200, ['Content-Type', 'text/plain'])
      res.end('ok')
    })
    const p = await proxy({ upstream: `${up.url}/v1`, cors: ['http://localhost:5173'] })
    const preflight = await raw(`${p.url}/v1/cards`, {
      method: 'OPTIONS',
      headers: {
        Origin: 'http://localhost:5173',
        'Access-Control-Request-Method': 'POST',
        'Access-Control-Request-Headers': 'authorization,content-type',
      },
    })
    expect(preflight.status).toBe(204)
    const own = (headers: string[]) =>
      headers.filter((_, i) => {
        const name = headers[i - (i % 2)].toLowerCase()
        return !['date', 'connection', 'keep-alive', 'transfer-encoding'].includes(name)
      })
    expect(own(preflight.rawHeaders)).toEqual([
      'access-control-allow-headers',
      'authorization,content-type',
      'access-control-allow-methods',
      'GET,HEAD,POST,PUT,PATCH,DELETE',
      'access-control-allow-origin',
      'http://localhost:5173',
      'access-control-expose-headers',
      'X-RateLimit-Limit,X-RateLimit-Remaining,Retry-After,x-card-sandbox-scenario',
      'access-control-max-age',
      '600',
      'vary',
      'Origin, Access-Control-Request-Headers',
    ])
    const plain = await raw(`${p.url}/v1/cards`, {
      method: 'OPTIONS',
      headers: { Origin: 'http://localhost:5173', 'Access-Control-Request-Method': 'GET' },
    })
    expect(plain.status).toBe(204)
    expect(own(plain.rawHeaders).filter((_, i) => i % 2 === 0)).toEqual([
      'access-control-allow-methods',
      'access-control-allow-origin',
      'access-control-expose-headers',
      'access-control-max-age',
      'vary',
    ])
    const relayed = await raw(`${p.url}/v1/cards`, { headers: { Origin: 'http://localhost:5173' } })
    expect(own(relayed.rawHeaders)).toEqual([
      'Content-Type',
      'text/plain',
      'access-control-allow-origin',
      'http://localhost:5173',
      'access-control-expose-headers',
      'X-RateLimit-Limit,X-RateLimit-Remaining,Retry-After,x-card-sandbox-scenario',
      'vary',
      'Origin',
    ])
    // the guard's own refusal is sent whole, its length said
    const rebound = await raw(`${p.url}/v1/cards`, { headers: { Host: 'evil.example' } })
    expect(rebound.status).toBe(403)
    const length = rebound.rawHeaders.findIndex((name) => name.toLowerCase() === 'content-length')
    expect(rebound.rawHeaders[length + 1]).toBe(String(rebound.body.length))
  })

  it('answers 400 to a Host header that is not a host name, and takes a request without Host as its own', async () => {
    const up = await upstream((_req, _body, res) => {
      res.writeHead(200, ['Content-Type', 'text/plain'])
      res.end('ok')
    })
    const p = await proxy({ upstream: `${up.url}/v1` })
    const bad = await raw(`${p.url}/v1/cards`, { headers: { Host: 'a b' } })
    expect(bad.status).toBe(400)
    expect(JSON.parse(bad.body.toString('utf8'))).toEqual({
      message: 'The Host header "a b" is not a host name.',
      statusCode: 400,
    })
    const answer = await new Promise<string>((resolve, reject) => {
      const socket = connect(p.port, '127.0.0.1', () =>
        socket.write('GET /v1/cards HTTP/1.0\r\n\r\n'),
      )
      const chunks: Buffer[] = []
      socket.on('data', (chunk: Buffer) => chunks.push(chunk))
      socket.on('end', () => resolve(Buffer.concat(chunks).toString('utf8')))
      socket.on('error', reject)
    })
    expect(answer.split('\r\n')[0]).toBe('HTTP/1.1 200 OK')
    expect(answer.endsWith('\r\n\r\nok')).toBe(true)
  })
})

describe('over IPv6', () => {
  it('relays to an upstream at [::1], and takes a request without Host as its own when bound to ::1', async () => {
    const server = createServer((_req, res) => {
      res.writeHead(200, ['Content-Type', 'text/plain'])
      res.end('ok')
    })
    await new Promise<void>((resolve) => server.listen(0, '::1', resolve))
    open.push({
      close: () =>
        new Promise<void>((resolve) => {
          server.closeAllConnections()
          server.close(() => resolve())
        }),
    })
    const { port } = server.address() as AddressInfo
    const p = await proxy({ upstream: `http://[::1]:${port}/v1`, host: '::1' })
    expect(p.url).toBe(`http://[::1]:${p.port}`)
    const res = await fetch(`${p.url}/v1/x`)
    expect(res.status).toBe(200)
    expect(await res.text()).toBe('ok')
    const answer = await new Promise<string>((resolve, reject) => {
      const socket = connect(p.port, '::1', () => socket.write('GET /v1/x HTTP/1.0\r\n\r\n'))
      const chunks: Buffer[] = []
      socket.on('data', (chunk: Buffer) => chunks.push(chunk))
      socket.on('end', () => resolve(Buffer.concat(chunks).toString('utf8')))
      socket.on('error', reject)
    })
    expect(answer.split('\r\n')[0]).toBe('HTTP/1.1 200 OK')
    expect(answer.endsWith('\r\n\r\nok')).toBe(true)
  })
})
