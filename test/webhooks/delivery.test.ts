/**
 * Webhooks (PRODUCT §7) against a real local receiver: the exact body and signature, retries
 * with backoff on the manual clock, replay, restarts, and receivers that fail or never answer.
 */
import { createHmac } from 'node:crypto'
import { createServer } from 'node:http'
import type { AddressInfo } from 'node:net'
import { join } from 'node:path'
import { setFlagsFromString } from 'node:v8'
import { runInNewContext } from 'node:vm'
import pg from 'pg'
import { afterEach, describe, expect, it } from 'vitest'
import { MAX_IN_FLIGHT, MAX_IN_FLIGHT_PER_TENANT } from '../../src/webhooks/delivery.js'
import { fullIdentity, newSandbox, ON_POSTGRES, TOKEN } from '../helpers.js'
import { startReceiver, startStreamingReceiver, until, type Answer } from './receiver.js'
import { tempDir } from '../temp-dir.js'
import { freshSchema, TEST_PG } from '../pg.js'

const cleanups: (() => unknown)[] = []
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup()
})

async function setup(answers: Answer[] = [200], options: Parameters<typeof newSandbox>[0] = {}) {
  const receiver = await startReceiver(answers)
  const s = newSandbox({ webhookTimeoutMs: 300, ...options })
  cleanups.push(
    () => receiver.close(),
    () => s.close(),
  )
  return { s, receiver }
}

/** Lets the deliverer start what the last request queued, then waits for it to finish. */
async function drain(s: ReturnType<typeof newSandbox>) {
  await new Promise((resolve) => setImmediate(resolve))
  await s.deps.deliverer.idle()
}

setFlagsFromString('--expose-gc')
const collectGarbage = runInNewContext('gc') as () => void

const hmac = (body: string, secret: string) =>
  createHmac('sha512', secret).update(body).digest('hex')
const events = async (s: ReturnType<typeof newSandbox>) =>
  (await s.call('GET', '/__sandbox/webhooks')).body.data

/** A full-data card user, passed by the scheduler 3 s later. */
async function verifiedByTheClock(s: ReturnType<typeof newSandbox>) {
  const created = await s.call('POST', '/v1/card-users/create', fullIdentity())
  await s.call('POST', '/__sandbox/clock/advance', { by: '3s' })
  return created.body.data.userCard.reference as string
}

describe('card_user_verification.successful', () => {
  it('posts the spec’s body byte for byte, signed with the secret the tenant chose', async () => {
    const { s, receiver } = await setup()
    await s.call('PUT', '/__sandbox/webhook', { url: receiver.url, secret: 'chosen-secret' })
    const reference = await verifiedByTheClock(s)
    await until(() => receiver.requests.length === 1)
    await drain(s) // the attempt is logged

    const [{ headers, body }] = receiver.requests
    expect(body).toBe(
      `{"event":"card_user_verification.successful","data":{"reference":"${reference}",` +
        '"first_name":"Awa","last_name":"Diop","address":"12 Rue Carnot, Dakar","id_no":"1234567890123",' +
        '"phone":"+221770000001","email":"awa.diop@example.com","status":"passed"}}',
    )
    expect(headers['content-type']).toBe('application/json')
    expect(headers['x-alal-signature']).toBe(hmac(body, 'chosen-secret'))
    // a handler that re-serialises the parsed body gets the same bytes
    expect(JSON.stringify(JSON.parse(body))).toBe(body)
    const [event] = await events(s)
    expect(headers['x-alal-event-id']).toBe(event.id)
    expect(event).toMatchObject({
      type: 'card_user_verification.successful',
      status: 'delivered',
      extension: false,
    })
    expect(event.attempts).toEqual([
      {
        attempt: 1,
        at: '2026-01-01T00:00:03.000Z',
        url: receiver.url,
        request_headers: {
          'content-type': 'application/json',
          'x-alal-signature': headers['x-alal-signature'],
          'x-alal-event-id': event.id,
          'x-alal-delivery-attempt': '1',
        },
        status_code: 200,
        latency_ms: expect.any(Number),
        response: 'answer 200',
        error: null,
      },
    ])
  })

  it('signs with the tenant’s bearer token when no secret is set', async () => {
    const { s, receiver } = await setup()
    await s.call('PUT', '/__sandbox/webhook', { url: receiver.url })
    await verifiedByTheClock(s)
    await until(() => receiver.requests.length === 1)
    expect(receiver.requests[0].headers['x-alal-signature']).toBe(
      hmac(receiver.requests[0].body, TOKEN),
    )
  })

  it('uses --webhook-url and --webhook-secret for tenants that set nothing', async () => {
    const receiver = await startReceiver()
    const s = newSandbox({ webhookUrl: receiver.url, webhookSecret: 'flag-secret' })
    cleanups.push(
      () => receiver.close(),
      () => s.close(),
    )
    await verifiedByTheClock(s)
    await until(() => receiver.requests.length === 1)
    expect(receiver.requests[0].headers['x-alal-signature']).toBe(
      hmac(receiver.requests[0].body, 'flag-secret'),
    )
    expect((await s.call('GET', '/__sandbox/webhook')).body.data).toEqual({
      url: receiver.url,
      secret: 'flag-secret',
      url_source: 'flag',
      secret_source: 'flag',
    })
  })

  it('lets a tenant’s own url and secret win over --webhook-url and --webhook-secret', async () => {
    const flagged = await startReceiver()
    const own = await startReceiver()
    const s = newSandbox({ webhookUrl: flagged.url, webhookSecret: 'flag-secret' })
    cleanups.push(
      () => flagged.close(),
      () => own.close(),
      () => s.close(),
    )
    await s.call('PUT', '/__sandbox/webhook', { url: own.url, secret: 'own-secret' })
    await verifiedByTheClock(s)
    await until(() => own.requests.length === 1)
    expect(own.requests[0].headers['x-alal-signature']).toBe(
      hmac(own.requests[0].body, 'own-secret'),
    )
    expect(flagged.requests).toEqual([])
    expect((await s.call('GET', '/__sandbox/webhook')).body.data).toEqual({
      url: own.url,
      secret: 'own-secret',
      url_source: 'tenant',
      secret_source: 'tenant',
    })
  })

  it('gives a widget user passed by the control plane generated identity, all strings', async () => {
    const { s, receiver } = await setup()
    await s.call('PUT', '/__sandbox/webhook', { url: receiver.url })
    const user = await s.call('POST', '/v1/card-users/create', { phone: '+221770000000' })
    await s.call('POST', `/__sandbox/card-users/${user.body.userCard.reference}/transition`, {
      to: 'passed',
    })
    await until(() => receiver.requests.length === 1)
    const { data } = JSON.parse(receiver.requests[0].body)
    expect(Object.keys(data)).toEqual([
      'reference',
      'first_name',
      'last_name',
      'address',
      'id_no',
      'phone',
      'email',
      'status',
    ])
    for (const value of Object.values(data)) expect(typeof value).toBe('string')
  })
})

