/**
 * A stand-in for the real service: a sandbox served over HTTP, driven through a realistic flow
 * (a card user verified, a card issued, listed and shown, a transfer, errors), whose answers pass
 * through a table of planted edits before they are compared, as the proxy would see the real
 * service answer. The stand-in issues cards more slowly than the sandbox's default (8 s instead
 * of 5 s), and the flow reads the card at 6 s (still issuing) and 9 s (issued).
 *
 * `record()` gives the record lines the proxy would write (findings included) and the findings
 * the planted edits must give, nothing more. `flow()` is the flow alone, pointed at any base URL
 * (a sandbox, a proxy in front of `startStandIn()`'s server); `plant()` applies the table to one
 * answer.
 */
import { writeFileSync } from 'node:fs'
import { createServer, type Server } from 'node:http'
import type { AddressInfo } from 'node:net'
import { join } from 'node:path'
import { compareExchange, type Finding } from '../../src/drift/compare.js'
import { routeOf } from '../../src/drift/contract.js'
import type { RecordLine, Report } from '../../src/drift/report.js'
import { startSandbox, type RunningSandbox } from '../../src/index.js'
import { fullIdentity } from '../helpers.js'
import { tempDir } from '../temp-dir.js'

export type Answer = { status: number; headers: Record<string, string>; body: any }

/** One planted edit: which route's answers it changes, how, and the findings it must give. */
export type Edit = {
  route: string
  edit(answer: Answer): void
  findings(answer: Answer): Omit<Finding, 'route'>[]
}

const CARD_STATUSES = ['issuing', 'issued', 'frozen', 'failed']

export const EDITS: Edit[] = [
  {
    // an extra key
    route: 'POST /v1/cards/create',
    edit: (a) => void (a.body.data.card.nickname = 'travel'),
    findings: () => [
      { path: '$.data.card.nickname', kind: 'extra-key', upstream: 'travel', sandbox: 'absent' },
    ],
  },
  {
    // a missing key
    route: 'GET /v1/cards/{reference}',
    edit: (a) => void delete a.body.data.card.cvv2,
    findings: () => [
      {
        path: '$.data.card.cvv2',
        kind: 'missing-key',
        upstream: 'absent',
        sandbox: 'string or null',
      },
    ],
  },
  {
    // a renamed status (only once the card is issued), and a number sent as a string
    route: 'GET /v1/cards',
    edit(a) {
      for (const card of a.body.data) {
        if (card.status === 'issued') card.status = 'active'
        card.balance = String(card.balance)
      }
    },
    findings: (a) => [
      { path: '$.data[*].balance', kind: 'type', upstream: '0', sandbox: 'integer' },
      ...(a.body.data.some((c: any) => c.status === 'active')
        ? [
            {
              path: '$.data[*].status',
              kind: 'enum' as const,
              upstream: 'active',
              sandbox: CARD_STATUSES,
            },
          ]
        : []),
    ],
  },
  {
    // a different error shape
    route: 'GET /v1/cards/{reference} 404',
    edit(a) {
      a.body = { error: { code: 'card_not_found', message: 'Card not found' } }
    },
    findings: () => [
      { path: '$.message', kind: 'missing-key', upstream: 'absent', sandbox: 'string' },
      { path: '$.statusCode', kind: 'missing-key', upstream: 'absent', sandbox: [404] },
      {
        path: '$.error',
        kind: 'extra-key',
        upstream: { code: 'card_not_found', message: 'Card not found' },
        sandbox: 'absent',
      },
    ],
  },
  {
    // a changed header: the rate limit under the IETF draft's name
    route: 'GET /v1/card-users/{reference}',
    edit(a) {
      a.headers['ratelimit-limit'] = a.headers['x-ratelimit-limit']
      delete a.headers['x-ratelimit-limit']
    },
    findings: () => [
      { path: 'header:x-ratelimit-limit', kind: 'header', upstream: 'absent', sandbox: 'integer' },
      { path: 'header:ratelimit-limit', kind: 'header', upstream: '60', sandbox: 'absent' },
    ],
  },
  {
    // created_at with milliseconds, not Laravel's microseconds
    route: 'POST /v1/transactions/create',
    edit(a) {
      a.body.data.transaction.created_at = a.body.data.transaction.created_at.replace(
        /(\.\d{3})\d{3}Z$/,
        '$1Z',
      )
    },
    findings: (a) => [
      {
        path: '$.data.transaction.created_at',
        kind: 'format',
        upstream: a.body.data.transaction.created_at,
        sandbox: 'string (YYYY-MM-DDTHH:mm:ss.SSSSSSZ)',
      },
    ],
  },
]

