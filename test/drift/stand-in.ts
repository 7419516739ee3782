/**
 * A stand-in for the real service: a sandbox served over HTTP, driven through a realistic flow
 * (a card user verified, a card issued, listed and shown, a transfer, errors), whose answers pass
 * through a table of planted edits before they are compared, as the proxy would see the real
 * service answer. The stand-in issues cards more slowly than the sandbox's default (8 s instead
 * of 5 s), and the flow reads the card at 6 s (still issuing) and 9 s (issued).
 *
 * `record()` gives the record lines the proxy would write (findings included) and the findings
 * the planted edits must give, nothing more.
 */
import { compareExchange, type Finding } from '../../src/drift/compare.js'
import type { RecordLine } from '../../src/drift/report.js'
import { startSandbox } from '../../src/index.js'
import { fullIdentity } from '../helpers.js'

type Answer = { status: number; headers: Record<string, string>; body: any }

/** One planted edit: which route's answers it changes, how, and the findings it must give. */
type Edit = {
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

export type Recorded = {
  /** The record lines of the edited answers, findings included. */
  lines: RecordLine[]
  /** What the planted edits must give, line by line. */
  expected: Finding[][]
  /** The findings of the same answers unedited, line by line. */
  unedited: Finding[][]
}

/** Runs the flow against a fresh stand-in, through the planted edits. */
export async function record(): Promise<Recorded> {
  const upstream = await startSandbox({
    port: 0,
    clock: 'manual',
    clockStart: CLOCK_START,
    seed: 7,
    log: 'silent',
  })
  const lines: RecordLine[] = []
  const expected: Finding[][] = []
  const unedited: Finding[][] = []
  let elapsed = 0
  const token = 'drift-stand-in'
  const send = async (method: string, path: string, body?: unknown) => {
    const res = await fetch(upstream.url + path, {
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
  const control = async (method: string, path: string, body?: unknown) => {
    const answer = await send(method, `/__sandbox${path}`, body)
    if (answer.status !== 200) throw new Error(`${path}: ${JSON.stringify(answer.body)}`)
  }
  const advance = async (ms: number) => {
    await control('POST', '/clock/advance', { by: ms })
    elapsed += ms
  }
  /** One exchange through the planted edits, recorded as the proxy would. */
  const call = async (route: string, method: string, path: string, body?: unknown) => {
    const answer = await send(method, path, body)
    const raw = structuredClone(answer)
    const fullRoute = `${route}${answer.status === 200 ? '' : ` ${answer.status}`}`
    const edits = EDITS.filter((e) => e.route === fullRoute)
    for (const e of edits) e.edit(answer)
    const exchange = { method, path, status: answer.status }
    const findings = compareExchange({ ...exchange, headers: answer.headers, body: answer.body })
    unedited.push(compareExchange({ ...exchange, headers: raw.headers, body: raw.body }))
    expected.push(edits.flatMap((e) => e.findings(answer).map((f) => ({ route, ...f }))))
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
    return raw.body
  }
  try {
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
    return { lines, expected, unedited }
  } finally {
    await upstream.close()
  }
}