describe('the other documented events', () => {
  it('sends card_user_verification.failed, card_creation.successful and card_creation.failed', async () => {
    const { s, receiver } = await setup()
    await s.call('PUT', '/__sandbox/webhook', { url: receiver.url })
    const failed = await s.call('POST', '/v1/card-users/create', { phone: '+221770000000' })
    await s.call('POST', `/__sandbox/card-users/${failed.body.userCard.reference}/transition`, {
      to: 'failed',
    })
    const user = await verifiedByTheClock(s)
    const issued = await s.call('POST', '/v1/cards/create', {
      card_user_reference: user,
      card_brand: 'visa',
      card_type: 'virtual',
    })
    const doomed = await s.call('POST', '/v1/cards/create', {
      card_user_reference: user,
      card_brand: 'gim',
      card_type: 'physical',
    })
    await s.call('POST', `/__sandbox/cards/${doomed.body.data.card.reference}/transition`, {
      to: 'failed',
    })
    await s.call('POST', '/__sandbox/clock/advance', { by: '5s' })
    await until(() => receiver.requests.length === 4)

    const bodies = receiver.requests.map((r) => JSON.parse(r.body))
    expect(bodies.map((b) => b.event).sort()).toEqual([
      'card_creation.failed',
      'card_creation.successful',
      'card_user_verification.failed',
      'card_user_verification.successful',
    ])
    expect(bodies.find((b) => b.event === 'card_user_verification.failed').data).toEqual({
      reference: failed.body.userCard.reference,
      first_name: '',
      last_name: '',
      address: '',
      id_no: '',
      phone: '+221770000000',
      email: '',
      status: 'failed',
    })
    expect(bodies.find((b) => b.event === 'card_creation.successful').data).toEqual({
      reference: issued.body.data.card.reference,
      card_number: expect.stringMatching(/^4\d{15}$/),
      // as the API names it with quirks on (the docs' webhook page: "Visa")
      card_brand: 'Visa',
      card_type: 'virtual',
      cvv2: expect.stringMatching(/^\d{3}$/),
      expiry: expect.stringMatching(/^\d{4}-\d{2}$/),
      balance: '0',
      status: 'issued',
    })
    expect(bodies.find((b) => b.event === 'card_creation.failed').data).toEqual({
      reference: doomed.body.data.card.reference,
      card_brand: 'Gim',
      card_type: 'physical',
      status: 'failed',
    })
  })

  it('names the brand as it was asked for in card_creation events with quirks off', async () => {
    const { s, receiver } = await setup([200], { quirks: false })
    await s.call('PUT', '/__sandbox/webhook', { url: receiver.url })
    const user = await verifiedByTheClock(s)
    const issued = await s.call('POST', '/v1/cards/create', {
      card_user_reference: user,
      card_brand: 'mastercard',
      card_type: 'virtual',
    })
    await s.call('POST', '/__sandbox/clock/advance', { by: '5s' })
    await until(() => receiver.requests.some((r) => r.body.includes('card_creation.successful')))
    const event = receiver.requests
      .map((r) => JSON.parse(r.body))
      .find((b) => b.event === 'card_creation.successful')
    expect(event.data.reference).toBe((issued.body.data?.card ?? issued.body.card).reference)
    expect(event.data.card_brand).toBe('mastercard')
  })

  it('sends no extension events unless asked, and marks them when asked', async () => {
    const { s, receiver } = await setup([200], { webhookExtensions: true })
    await s.call('PUT', '/__sandbox/webhook', { url: receiver.url })
    const { reference } = await s.fundedCard()
    const transfer = await s.call('POST', '/v1/transactions/create/card-to-wallet', {
      amount: 5,
      card_reference: reference,
      phone: '+221770000000',
      network: 'wave-sn',
    })
    await s.call('POST', '/__sandbox/clock/advance', { by: '5s' })
    await until(() => receiver.requests.some((r) => r.body.includes('transaction.success')))
    const extension = receiver.requests.find((r) => r.body.includes('transaction.success'))!
    expect(extension.headers['x-card-sandbox-extension']).toBe('true')
    expect(JSON.parse(extension.body)).toEqual({
      event: 'transaction.success',
      data: {
        slug: transfer.body.data.transaction.slug,
        reference: expect.any(String),
        card_reference: reference,
        kind: 'card_to_wallet',
        amount: 5,
        status: 'success',
      },
    })

    const plain = await setup()
    await plain.s.call('PUT', '/__sandbox/webhook', { url: plain.receiver.url })
    const card = await plain.s.fundedCard()
    await plain.s.call('POST', '/v1/transactions/create/card-to-wallet', {
      amount: 5,
      card_reference: card.reference,
      phone: '+221770000000',
      network: 'wave-sn',
    })
    await plain.s.call('POST', '/__sandbox/clock/advance', { by: '5s' })
    const types = (await events(plain.s)).map((e: { type: string }) => e.type)
    expect(types.filter((t: string) => t.startsWith('transaction.'))).toEqual([])
  })
})

