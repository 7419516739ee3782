/**
 * Fuzzing every route: generated bad inputs — wrong types, missing and extra fields,
 * huge and negative numbers, unicode and control characters, SQL fragments, deep nesting,
 * malformed JSON, wrong content types, bad UUIDs in paths — sent over a socket to the built
 * command (dist/bin), as a user runs it. Every answer is JSON in the documented shape (a page
 * its HTML), never a 5xx; the server prints no stack trace on stderr, stays up, and its memory
 * stays bounded. Webhooks go to a local receiver (PUT /__sandbox/webhook may point them only
 * there). FUZZ_REQUESTS sets how many requests in all (`npm run fuzz`: 100,000).
 */
import { spawn, spawnSync, type ChildProcess } from 'node:child_process'
import fc from 'fast-check'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { documentedRoutes, responseMediaType } from '../../src/http/openapi.js'
import { newSandbox } from '../helpers.js'
import { startReceiver } from '../webhooks/receiver.js'

const CLI = new URL('../../dist/bin/card-sandbox.js', import.meta.url).pathname
const REQUESTS = Number(process.env.FUZZ_REQUESTS ?? 3_000)
export const tally = { inputs: 0 }

const UUID = '3f2504e0-4f89-41d3-9a0c-0305e82c3301'
/**
 * Every route of the app, from its route table (openapi.ts reads the same), with the query
 * fields its validators read, to aim at.
 */
function routesOf(app: ReturnType<typeof newSandbox>['app']) {
  return documentedRoutes(app).map((route) => {
    const query = route.validations.find((v) => v.target === 'query')
    const shape = (query?.schema as { shape?: Record<string, unknown> } | undefined)?.shape
    return { method: route.method, path: route.path, queryFields: Object.keys(shape ?? {}) }
  })
}

/** A line of a stack trace, or of an error printed with one. */
const STACK_LINE = /^\s+at |Error:/

/**
 * The built command on a free port (real clock: its scheduler runs what the fuzz creates, and
 * every event goes to `webhookUrl`), with its stderr kept and, for each stack line there, the
 * requests sent just before.
 */
function startServer(webhookUrl: string) {
  const child: ChildProcess = spawn(
    process.execPath,
    [
      CLI,
      ...['--port', '0', '--seed', '42', '--log', 'json'],
      ...['--webhook-url', webhookUrl, '--webhook-extensions', 'on'],
    ],
    { stdio: ['ignore', 'pipe', 'pipe'] },
  )
  const recent: string[] = []
  const server = { child, url: '', stderr: '', stackAfter: [] as string[], recent }
  child.stderr!.on('data', (chunk) => {
    server.stderr = (server.stderr + chunk).slice(-100_000)
    if (
      String(chunk)
        .split('\n')
        .some((line) => STACK_LINE.test(line))
    )
      server.stackAfter.push(...recent)
  })
  let banner = ''
  const url = new Promise<string>((resolve, reject) => {
    const onBanner = (chunk: string) => {
      banner += chunk
      // the banner of --log json is one object with the API's URL
      const match = /"api":"(http:\/\/[^"]+)\/v1"/.exec(banner)
      if (!match) return
      // the request log goes on; it is read and dropped, so that the server never waits on it
      child.stdout!.off('data', onBanner)
      child.stdout!.resume()
      resolve(match[1])
    }
    child.stdout!.setEncoding('utf8')
    child.stdout!.on('data', onBanner)
    child.once('exit', (code) => reject(new Error(`exited ${code}: ${banner}${server.stderr}`)))
  })
  return { server, url }
}

/** The server's resident memory in MB (`ps` reads it on Linux and macOS). */
function rssMb(pid: number) {
  const rss = spawnSync('ps', ['-o', 'rss=', '-p', String(pid)], { encoding: 'utf8' }).stdout
  return Number(rss.trim()) / 1024
}

const FIELDS = [
  'amount',
  'card_reference',
  'reference',
  'bank_id',
  'bank_name',
  'bank_account_name',
  'description',
  'phone',
  'country_code',
  'network',
  'code',
  'card_user_reference',
  'card_brand',
  'card_type',
  'identifier',
  'first_name',
  'last_name',
  'address',
  'email',
  'id_no',
  'selfie_image',
  'id_image',
  'back_id_image',
  'partner_reference',
  'customer',
  'transaction_slug',
  'explanation',
  'to',
  'by',
  'mode',
  'reason',
  'name',
  'rules',
  'fixture',
  'steps',
  'card_issuing',
  'status',
  'page',
  'per_page',
  'answer',
  'outcome',
]