export const CLOCK_START = '2026-11-28T17:00:00.000Z'

/** The tenant the flow runs as (its bearer token). */
export const TOKEN = 'drift-stand-in'

/** One exchange with a base URL: the answer, its body parsed. */
export type Send = (method: string, path: string, body?: unknown) => Promise<Answer>

/** Sends to `base` (`http://127.0.0.1:N`, paths start with `/v1` or `/__sandbox`) as the flow's tenant. */
export function sender(base: string, token = TOKEN): Send {
  return async (method, path, body) => {
    const res = await fetch(base + path, {
      method,
      headers: {
        Authorization: `Bearer ${token}`,
        ...(body !== undefined && { 'Content-Type': 'application/json' }),
      },
      body: body === undefined ? undefined : JSON.stringify(body),
    })
    return {
      status: res.status,
      headers: Object.fromEntries(res.headers),
      body: (await res.json()) as any,
    }
  }
}

/**
 * Applies the planted edits of the answer's route (`GET /v1/cards/{reference}`; the status is
 * appended when it is not 200) in place, and gives the findings they must give.
 */
export function plant(route: string, answer: Answer, edits: Edit[] = EDITS): Finding[] {
  const fullRoute = `${route}${answer.status === 200 ? '' : ` ${answer.status}`}`
  const planted = edits.filter((e) => e.route === fullRoute)
  for (const e of planted) e.edit(answer)
  return planted.flatMap((e) => e.findings(answer).map((f) => ({ route, ...f })))
}

/** Where the flow runs: its /v1 exchanges, and the control API of the sandbox behind them. */
export type FlowTarget = {
  /** One /v1 exchange (`route` the sandbox's template for it); the answer's body. */
  call(route: string, method: string, path: string, body?: unknown): Promise<any>
  /** A `/__sandbox` call on the sandbox itself (the real service has no control API). */
  control(method: string, path: string, body?: unknown): Promise<void>
  /** Moves the sandbox's manual clock. */
  advance(ms: number): Promise<void>
}

/** The control calls of a sandbox at `base`, as the flow's tenant; throws on a refusal. */
export function controlOf(base: string, token = TOKEN): FlowTarget['control'] {
  const send = sender(base, token)
  return async (method, path, body) => {
    const answer = await send(method, `/__sandbox${path}`, body)
    if (answer.status !== 200) throw new Error(`${path}: ${JSON.stringify(answer.body)}`)
  }
}

/** The sandbox a stand-in answers from: a manual clock from CLOCK_START, seeded. */
export function standInSandbox(): Promise<RunningSandbox> {
  return startSandbox({
    port: 0,
    clock: 'manual',
    clockStart: CLOCK_START,
    seed: 7,
    log: 'silent',
  })
}

/**
 * The flow: a card user verified, a card issued (read while issuing and once issued), listed
 * and shown, an unknown card, a create refused, a top-up, transactions read, a card frozen twice.
 */