describe('retries', () => {
  it('retries after 500s with the same event id, and stops at the first 2xx', async () => {
    const { s, receiver } = await setup([500, 503, 200])
    await s.call('PUT', '/__sandbox/webhook', { url: receiver.url })
    await verifiedByTheClock(s)
    await until(() => receiver.requests.length === 1)
    await drain(s)
    await s.call('POST', '/__sandbox/clock/advance', { by: 9_999 })
    await drain(s)
    expect(receiver.requests).toHaveLength(1) // not before 10 s
    await s.call('POST', '/__sandbox/clock/advance', { by: 1 })
    await until(() => receiver.requests.length === 2)
    await s.call('POST', '/__sandbox/clock/advance', { by: '1m' })
    await until(() => receiver.requests.length === 3)
    await drain(s)
    await s.call('POST', '/__sandbox/clock/advance', { by: '1d' })
    await drain(s)
    expect(receiver.requests).toHaveLength(3) // no attempt after a 2xx

    const ids = new Set(receiver.requests.map((r) => r.headers['x-alal-event-id']))
    expect(ids.size).toBe(1)
    expect(receiver.requests.map((r) => r.headers['x-alal-delivery-attempt'])).toEqual([
      '1',
      '2',
      '3',
    ])
    const [event] = await events(s)
    expect(event.status).toBe('delivered')
    expect(
      event.attempts.map((a: { status_code: number; at: string }) => [a.status_code, a.at]),
    ).toEqual([
      [500, '2026-01-01T00:00:03.000Z'],
      [503, '2026-01-01T00:00:13.000Z'],
      [200, '2026-01-01T00:01:13.000Z'],
    ])
  })

  it('follows the whole schedule (10 s, 1 min, 5 min, 30 min, 2 h, 6 h) then marks the event failed', async () => {
    const { s, receiver } = await setup([500])
    await s.call('PUT', '/__sandbox/webhook', { url: receiver.url })
    await verifiedByTheClock(s)
    await until(() => receiver.requests.length === 1)
    for (const [i, by] of ['10s', '1m', '5m', '30m', '2h', '6h'].entries()) {
      await s.call('POST', '/__sandbox/clock/advance', { by })
      await until(() => receiver.requests.length === i + 2, 5_000, `attempt ${i + 2}`)
      await drain(s) // the attempt is logged before the next advance
    }
    const [event] = await events(s)
    expect(event.status).toBe('failed')
    expect(event.next_attempt_at).toBeNull()
    expect(event.attempts.map((a: { at: string }) => a.at)).toEqual([
      '2026-01-01T00:00:03.000Z',
      '2026-01-01T00:00:13.000Z',
      '2026-01-01T00:01:13.000Z',
      '2026-01-01T00:06:13.000Z',
      '2026-01-01T00:36:13.000Z',
      '2026-01-01T02:36:13.000Z',
      '2026-01-01T08:36:13.000Z',
    ])
    await s.call('POST', '/__sandbox/clock/advance', { by: '7d' })
    await drain(s)
    expect(receiver.requests).toHaveLength(7)
  })

  it('times out a receiver that never answers, logs it, and retries it', async () => {
    const { s, receiver } = await setup(['hang'])
    await s.call('PUT', '/__sandbox/webhook', { url: receiver.url })
    await verifiedByTheClock(s)
    await until(() => receiver.requests.length === 1)
    collectGarbage() // the timeout must not live on an object nothing holds
    await drain(s)
    const [event] = await events(s)
    expect(event.status).toBe('pending')
    expect(event.next_attempt_at).toBe('2026-01-01T00:00:13.000Z')
    expect(event.attempts[0]).toMatchObject({
      status_code: null,
      error: 'timed out after 300 ms',
      response: null,
    })
    await s.call('POST', '/__sandbox/clock/advance', { by: '10s' })
    await until(() => receiver.requests.length === 2)
  })

  it('logs an attempt once the receiver has answered, not when the request reaches it', async () => {
    const { s, receiver } = await setup(['hang'], { webhookTimeoutMs: 10_000 })
    await s.call('PUT', '/__sandbox/webhook', { url: receiver.url })
    await verifiedByTheClock(s)
    await until(() => receiver.requests.length === 1)
    // the receiver holds the request: the log has the event, and no attempt yet
    const [held] = await events(s)
    expect(held).toMatchObject({ status: 'pending', attempts: [] })
    receiver.hanging[0].writeHead(200).end('ok')
    await until(async () => (await events(s))[0].status === 'delivered')
    const [answered] = await events(s)
    expect(answered.attempts).toMatchObject([{ attempt: 1, status_code: 200, response: 'ok' }])
  })

  it('logs a refused connection as an error and retries it', async () => {
    const { s, receiver } = await setup()
    const dead = await startReceiver()
    await dead.close() // nothing listens there any more
    await s.call('PUT', '/__sandbox/webhook', { url: dead.url })
    await verifiedByTheClock(s)
    await drain(s)
    const [event] = await events(s)
    expect(event.attempts[0]).toMatchObject({
      status_code: null,
      error: expect.stringMatching(/ECONNREFUSED/),
    })
    await s.call('PUT', '/__sandbox/webhook', { url: receiver.url })
    await s.call('POST', '/__sandbox/clock/advance', { by: '10s' })
    await until(() => receiver.requests.length === 1)
  })
})