const nasty = fc.constantFrom(
  "'; DROP TABLE cards; --",
  '1 OR 1=1',
  '" OR ""="',
  '\u0000\u0001\u001f',
  '\u202e\u200b',
  '𝕏🏦💳',
  '../../etc/passwd',
  '{{user.data}}',
  '%00',
  '<script>alert(1)</script>',
  '(?<',
  '[\\',
  'NaN',
  '-0',
  '1e400',
  'a'.repeat(5_000),
  UUID,
  UUID.toUpperCase(),
  'wave-sn',
  'visa',
  'passed',
)
const number = fc.oneof(
  fc.integer(),
  fc.double({ noNaN: true, noDefaultInfinity: true }),
  fc.constantFrom(0, -1, 1e308, -1e308, 2 ** 53, 2 ** 63, 1e12 + 1, 0.5, -0),
)
const leaf = fc.oneof(
  fc.string(),
  fc.string({ unit: 'binary' }),
  nasty,
  number,
  fc.boolean(),
  fc.constant(null),
)
const value = fc.oneof(
  { depthSize: 'small' },
  leaf,
  fc.array(leaf, { maxLength: 5 }),
  fc.dictionary(fc.constantFrom(...FIELDS), leaf, { maxKeys: 5 }),
)
const jsonBody = fc
  .oneof(
    fc.dictionary(fc.constantFrom(...FIELDS), value, { maxKeys: 10 }),
    fc.dictionary(fc.string(), value, { maxKeys: 5 }),
    value,
  )
  .map((body) => ({
    raw: JSON.stringify(body) ?? 'null',
    type: 'application/json' as string | undefined,
  }))
/** A valid-looking body per route, to mutate: inputs that get past the first checks. */
const SAMPLES: Record<string, Record<string, unknown>> = {
  '/v1/card-users/create': {
    phone: '+221770000001',
    first_name: 'Awa',
    last_name: 'Diop',
    address: 'Dakar',
    id_no: '1',
    selfie_image: 'https://x.test/s.jpg',
    id_image: 'https://x.test/i.jpg',
  },
  '/v1/card-users/resubmit': { card_user_reference: UUID, phone: '+221770000001' },
  '/v1/cards/create': { card_user_reference: UUID, card_brand: 'visa', card_type: 'virtual' },
  '/v1/cards/link': { identifier: 42, card_user_reference: UUID },
  '/v1/cards/freeze': { reference: UUID },
  '/v1/cards/unfreeze': { reference: UUID },
  '/v1/transactions/create/card-to-bank': {
    amount: 100,
    card_reference: UUID,
    bank_id: 'B',
    bank_name: 'BICICI',
  },
  '/v1/transactions/create/card-to-wallet': {
    amount: 100,
    card_reference: UUID,
    phone: '+221770000001',
    network: 'wave-sn',
  },
  '/v1/transactions/create/wallet-to-card': {
    amount: 100,
    card_reference: UUID,
    phone: '+221770000001',
    network: 'orange-money-sn',
    code: '123456',
  },
  '/v1/disputes/update/:reference': { transaction_slug: UUID, explanation: 'x' },
  '/v1/disburses/create': {
    amount: 100,
    network: 'bank',
    customer: { full_name: 'A', bank_name: 'B', bank_id: 'C', bank_account_name: 'D' },
  },
  '/v1/payments/create': {
    amount: 100,
    network: 'wave-sn',
    customer: { full_name: 'A', phone: '+221770000001' },
  },
  '/v1/phone/verify': { phone: '770000001', country_code: 'sn' },
  '/__sandbox/clock/advance': { by: '1s' },
  '/__sandbox/clock': { mode: 'manual' },
  '/__sandbox/delays': { card_issuing: '1s' },
  '/__sandbox/card-users/:reference/transition': { to: 'passed' },
  '/__sandbox/cards/:reference/transition': { to: 'issued' },
  '/__sandbox/payments/:reference/transition': { to: 'success' },
  '/__sandbox/cards/:reference/fund': { amount: 100 },
  '/__sandbox/cards/:reference/withdraw': { amount: 100 },
  '/__sandbox/business/fund': { amount: 100 },
  '/__sandbox/disputes': { transaction_slug: UUID, reason: 'duplicate' },
  '/__sandbox/wallet-codes': { phone: '+221770000001', network: 'orange-money-ci' },
  '/__sandbox/scenarios': { name: 'fuzz', rules: [{ match: { method: 'GET' }, latency: 0 }] },
  '/__sandbox/fixtures': { name: 'verified-user-funded-card' },
  '/__sandbox/verify/:reference': {
    outcome: 'passed',
    first_name: 'Awa',
    last_name: 'Diop',
    address: 'Dakar',
    id_no: '1',
  },
  '/__sandbox/checkout/:reference': { answer: 'pay' },
  // the url is the local receiver's (set before the run): a generated string is never an http URL
  '/__sandbox/webhook': { url: null, secret: 'fuzz-webhook-secret' },
}