export async function flow(target: FlowTarget): Promise<void> {
  const { call, control, advance } = target
  await control('PUT', '/delays', { card_issuing: 8_000 })
  await control('POST', '/business/fund', { amount: 1_000_000 })

  const user = (
    await call('POST /v1/card-users/create', 'POST', '/v1/card-users/create', fullIdentity())
  ).data.userCard.reference
  await call('GET /v1/card-users/{reference}', 'GET', `/v1/card-users/${user}`)
  await advance(4_000)
  await call('GET /v1/card-users/{reference}', 'GET', `/v1/card-users/${user}`)
  await call('GET /v1/card-users', 'GET', '/v1/card-users')

  const card = (
    await call('POST /v1/cards/create', 'POST', '/v1/cards/create', {
      card_user_reference: user,
      card_brand: 'visa',
      card_type: 'virtual',
    })
  ).data.card.reference
  await call('GET /v1/cards', 'GET', '/v1/cards')
  await advance(6_000)
  await call('GET /v1/cards/{reference}', 'GET', `/v1/cards/${card}`)
  await advance(3_000)
  await call('GET /v1/cards/{reference}', 'GET', `/v1/cards/${card}`)
  await call('GET /v1/cards', 'GET', '/v1/cards')
  await call('GET /v1/cards/{reference}', 'GET', '/v1/cards/00000000-0000-4000-8000-000000000000')
  await call('POST /v1/cards/create', 'POST', '/v1/cards/create', { card_user_reference: user })

  const transaction = (
    await call('POST /v1/transactions/create', 'POST', '/v1/transactions/create', {
      action: 'recharge',
      amount: 50_000,
      card_reference: card,
      reference: 'top-up-1',
    })
  ).data.transaction.slug
  await advance(5_000)
  await call('GET /v1/transactions/{reference}', 'GET', `/v1/transactions/${transaction}`)
  await call('GET /v1/transactions', 'GET', '/v1/transactions')
  await call('POST /v1/cards/freeze', 'POST', '/v1/cards/freeze', { reference: card })
  await call('POST /v1/cards/freeze', 'POST', '/v1/cards/freeze', { reference: card })
}

export type Recorded = {
  /** The record lines of the edited answers, findings included. */
  lines: RecordLine[]
  /** What the planted edits must give, line by line. */
  expected: Finding[][]
  /** The findings of the same answers unedited, line by line. */
  unedited: Finding[][]
}

/** One exchange of the flow as the stand-in answered it, before any planted edit. */
export type Captured = {
  route: string
  method: string
  path: string
  body: unknown
  /** The instant of the exchange on the stand-in's clock, in ms after CLOCK_START. */
  elapsed: number
  answer: Answer
}

/**
 * Runs the flow against a fresh stand-in and keeps its answers unedited. No code of src/drift
 * runs here, so a test file can capture once in `beforeAll` and compare (recorded()) inside each
 * test: mutation testing then sees which test covers which line of the comparison.
 */
export async function capture(): Promise<Captured[]> {
  const upstream = await standInSandbox()
  const send = sender(upstream.url)
  const control = controlOf(upstream.url)
  const captured: Captured[] = []
  let elapsed = 0
  try {
    await flow({
      control,
      async advance(ms) {
        await control('POST', '/clock/advance', { by: ms })
        elapsed += ms
      },
      async call(route, method, path, body) {
        const answer = await send(method, path, body)
        captured.push({ route, method, path, body, elapsed, answer: structuredClone(answer) })
        return answer.body
      },
    })
    return captured
  } finally {
    await upstream.close()
  }
}

/** The captured answers through the planted edits, recorded as the proxy would. */
export function recorded(captured: Captured[]): Recorded {
  const lines: RecordLine[] = []
  const expected: Finding[][] = []
  const unedited: Finding[][] = []
  for (const { route, method, path, body, elapsed, answer: raw } of captured) {
    const answer = structuredClone(raw)
    expected.push(plant(route, answer))
    const exchange = { method, path, status: answer.status }
    const findings = compareExchange({ ...exchange, headers: answer.headers, body: answer.body })
    unedited.push(compareExchange({ ...exchange, headers: raw.headers, body: raw.body }))
    lines.push({
      at: new Date(Date.parse(CLOCK_START) + elapsed).toISOString(),
      ms: 1,
      method,
      path,
      query: '',
      request: { headers: {}, body: body ?? null },
      status: answer.status,
      response: { headers: answer.headers, body: answer.body },
      findings,
    })
  }
  return { lines, expected, unedited }
}

/** Runs the flow against a fresh stand-in, through the planted edits, recorded as the proxy would. */
export async function record(): Promise<Recorded> {
  return recorded(await capture())
}

/**
 * The flow recorded (record()) as two record files' lines: `drifted`, the answers through the
 * planted edits; `clean`, the same exchanges with the findings of the answers unedited.
 */
export async function recordings(): Promise<{ drifted: RecordLine[]; clean: RecordLine[] }> {
  const recorded = await record()
  return {
    drifted: recorded.lines,
    clean: recorded.lines.map((line, i) => ({ ...line, findings: recorded.unedited[i] })),
  }
}