describe('console lines (--log)', () => {
  /** JSON lines of the webhook attempts, as `--log json` prints them. */
  async function logged(answers: Answer[]) {
    const lines: string[] = []
    const { s, receiver } = await setup(answers, {
      log: 'json',
      logWrite: (text) => lines.push(text),
    })
    const attempts = () =>
      lines.map((line) => JSON.parse(line)).filter((line) => line.event === 'webhook')
    return { s, receiver, attempts }
  }

  it('prints each attempt: event, URL, status, and the next retry on the tenant clock', async () => {
    const { s, receiver, attempts } = await logged([500, 200])
    await s.call('PUT', '/__sandbox/webhook', { url: receiver.url })
    await verifiedByTheClock(s)
    await drain(s)
    await s.call('POST', '/__sandbox/clock/advance', { by: '10s' })
    await until(() => attempts().length === 2)
    const [failed, delivered] = attempts()
    const [event] = await events(s)
    expect(failed).toEqual({
      time: expect.any(String),
      level: 'warn',
      event: 'webhook',
      tenant: '******oken',
      type: 'card_user_verification.successful',
      id: event.id,
      url: receiver.url,
      attempt: 1,
      status_code: 500,
      outcome: 'retrying',
      next_attempt_at: '2026-01-01T00:00:13.000Z',
      sandbox_time: '2026-01-01T00:00:03.000Z',
    })
    expect(delivered).toMatchObject({
      level: 'info',
      attempt: 2,
      status_code: 200,
      outcome: 'delivered',
      sandbox_time: '2026-01-01T00:00:13.000Z',
    })
    expect(delivered).not.toHaveProperty('next_attempt_at')
  })

  it('prints a refused connection with its error, in pretty lines too', async () => {
    const lines: string[] = []
    const { s } = await setup([200], { log: 'pretty', logWrite: (text) => lines.push(text) })
    const dead = await startReceiver()
    await dead.close()
    await s.call('PUT', '/__sandbox/webhook', { url: dead.url })
    await verifiedByTheClock(s)
    await drain(s)
    const line = lines.find((text) => text.includes('webhook card_'))
    expect(line).toMatch(
      new RegExp(
        `warning: webhook card_user_verification\\.successful → ${dead.url.replaceAll('/', '\\/')} ` +
          'attempt 1: .*ECONNREFUSED.*, retry at 2026-01-01T00:00:13\\.000Z \\(sandbox time\\)',
      ),
    )
  })

  it('says an event was not sent when the tenant has no webhook URL', async () => {
    const { s, attempts } = await logged([200])
    await verifiedByTheClock(s)
    await drain(s)
    expect(attempts()).toEqual([
      expect.objectContaining({ status: 'skipped', type: 'card_user_verification.successful' }),
    ])
  })

  it('masks the password of a webhook URL', async () => {
    const { s, receiver, attempts } = await logged([200])
    const withPassword = receiver.url.replace('http://', 'http://user:hunter2-secret@')
    await s.call('PUT', '/__sandbox/webhook', { url: withPassword })
    await verifiedByTheClock(s)
    await drain(s)
    const [attempt] = attempts()
    expect(attempt.url).toBe(receiver.url.replace('http://', 'http://user:**********cret@'))
    // and so does the webhook log's read
    const [event] = await events(s)
    expect(event.attempts[0].url).toBe(attempt.url)
  })
})

