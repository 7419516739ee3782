/**
 * One webhook attempt (src/webhooks/attempt.ts), made directly on a sandbox's store against real
 * receivers on real ports: the event's status after it, the retry's time, the attempt's row and
 * its console line (`--log json` and `--log pretty`), and what is not recorded when the sandbox
 * stopped or the event went away while the POST was out.
 */
import { createServer, type ServerResponse } from 'node:http'
import type { AddressInfo } from 'node:net'
import { eq } from 'drizzle-orm'
import { afterEach, describe, expect, it } from 'vitest'
import type { WebhookEvent } from '../../src/db/schema.js'
import { createLogger, type Logger } from '../../src/lib/logger.js'
import { query } from '../../src/store/statements.js'
import { attemptsOf } from '../../src/store/webhooks.js'
import { attemptEvent } from '../../src/webhooks/attempt.js'
import { fullIdentity, newSandbox, TOKEN } from '../helpers.js'

const cleanups: (() => unknown)[] = []
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup()
})

/** A receiver on a real port; `answer` answers each request once its body is in. */
async function receiver(answer: (res: ServerResponse) => unknown) {
  const server = createServer((req, res) => {
    req.resume()
    req.on('end', () => void answer(res))
  })
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  cleanups.push(() => {
    server.closeAllConnections()
    return new Promise((resolve) => server.close(resolve))
  })
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}/hooks`
}

const answering = (status: number) => (res: ServerResponse) =>
  res.writeHead(status, { 'content-type': 'text/plain' }).end(`answer ${status}`)

/**
 * A sandbox (manual clock, 2026-01-01T00:00:00Z) with one event, a verified card user's, made
 * while the tenant had no webhook URL; and what its attempts print, as JSON and pretty lines.
 */
async function oneEvent() {
  const s = newSandbox()
  cleanups.push(() => s.close())
  await s.call('POST', '/v1/card-users/create', fullIdentity())
  await s.call('POST', '/__sandbox/clock/advance', { by: '3s' })
  await new Promise((resolve) => setImmediate(resolve))
  await s.deps.deliverer.idle()
  const db = s.deps.db
  const [event] = await query<WebhookEvent[]>(db, 'all', (db, t) =>
    db.select().from(t.webhookEvents),
  )
  const tenant = (await s.deps.tenants.forToken(TOKEN))!
  const json: Record<string, unknown>[] = []
  const pretty: string[] = []
  const toJson = createLogger('json', (text) => json.push(JSON.parse(text)))
  const toPretty = createLogger('pretty', (text) => pretty.push(text))
  const logger: Logger = { log: (line) => (toJson.log(line), toPretty.log(line)) }
  let closed = false
  async function attempt(
    url: string | undefined,
    of: WebhookEvent = event,
    isClosed: () => boolean = () => closed,
  ) {
    return attemptEvent(
      {
        db,
        tenants: s.deps.tenants,
        options: { webhookUrl: url, timeoutMs: 2_000, logger },
        isClosed,
      },
      of,
      tenant,
    )
  }
  const stored = async () =>
    (
      await query<WebhookEvent[]>(db, 'all', (db, t) =>
        db.select().from(t.webhookEvents).where(eq(t.webhookEvents.seq, event.seq)),
      )
    )[0]
  const attempts = () => attemptsOf(db, [event.id])
  /** What a pretty line says after its time and tenant. */
  const said = () => pretty.map((line) => line.replace(/^\S+ +\S+ +/, '').trimEnd())
  return {
    event,
    attempt,
    stored,
    attempts,
    json,
    said,
    close: () => (closed = true),
    db,
  }
}

const TYPE = 'card_user_verification.successful'

describe('the answer decides the event’s status', () => {
  it('a 2xx is delivered: recorded, printed as delivered, with no error and no retry', async () => {
    const url = await receiver(answering(200))
    const e = await oneEvent()
    expect(await e.attempt(url)).toBe('delivered')
    expect(await e.stored()).toMatchObject({ status: 'delivered', attempts: 1, leaseUntil: null })
    expect(await e.attempts()).toMatchObject([
      { attempt: 1, url, statusCode: 200, response: 'answer 200', error: null },
    ])
    expect(e.json).toEqual([
      {
        time: expect.any(String),
        level: 'info',
        event: 'webhook',
        tenant: '******oken',
        type: TYPE,
        id: e.event.id,
        url,
        attempt: 1,
        status_code: 200,
        outcome: 'delivered',
        sandbox_time: '2026-01-01T00:00:03.000Z',
      },
    ])
    expect(e.said().at(-1)).toBe(`webhook ${TYPE} → ${url} attempt 1: HTTP 200, delivered`)
  })

  it('a 3xx is not delivered: it is retried 10 s later (sandbox time)', async () => {
    const url = await receiver(answering(300))
    const e = await oneEvent()
    expect(await e.attempt(url)).toBe('pending')
    expect(await e.stored()).toMatchObject({
      status: 'pending',
      attempts: 1,
      nextAttemptAt: Date.parse('2026-01-01T00:00:13.000Z'),
    })
    expect((await e.attempts())[0].statusCode).toBe(300)
    expect(e.said().at(-1)).toBe(
      `warning: webhook ${TYPE} → ${url} attempt 1: HTTP 300, ` +
        'retry at 2026-01-01T00:00:13.000Z (sandbox time)',
    )
  })

  it('a failure after the last retry fails the event: no retry left, its retry time kept', async () => {
    const url = await receiver(answering(500))
    const e = await oneEvent()
    const lastCycle = { ...e.event, attempts: 6 }
    expect(await e.attempt(url, lastCycle)).toBe('failed')
    expect(await e.stored()).toMatchObject({
      status: 'failed',
      attempts: 7,
      nextAttemptAt: e.event.nextAttemptAt,
    })
    expect(e.json.at(-1)).toMatchObject({ level: 'warn', status_code: 500, outcome: 'failed' })
    expect(e.json.at(-1)).not.toHaveProperty('next_attempt_at')
    expect(e.said().at(-1)).toBe(
      `warning: webhook ${TYPE} → ${url} attempt 1: HTTP 500, failed, no retry left`,
    )
  })

  it('a refused connection is recorded and printed with its error, no status code', async () => {
    const url = await receiver(answering(200))
    await cleanups.splice(-1)[0]() // the receiver is gone: its port refuses
    const e = await oneEvent()
    expect(await e.attempt(url)).toBe('pending')
    expect(await e.attempts()).toMatchObject([
      { statusCode: null, response: null, error: 'fetch failed: ECONNREFUSED' },
    ])
    expect(e.json.at(-1)).toMatchObject({
      status_code: null,
      error: 'fetch failed: ECONNREFUSED',
      outcome: 'retrying',
      next_attempt_at: '2026-01-01T00:00:13.000Z',
    })
    expect(e.said().at(-1)).toBe(
      `warning: webhook ${TYPE} → ${url} attempt 1: fetch failed: ECONNREFUSED, ` +
        'retry at 2026-01-01T00:00:13.000Z (sandbox time)',
    )
  })
})

it('records how long the attempt took, not a time since the process started', async () => {
  const url = await receiver((res) => setTimeout(() => answering(200)(res), 40))
  const e = await oneEvent()
  const started = performance.now()
  await e.attempt(url)
  const took = performance.now() - started
  const [{ latencyMs }] = await e.attempts()
  expect(latencyMs).toBeGreaterThanOrEqual(39)
  expect(latencyMs).toBeLessThanOrEqual(Math.ceil(took))
})

it('skips an event when the tenant has no webhook URL, and says how to set one', async () => {
  const e = await oneEvent()
  expect(await e.attempt(undefined)).toBe('skipped')
  expect((await e.stored()).status).toBe('skipped')
  expect(await e.attempts()).toEqual([])
  expect(e.said()).toEqual([
    `webhook ${TYPE} not sent: no webhook URL (PUT /__sandbox/webhook or --webhook-url)`,
  ])
})

describe('nothing is recorded of a POST that outlived its event', () => {
  it('when the sandbox stopped while the POST was out', async () => {
    const e = await oneEvent()
    const url = await receiver((res) => {
      e.close()
      answering(200)(res)
    })
    const before = await e.stored()
    const lines = e.json.length
    expect(await e.attempt(url)).toBe(undefined)
    expect(await e.stored()).toEqual(before)
    expect(await e.attempts()).toEqual([])
    expect(e.json.length).toBe(lines)
  })

  it('when the event was swept (its tenant reset) while the POST was out', async () => {
    const e = await oneEvent()
    const url = await receiver(async (res) => {
      await query(e.db, 'run', (db, t) =>
        db.delete(t.webhookEvents).where(eq(t.webhookEvents.seq, e.event.seq)),
      )
      answering(200)(res)
    })
    const lines = e.json.length
    await e.attempt(url)
    expect(await e.stored()).toBe(undefined)
    expect(await e.attempts()).toEqual([])
    expect(e.json.length).toBe(lines)
  })
})