/** `lines` written to a record file of a directory of its own, as proxy --record writes them. */
export function recordFile(lines: RecordLine[]): string {
  const file = join(tempDir(), 'drift.jsonl')
  writeFileSync(file, lines.map((line) => JSON.stringify(line) + '\n').join(''))
  return file
}

/** Headers that describe one HTTP connection or one encoding of the bytes, not the answer. */
const NOT_RELAYED = new Set([
  'connection',
  'keep-alive',
  'transfer-encoding',
  'content-length',
  'content-encoding',
])

export type StandIn = {
  /** The stand-in's own base URL: the real service's is `<url>/v1`. */
  url: string
  /** The sandbox behind it (its control API is the flow's `control`). */
  sandbox: RunningSandbox
  /** Every request it received: method and path (query included), in order. */
  received: { method: string; path: string }[]
  /** What the planted edits must give, one entry per /v1 answer, in order. */
  expected: Finding[][]
  close(): Promise<void>
}

/**
 * The stand-in as a real service: an HTTP server that forwards each request to a fresh sandbox
 * (`standInSandbox()`) at the same path and passes its JSON answers through the planted edits.
 */
export async function startStandIn(edits: Edit[] = EDITS): Promise<StandIn> {
  const sandbox = await standInSandbox()
  const received: StandIn['received'] = []
  const expected: Finding[][] = []
  const server: Server = createServer((req, res) => {
    const chunks: Buffer[] = []
    req.on('data', (chunk: Buffer) => chunks.push(chunk))
    req.on('end', () => void relay())
    // the answer never rejects: a failure is the stand-in's own 500
    const relay = async () => {
      try {
        const method = req.method ?? 'GET'
        const path = req.url ?? '/'
        received.push({ method, path })
        const forwarded = await fetch(sandbox.url + path, {
          method,
          headers: {
            ...(req.headers.authorization && { authorization: req.headers.authorization }),
            ...(req.headers['content-type'] && { 'content-type': req.headers['content-type'] }),
          },
          body: chunks.length ? Buffer.concat(chunks) : undefined,
        })
        const headers: Record<string, string> = {}
        for (const [name, value] of forwarded.headers)
          if (!NOT_RELAYED.has(name)) headers[name] = value
        const answer: Answer = { status: forwarded.status, headers, body: await forwarded.json() }
        if (path.startsWith('/v1/'))
          expected.push(plant(routeOf(method, path.split('?')[0]).route, answer, edits))
        res.writeHead(answer.status, answer.headers)
        res.end(JSON.stringify(answer.body))
      } catch (error) {
        res.writeHead(500, { 'content-type': 'text/plain' })
        res.end(`stand-in: ${(error as Error).message}`)
      }
    }
  })
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  const { port } = server.address() as AddressInfo
  return {
    url: `http://127.0.0.1:${port}`,
    sandbox,
    received,
    expected,
    async close() {
      server.closeAllConnections()
      await new Promise<void>((resolve) => server.close(() => resolve()))
      await sandbox.close()
    },
  }
}

/** The report's counts, a line each: `<route> <kind> <path> <count>`. */
export const countsOf = (report: Report) =>
  report.routes.flatMap((r) => r.counts.map((c) => `${r.route} ${c.kind} ${c.path} ${c.count}`))

/** The counts the planted edits give over the flow, nothing more. */
export const PLANTED_COUNTS = [
  'GET /v1/card-users/{reference} header header:x-ratelimit-limit 2',
  'GET /v1/card-users/{reference} header header:ratelimit-limit 2',
  'GET /v1/cards type $.data[*].balance 2',
  'GET /v1/cards enum $.data[*].status 1',
  'GET /v1/cards/{reference} missing-key $.data.card.cvv2 2',
  'GET /v1/cards/{reference} missing-key $.message 1',
  'GET /v1/cards/{reference} missing-key $.statusCode 1',
  'GET /v1/cards/{reference} extra-key $.error 1',
  'POST /v1/cards/create extra-key $.data.card.nickname 1',
  'POST /v1/transactions/create format $.data.transaction.created_at 1',
]