describe('replay', () => {
  it('sends a delivered event again, same id and bytes', async () => {
    const { s, receiver } = await setup()
    await s.call('PUT', '/__sandbox/webhook', { url: receiver.url })
    await verifiedByTheClock(s)
    await until(() => receiver.requests.length === 1)
    await drain(s)
    const [event] = await events(s)
    const replay = await s.call('POST', `/__sandbox/webhooks/${event.id}/replay`)
    expect(replay.status, JSON.stringify(replay.body)).toBe(200)
    await until(() => receiver.requests.length === 2)
    expect(receiver.requests[1].body).toBe(receiver.requests[0].body)
    expect(receiver.requests[1].headers['x-alal-event-id']).toBe(event.id)
    expect(receiver.requests[1].headers['x-alal-delivery-attempt']).toBe('2')
  })

  it('answers 404 for an unknown or another tenant’s event', async () => {
    const { s, receiver } = await setup()
    await s.call('PUT', '/__sandbox/webhook', { url: receiver.url })
    await verifiedByTheClock(s)
    const [event] = await events(s)
    expect(
      (
        await s.call('POST', `/__sandbox/webhooks/${event.id}/replay`, undefined, {
          token: 'other',
        })
      ).status,
    ).toBe(404)
    const unknown = await s.call('POST', '/__sandbox/webhooks/evt_nothing/replay')
    const message = 'No webhook event found for id "evt_nothing".'
    expect(unknown.status).toBe(404)
    expect(unknown.body).toEqual({ message, statusCode: 404, errors: { id: [message] } })
    expect((await s.call('POST', '/__sandbox/webhooks/not-an-id/replay')).status).toBe(404)
  })

  it('skips an event when no endpoint is set, and delivers it on replay once one is', async () => {
    const { s, receiver } = await setup()
    await verifiedByTheClock(s)
    await drain(s)
    const [event] = await events(s)
    expect(event.status).toBe('skipped')
    await s.call('PUT', '/__sandbox/webhook', { url: receiver.url })
    await s.call('POST', `/__sandbox/webhooks/${event.id}/replay`)
    await until(() => receiver.requests.length === 1)
  })
})

describe('durability and isolation', () => {
  it('delivers at least once across a restart with a file database', async () => {
    const dir = tempDir()
    const db = join(dir, 'sandbox.sqlite')
    const receiver = await startReceiver([503, 200])
    cleanups.push(() => receiver.close())

    const first = newSandbox({ db, webhookTimeoutMs: 300 })
    await first.call('PUT', '/__sandbox/webhook', { url: receiver.url })
    await verifiedByTheClock(first)
    await until(() => receiver.requests.length === 1)
    await drain(first)
    first.close() // the 503 is logged; the retry is due at +10 s

    const second = newSandbox({ db, webhookTimeoutMs: 300 })
    cleanups.push(() => second.close())
    await second.call('POST', '/__sandbox/clock/advance', { by: '10s' })
    await until(() => receiver.requests.length === 2)
    expect(receiver.requests[1].body).toBe(receiver.requests[0].body)
    expect(receiver.requests[1].headers['x-alal-event-id']).toBe(
      receiver.requests[0].headers['x-alal-event-id'],
    )
  })

  it('answers API requests while a receiver hangs, and delivers other tenants’ events meanwhile', async () => {
    const hung = await startReceiver(['hang'])
    const healthy = await startReceiver([200])
    const s = newSandbox({ webhookTimeoutMs: 60_000 })
    cleanups.push(
      () => hung.close(),
      () => healthy.close(),
      () => s.close(),
    )
    await s.call('PUT', '/__sandbox/webhook', { url: hung.url }, { token: 'slow' })
    await s.call('PUT', '/__sandbox/webhook', { url: healthy.url }, { token: 'fast' })

    const slow = await s.call(
      'POST',
      '/v1/card-users/create',
      { phone: '+221770000000' },
      { token: 'slow' },
    )
    const passed = await s.call(
      'POST',
      `/__sandbox/card-users/${slow.body.userCard.reference}/transition`,
      { to: 'passed' },
      { token: 'slow' },
    )
    expect(passed.status).toBe(200)
    await until(() => hung.hanging.length === 1) // the receiver holds the delivery open

    // the API keeps answering while that delivery hangs
    const list = await s.call('GET', '/v1/card-users', undefined, { token: 'slow' })
    expect(list.status).toBe(200)
    // and another tenant's webhook goes out meanwhile
    const fast = await s.call(
      'POST',
      '/v1/card-users/create',
      { phone: '+221770000001' },
      { token: 'fast' },
    )
    await s.call(
      'POST',
      `/__sandbox/card-users/${fast.body.userCard.reference}/transition`,
      { to: 'passed' },
      { token: 'fast' },
    )
    await until(() => healthy.requests.length === 1)
    expect(hung.hanging).toHaveLength(1)
  })

  it('writes no event for a change that was refused', async () => {
    const { s, receiver } = await setup()
    await s.call('PUT', '/__sandbox/webhook', { url: receiver.url })
    const user = await verifiedByTheClock(s)
    await s.call('POST', `/__sandbox/card-users/${user}/transition`, { to: 'failed' }) // 409
    expect((await events(s)).map((e: { type: string }) => e.type)).toEqual([
      'card_user_verification.successful',
    ])
  })
})