/** The sample of a route (the deprecated `/v1/v1/…` twins share their route's). */
const sampleOf = (path: string) => SAMPLES[path.replace(/^\/v1\/v1\//, '/v1/')] ?? {}

/** A route's sample with some fields replaced, removed or added. */
const mutated = (path: string) =>
  fc
    .tuple(
      fc.dictionary(fc.constantFrom(...FIELDS, ...Object.keys(sampleOf(path))), value, {
        maxKeys: 3,
      }),
      fc.subarray(Object.keys(sampleOf(path))),
    )
    .map(([changes, removed]) => {
      const body: Record<string, unknown> = { ...sampleOf(path), ...changes }
      for (const key of removed.slice(0, 2)) delete body[key]
      return { raw: JSON.stringify(body), type: 'application/json' as string | undefined }
    })

const rawBody = fc.record({
  raw: fc.oneof(
    fc.string(),
    fc.string({ unit: 'binary' }),
    fc.integer({ min: 1, max: 20_000 }).map((n) => '['.repeat(n) + ']'.repeat(n)),
    fc.integer({ min: 1, max: 2_000 }).map((n) => '{"a":'.repeat(n) + '1' + '}'.repeat(n)),
    fc.constantFrom('{', '{"amount": 1,}', '{"amount": 1e999}', "{'a': 1}", 'null', ''),
  ),
  type: fc.constantFrom(
    'application/json',
    'text/plain',
    'application/x-www-form-urlencoded',
    undefined,
    'application/json; charset=utf-8',
    'multipart/form-data; boundary=x',
    'application/vnd.api+json',
  ),
})
/** References of resources that exist (set before the run), so that pages get past their 404. */
const live: string[] = []
const pathParam = fc.oneof(
  fc.constant(UUID),
  fc.uuid(),
  fc.string(),
  nasty,
  fc.constantFrom('%2F..%2F', '%00', 'evt_x', '-1', '🙂'),
  fc.integer({ min: 0, max: 99 }).map((i) => live[i % live.length] ?? UUID),
)
/** A query string: some of the route's own fields (when it reads any) and others. */
const queryFor = (fields: string[]) =>
  fc.dictionary(
    fields.length > 0
      ? fc.oneof(fc.constantFrom(...fields), fc.constantFrom(...FIELDS))
      : fc.constantFrom(...FIELDS),
    fc.oneof(fc.string(), nasty, number.map(String)),
    { maxKeys: 4 },
  )

function fill(path: string, params: string[]) {
  let i = 0
  return path.replace(/:(\w+)/g, (_, name) =>
    name === 'resource'
      ? ['cards', 'card-users', 'transactions', 'payments', 'disburses', 'disputes', 'nope'][
          params[i++].length % 7
        ]
      : encodeURIComponent(params[i++]),
  )
}

describe('fuzzing every route of the built command', () => {
  const ROUTES = routesOf(newSandbox().app)
  const RUNS = Math.ceil(REQUESTS / ROUTES.length)
  let server: ReturnType<typeof startServer>['server']
  let receiver: Awaited<ReturnType<typeof startReceiver>>
  let base = ''
  let rssBefore = 0
  const started = Date.now()

  /** One request over the socket, remembered for the stack check. */
  async function send(
    method: string,
    path: string,
    headers: Record<string, string>,
    body?: string,
  ) {
    server.recent.push(`${method} ${path} ${body?.slice(0, 200) ?? ''}`)
    if (server.recent.length > 10) server.recent.shift()
    return fetch(base + path, { method, headers, body, redirect: 'manual' })
  }

  beforeAll(async () => {
    receiver = await startReceiver()
    SAMPLES['/__sandbox/webhook'].url = receiver.url
    const started = startServer(receiver.url)
    server = started.server
    base = await started.url
    rssBefore = rssMb(server.child.pid!)
    const json = { Authorization: 'Bearer fuzz', 'Content-Type': 'application/json' }
    const create = async (path: string, body: unknown) =>
      (await (await send('POST', path, json, JSON.stringify(body))).json()) as any
    const customer = { full_name: 'A B', phone: '+221770000001' }
    const user = await create('/v1/card-users/create', { phone: '+221770000001' })
    const payment = await create('/v1/payments/create', {
      amount: 100,
      network: 'orange-money-ci',
      customer,
    })
    const disburse = await create('/v1/disburses/create', {
      amount: 100,
      network: 'orange-money-ci',
      customer,
    })
    live.push(
      user.userCard.reference,
      payment.data.payment.reference,
      disburse.data.disburse.reference,
    )
  }, 30_000)

  afterAll(async () => {
    server?.child.kill('SIGKILL')
    await receiver?.close()
  })

  it('covers every route of the route table', () => {
    const listed = ROUTES.map((route) => `${route.method} ${route.path}`)
    expect(listed.length).toBeGreaterThanOrEqual(55)
    expect(listed).toEqual(
      expect.arrayContaining([
        'POST /v1/v1/card-users/resubmit',
        'GET /v1/v1/card-users',
        'POST /__sandbox/verify/:reference',
        'POST /__sandbox/checkout/:reference',
        'GET /__sandbox/requests',
        'DELETE /__sandbox/requests',
      ]),
    )
    expect(listed).toContain('PUT /__sandbox/webhook')
    const requests = ROUTES.find((r) => r.method === 'GET' && r.path === '/__sandbox/requests')
    expect(requests?.queryFields).toEqual(expect.arrayContaining(['method', 'path', 'status']))
  })

  it.each(ROUTES)(
    `$method $path answers every generated input with a JSON 2xx/4xx, or its page (${RUNS} inputs)`,
    async ({ method, path, queryFields }) => {
      // JSON, but for the pages (HTML) and the widget's script
      const mediaType = responseMediaType(method, path)
      await fc.assert(
        fc.asyncProperty(
          fc.array(pathParam, { minLength: 3, maxLength: 3 }),
          queryFor(queryFields),
          fc.oneof(jsonBody, rawBody, mutated(path), mutated(path)),
          async (params, q, body) => {
            const search = new URLSearchParams(q).toString()
            const url = fill(path, params) + (search ? `?${search}` : '')
            const headers: Record<string, string> = { Authorization: 'Bearer fuzz' }
            if (body.type) headers['Content-Type'] = body.type
            const res = await send(method, url, headers, method === 'GET' ? undefined : body.raw)
            tally.inputs++
            const text = await res.text()
            const said = `${method} ${url} ${body.raw.slice(0, 200)} → ${text.slice(0, 300)}`
            expect(res.status, said).toBeLessThan(500)
            const type = res.headers.get('Content-Type') ?? ''
            if (res.status >= 300 && res.status < 400) {
              // `GET /` sends a browser to the dashboard
              expect(res.headers.get('Location'), said).toBe('/__sandbox/ui')
            } else if (type.startsWith('application/json')) {
              const json = JSON.parse(text)
              if (res.status >= 400) {
                expect(json.statusCode, said).toBe(res.status)
                expect(typeof json.message, said).toBe('string')
              }
            } else {
              // a page (or the widget's script, or the icon) answers as one, errors included
              expect(type.split(';')[0], said).toBe(mediaType)
            }
          },
        ),
        { numRuns: RUNS },
      )
    },
    20_000 + RUNS * 100,
  )

  it('printed no stack trace on stderr, stays up, and keeps its memory bounded', async () => {
    // what the scheduler does with what the fuzz created runs too, a tick later
    await new Promise((resolve) => setTimeout(resolve, 1_500))
    const stackLines = server.stderr.split('\n').filter((line) => STACK_LINE.test(line))
    expect(stackLines, `${server.stderr}\nafter: ${server.stackAfter.join('\n')}`).toEqual([])
    expect(server.child.exitCode).toBeNull()
    expect((await fetch(`${base}/__sandbox/health`)).status).toBe(200)
    const grownMb = rssMb(server.child.pid!) - rssBefore
    expect(grownMb).toBeLessThan(512)
    const seconds = Math.round((Date.now() - started) / 1000)
    console.log(
      `fuzz: ${tally.inputs} requests over ${ROUTES.length} routes in ${seconds} s, none ` +
        `answered 5xx, no stack on stderr; ${receiver.requests.length} webhooks delivered; ` +
        `server RSS ${Math.round(rssBefore)} → ${Math.round(rssBefore + grownMb)} MB`,
    )
  })
})
