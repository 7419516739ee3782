/**
 * Probe: hostile nesting. A 10 KB body nested 5,000 deep was refused with
 * 422 but kept in the request journal, and from then on the journal and the dashboard panel
 * answered 500 (a stack overflow re-serialising it). Over a real socket, deep bodies of every
 * shape go to every kind of route that takes a body; none may answer 5xx, and the journal (every
 * page, every filter) and the dashboard panel still answer, showing each deep body as its text.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { MAX_JSON_DEPTH } from '../../src/lib/json-depth.js'
import { startSandbox, type RunningSandbox } from '../../src/index.js'

const TOKEN = 'nesting-token'
const HEADERS = { Authorization: `Bearer ${TOKEN}`, 'Content-Type': 'application/json' }

const deep = {
  objects: '{"a":'.repeat(5000) + '1' + '}'.repeat(5000),
  arrays: '['.repeat(5000) + ']'.repeat(5000),
  mixed: '[{"a":'.repeat(2500) + 'null' + '}]'.repeat(2500),
  // just under the 1 MiB body limit
  megabyte: '['.repeat(500_000) + ']'.repeat(500_000),
  unclosed: '{"a":'.repeat(5000),
  oneTooDeep: '{"a":'.repeat(MAX_JSON_DEPTH + 1) + '1' + '}'.repeat(MAX_JSON_DEPTH + 1),
}

let sandbox: RunningSandbox
let paymentReference: string

beforeAll(async () => {
  sandbox = await startSandbox({ port: 0, clock: 'manual', log: 'silent' })
  const created = await post('/v1/payments/create', {
    amount: 1500,
    network: 'wave-sn',
    customer: { full_name: 'Fatou Sall', phone: '+221770000004' },
  })
  paymentReference = created.body.data.payment.reference
})
afterAll(() => sandbox.close())

async function post(path: string, body: unknown, raw?: string) {
  const res = await fetch(`${sandbox.url}${path}`, {
    method: path.startsWith('/__sandbox/delays') ? 'PUT' : 'POST',
    headers: HEADERS,
    body: raw ?? JSON.stringify(body),
  })
  return { status: res.status, body: (await res.json()) as any }
}

/** Each route kind, with the body around the free-form value where it has one. */
const routes: [string, (value: string) => string][] = [
  ['/v1/card-users/create', (value) => `{"phone":"+221770000000","x":${value}}`],
  ['/__sandbox/delays', (value) => value],
  [
    '/__sandbox/scenarios',
    (value) => `{"name":"x","rules":[{"match":{},"respond":{"body":${value}}}]}`,
  ],
  [
    '/__sandbox/fixtures',
    (value) => `{"fixture":{"name":"x","steps":[{"call":"POST /v1/x","body":${value}}]}}`,
  ],
  ['/__sandbox/checkout/:payment', (value) => `{"answer":"decline","x":${value}}`],
]

describe('deeply nested bodies (real socket)', () => {
  it('are refused with a 4xx in the error shape on every route kind, never a 5xx', async () => {
    for (const [route, around] of routes) {
      const path = route.replace(':payment', paymentReference)
      for (const [shape, value] of Object.entries(deep)) {
        for (const raw of [value, around(value)]) {
          const answer = await post(path, undefined, raw)
          expect(answer.status, `${route} ${shape}`).toBeGreaterThanOrEqual(400)
          expect(answer.status, `${route} ${shape}`).toBeLessThan(500)
          expect(answer.body.statusCode, `${route} ${shape}`).toBe(answer.status)
        }
      }
    }
  })

  it('leave the journal and the dashboard panel answering, with each deep body as its text', async () => {
    const journal = async (query: string) => {
      const res = await fetch(`${sandbox.url}/__sandbox/requests?${query}`, { headers: HEADERS })
      expect(res.status, query).toBe(200)
      return (await res.json()) as any
    }
    const all = await journal('per_page=100')
    expect(all.meta.total).toBeGreaterThan(40)
    for (let page = 1; page <= all.meta.last_page; page++)
      await journal(`per_page=100&page=${page}`)
    for (const query of ['status=4xx', 'method=PUT', 'path=/__sandbox/*', 'status=422&per_page=5'])
      await journal(query)
    const kept = all.data.map((entry: any) => entry.request.body)
    expect(kept).toContain(deep.objects)
    expect(kept).toContain(deep.mixed)

    const panel = await fetch(`${sandbox.url}/__sandbox/ui/panel`, { headers: HEADERS })
    expect(panel.status).toBe(200)
    expect(await panel.text()).toContain('[[[[')
  })
})