describe('hostile receivers', () => {
  it('reads at most 4 KiB of an answer that streams on, keeps its first 512 bytes and drops the connection', async () => {
    const total = 64 * 1024 * 1024
    const receiver = await startStreamingReceiver(total)
    const s = newSandbox({ webhookTimeoutMs: 30_000 })
    cleanups.push(
      () => receiver.close(),
      () => s.close(),
    )
    await s.call('PUT', '/__sandbox/webhook', { url: receiver.url })
    await verifiedByTheClock(s)
    await until(() => receiver.state.requests === 1)
    await drain(s)
    await until(() => receiver.state.closedEarly !== null, 5_000, 'the response to close')

    const [event] = await events(s)
    expect(event.status).toBe('delivered')
    expect(event.attempts).toEqual([
      expect.objectContaining({ status_code: 200, response: 'x'.repeat(512), error: null }),
    ])
    // the receiver saw its connection closed before it could write the whole body
    expect(receiver.state.closedEarly).toBe(true)
    expect(receiver.state.sent).toBeLessThan(total)
  })

  it('lets a tenant whose receiver never answers hold only its share of the slots, and delivers another tenant’s event meanwhile', async () => {
    const hung = await startReceiver(['hang'])
    const healthy = await startReceiver([200])
    const s = newSandbox({ webhookTimeoutMs: 60_000 })
    cleanups.push(
      () => s.close(),
      () => hung.close(),
      () => healthy.close(),
    )
    const busy = { token: 'busy-tenant' }
    const other = { token: 'other-tenant' }
    await s.call('PUT', '/__sandbox/webhook', { url: hung.url }, busy)
    await s.call('PUT', '/__sandbox/webhook', { url: healthy.url }, other)
    // more due events than all the slots together, all due at once
    const queued = MAX_IN_FLIGHT + 50
    for (let i = 0; i < queued; i++) {
      await s.call('POST', '/v1/card-users/create', fullIdentity(), busy)
    }
    await s.call('POST', '/__sandbox/clock/advance', { by: '3s' }, busy)
    await until(() => hung.hanging.length === MAX_IN_FLIGHT_PER_TENANT)

    const user = await s.call('POST', '/v1/card-users/create', { phone: '+221770000001' }, other)
    await s.call(
      'POST',
      `/__sandbox/card-users/${user.body.userCard.reference}/transition`,
      { to: 'passed' },
      other,
    )
    await until(() => healthy.requests.length === 1, 5_000, 'the other tenant’s delivery')

    // delivered while every attempt of the busy tenant is still in flight, none beyond its share
    expect(hung.requests).toHaveLength(MAX_IN_FLIGHT_PER_TENANT)
    const log = await s.call('GET', '/__sandbox/webhooks?per_page=100', undefined, busy)
    expect(log.body.meta.total).toBe(queued)
    for (const event of log.body.data) {
      expect(event).toMatchObject({ status: 'pending', attempts: [] })
    }
  })

  it('takes turns between tenants when every slot is taken, so no tenant waits for the others’ backlogs', async () => {
    const hung = await startReceiver(['hang'])
    const healthy = await startReceiver([200])
    // every hung attempt still hangs when the last slot is taken: the ten advances below take
    // a few seconds on PostgreSQL, a fraction of one on SQLite
    const s = newSandbox({ webhookTimeoutMs: ON_POSTGRES ? 8_000 : 2_000 })
    cleanups.push(
      () => s.close(),
      () => hung.close(),
      () => healthy.close(),
    )
    const tokens = Array.from(
      { length: MAX_IN_FLIGHT / MAX_IN_FLIGHT_PER_TENANT + 1 },
      (_, i) => `tenant-${i}`,
    )
    for (const token of tokens) await s.call('GET', '/__sandbox/webhook', undefined, { token })
    // the tenant that comes last in id order: a pick that always started from the first id
    // would serve it only once every other tenant had nothing due
    const idOf = async (token: string) => (await s.deps.tenants.forToken(token))!.id
    const ids = new Map<string, string>()
    for (const token of tokens) ids.set(token, await idOf(token))
    const last = tokens.reduce((a, b) => (ids.get(a)! > ids.get(b)! ? a : b))
    const dead = tokens.filter((token) => token !== last)
    const rounds = 3
    for (const token of dead) {
      await s.call('PUT', '/__sandbox/webhook', { url: hung.url }, { token })
      for (let i = 0; i < MAX_IN_FLIGHT_PER_TENANT * rounds; i++) {
        await s.call('POST', '/v1/card-users/create', fullIdentity(), { token })
      }
    }
    for (const token of dead)
      await s.call('POST', '/__sandbox/clock/advance', { by: '3s' }, { token })
    await until(() => hung.hanging.length === MAX_IN_FLIGHT, 10_000) // every slot is taken

    const lastAs = { token: last }
    await s.call('PUT', '/__sandbox/webhook', { url: healthy.url }, lastAs)
    const user = await s.call('POST', '/v1/card-users/create', { phone: '+221770000001' }, lastAs)
    await s.call(
      'POST',
      `/__sandbox/card-users/${user.body.userCard.reference}/transition`,
      { to: 'passed' },
      lastAs,
    )
    await until(() => healthy.requests.length === 1, 20_000, 'the last tenant’s delivery')
    // served when the first slots came free, before the others' last round started
    expect(hung.requests.length).toBeLessThanOrEqual(MAX_IN_FLIGHT * (rounds - 1))
  }, 60_000)
})

describe('turns between tenants with a receiver that answers', () => {
  /**
   * A receiver that holds every request until `answerSingly(total)`, then answers them one at a
   * time, oldest first: one at once, then one more each time a request arrives (the slot the last
   * answer freed, taken again), and all it holds once `total` have arrived. One slot at most is
   * free at any time, so each pass has one to give, and where the pass starts decides who gets
   * it. `order` is the tenant (`?t=`) of each request, in the order they arrived.
   */
  async function startSingleFileReceiver() {
    const order: string[] = []
    const held: (() => void)[] = []
    let total: number | undefined
    const answerNext = () => {
      if (order.length >= total!) for (const answer of held.splice(0)) answer()
      else held.shift()?.()
    }
    const server = createServer((req, res) => {
      req.resume()
      req.on('end', () => {
        order.push(new URL(req.url!, 'http://x').searchParams.get('t')!)
        held.push(() => void res.writeHead(200).end('ok'))
        if (total !== undefined) answerNext()
      })
    })
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
    const { port } = server.address() as AddressInfo
    return {
      url: (tenant: string) => `http://127.0.0.1:${port}/hooks?t=${tenant}`,
      order,
      held,
      answerSingly(expected: number) {
        total = expected
        answerNext()
      },
      async close() {
        server.closeAllConnections()
        await new Promise((resolve) => server.close(resolve))
      },
    }
  }

  it('alternates the free slots between two tenants’ backlogs, never serving one whole before the other', async () => {
    const hung = await startReceiver(['hang'])
    const gate = await startSingleFileReceiver()
    const s = newSandbox({ webhookTimeoutMs: 60_000 })
    cleanups.push(
      () => s.close(),
      () => hung.close(),
      () => gate.close(),
    )
    // tenants whose receiver never answers hold every slot but the last tenant's share: the two
    // backlogs below then compete for those MAX_IN_FLIGHT_PER_TENANT slots, one pass at a time
    const blockers = Array.from(
      { length: MAX_IN_FLIGHT / MAX_IN_FLIGHT_PER_TENANT - 1 },
      (_, i) => ({ token: `blocker-${i}` }),
    )
    for (const as of blockers) {
      await s.call('PUT', '/__sandbox/webhook', { url: hung.url }, as)
      for (let i = 0; i < MAX_IN_FLIGHT_PER_TENANT; i++)
        await s.call('POST', '/v1/card-users/create', fullIdentity(), as)
    }
    const backlog = 3 * MAX_IN_FLIGHT_PER_TENANT
    const a = { token: 'backlog-a' }
    const b = { token: 'backlog-b' }
    for (const [as, name] of [
      [a, 'a'],
      [b, 'b'],
    ] as const) {
      await s.call('PUT', '/__sandbox/webhook', { url: gate.url(name) }, as)
      for (let i = 0; i < backlog; i++)
        await s.call('POST', '/v1/card-users/create', fullIdentity(), as)
    }
    for (const as of blockers) await s.call('POST', '/__sandbox/clock/advance', { by: '3s' }, as)
    await until(() => hung.hanging.length === MAX_IN_FLIGHT - MAX_IN_FLIGHT_PER_TENANT, 10_000)
    // a's backlog takes the last slots and is held there; b's falls due meanwhile and waits
    await s.call('POST', '/__sandbox/clock/advance', { by: '3s' }, a)
    await until(() => gate.held.length === MAX_IN_FLIGHT_PER_TENANT, 10_000)
    await s.call('POST', '/__sandbox/clock/advance', { by: '3s' }, b)
    await new Promise((resolve) => setTimeout(resolve, 200))
    expect(gate.order.filter((t) => t === 'b')).toHaveLength(0) // no slot is free for b yet

    // from here the slots come free one at a time: each pass gives one
    gate.answerSingly(2 * backlog)
    await until(() => gate.order.length === 2 * backlog, 30_000, 'both backlogs delivered')

    // after a's first held share, the next attempts alternate: each tenant gets about half of
    // them. A pass that started at the tenant served last would give that tenant every slot
    // until its backlog ran out, and the other none of these.
    const next = gate.order.slice(MAX_IN_FLIGHT_PER_TENANT, 3 * MAX_IN_FLIGHT_PER_TENANT)
    const ofB = next.filter((t) => t === 'b').length
    expect(ofB, next.join('')).toBeGreaterThanOrEqual(next.length / 4)
    expect(next.length - ofB, next.join('')).toBeGreaterThanOrEqual(next.length / 4)
    // and b's backlog is not served whole after a's: a's last attempt comes after b's first
    expect(gate.order.lastIndexOf('a')).toBeGreaterThan(gate.order.indexOf('b'))
  }, 90_000)
})

/**
 * On PostgreSQL a claim of due events takes round trips, during which the tenant's attempts in
 * flight may settle; on SQLite none can (its statements answer without waiting for I/O). So these
 * run on PostgreSQL whenever one is named.
 */
describe.skipIf(!TEST_PG)('a tenant’s slots on PostgreSQL', () => {
  it('gives a tenant its whole share again after a backlog whose attempts settled while the next were claimed', async () => {
    const schema = await freshSchema()
    // three shares answered at once (the answers to one come back while the next is claimed),
    // then a share that is never answered
    const answered = 3 * MAX_IN_FLIGHT_PER_TENANT
    const receiver = await startReceiver([...Array<Answer>(answered + 1).fill(200), 'hang'])
    const s = newSandbox({ db: schema.url, webhookTimeoutMs: 60_000 })
    cleanups.push(
      schema.drop,
      () => s.close(),
      () => receiver.close(),
    )
    await s.call('PUT', '/__sandbox/webhook', { url: receiver.url })
    await verifiedByTheClock(s)
    await until(() => receiver.requests.length === 1)
    // the backlog, written by another replica: copies of that event, all due
    const other = new pg.Client({ connectionString: schema.url })
    await other.connect()
    await other.query(
      `INSERT INTO webhook_events (id, tenant_id, type, extension, body, status, attempts, next_attempt_at, created_at)
       SELECT id || '-' || n, tenant_id, type, extension, body, 'pending', 0, next_attempt_at, created_at
       FROM webhook_events, generate_series(1, $1::int) n`,
      [answered + MAX_IN_FLIGHT_PER_TENANT],
    )
    await other.end()
    await s.call('POST', '/__sandbox/clock/advance', { by: '1s' }) // the replica looks again

    // once the answered ones have settled, nothing of the tenant's is in flight but the last
    // share: it takes every one of the tenant's slots, not those a miscount left it
    await until(
      () => receiver.hanging.length === MAX_IN_FLIGHT_PER_TENANT,
      10_000,
      `all ${MAX_IN_FLIGHT_PER_TENANT} of the tenant’s slots in flight`,
    )
  })
})

describe('PUT /__sandbox/webhook', () => {
  it('refuses what is not an http(s) URL or a secret, naming the field', async () => {
    const s = newSandbox()
    cleanups.push(() => s.close())
    for (const [body, field] of [
      [{ url: 'ftp://x' }, 'url'],
      [{ url: 'not a url' }, 'url'],
      [{ url: 42 }, 'url'],
      [{}, 'url'],
      [{ url: null, secret: '' }, 'secret'],
      [{ url: null, secret: 7 }, 'secret'],
      [{ url: 'http://127.0.0.1:9/hook', secret: 'x'.repeat(513) }, 'secret'],
    ] as const) {
      const res = await s.call('PUT', '/__sandbox/webhook', body)
      expect(res.status, JSON.stringify(body)).toBe(422)
      expect(Object.keys(res.body.errors), JSON.stringify(body)).toEqual([field])
    }
    // nothing refused was kept
    expect((await s.call('GET', '/__sandbox/webhook')).body.data).toEqual({
      url: null,
      secret: TOKEN,
      url_source: 'none',
      secret_source: 'token',
    })
    const cleared = await s.call('PUT', '/__sandbox/webhook', { url: null })
    expect(cleared.body.data).toEqual({
      url: null,
      secret: TOKEN,
      url_source: 'none',
      secret_source: 'token',
    })
  })
})
