/**
 * card-sandbox/client against a real sandbox over HTTP: every method's happy path, and the
 * errors it throws (status and body of the sandbox's answer).
 */
import { afterAll, beforeAll, beforeEach, describe, expect, expectTypeOf, it } from 'vitest'
import {
  createSandboxClient,
  sandboxOrigin,
  SandboxClientError,
  type ClockMode,
  type DelayName,
  type DisputeReason,
  type JournalEntry,
  type SandboxClient,
  type SandboxErrorBody,
  type TransitionResource,
  type WalletCodeNetwork,
  type WebhookEventStatus,
} from '../../src/clients/client.js'
import type { CLOCK_MODES, WEBHOOK_EVENT_STATUSES } from '../../src/db/schema.js'
import type { DisputeReason as ServerDisputeReason } from '../../src/domain/disputes.js'
import type { DelayName as ServerDelayName } from '../../src/domain/schedule.js'
import type { TransitionResource as ServerTransitionResource } from '../../src/domain/lifecycles.js'
import type { CodeNetwork } from '../../src/domain/wallet-codes.js'
import type { journalEntryJson } from '../../src/http/control/requests.js'
import { startSandbox, type RunningSandbox } from '../../src/index.js'
import { startReceiver, until } from '../webhooks/receiver.js'
import { fullIdentity } from '../helpers.js'

let sandbox: RunningSandbox
let client: SandboxClient

beforeAll(async () => {
  sandbox = await startSandbox({ port: 0, clock: 'manual', seed: 42 })
  client = createSandboxClient({ baseUrl: sandbox.url, token: 'client-test' })
})
afterAll(() => sandbox.close())
beforeEach(async () => {
  await client.reset()
  await client.setWebhook({ url: null })
})

/** A widget-flow card user (pending until moved), through the /v1 escape hatch. */
async function widgetUser(phone = '+221770000001'): Promise<string> {
  const created = await client.v1('POST', '/card-users/create', { phone })
  return created.userCard.reference
}

/** A verified user's card, issued and funded with `amount`. */
async function issuedCard(amount = 0): Promise<string> {
  const user = await widgetUser()
  await client.transition('card-users', user, 'passed')
  const created = await client.v1('POST', '/cards/create', {
    card_user_reference: user,
    card_brand: 'visa',
    card_type: 'virtual',
  })
  await client.advanceClock('5s')
  if (amount) await client.fundCard(created.data.card.reference, amount)
  return created.data.card.reference
}

/** Polls an async condition for up to 5 s. */
async function eventually(ready: () => Promise<boolean>): Promise<void> {
  const deadline = Date.now() + 5_000
  while (!(await ready())) {
    if (Date.now() > deadline) throw new Error('timed out')
    await new Promise((resolve) => setTimeout(resolve, 10))
  }
}

/** The error a call throws (fails the test if it does not throw one). */
async function errorOf(call: Promise<unknown>): Promise<SandboxClientError> {
  const error = await call.then(
    () => undefined,
    (e: unknown) => e,
  )
  expect(error).toBeInstanceOf(SandboxClientError)
  return error as SandboxClientError
}

describe('createSandboxClient', () => {
  it('takes the origin or the /v1 base, with or without a trailing slash', async () => {
    for (const base of [sandbox.url, `${sandbox.url}/`, sandbox.baseUrl, `${sandbox.baseUrl}/`]) {
      const other = createSandboxClient({ baseUrl: base, token: 'client-test' })
      expect(other.url).toBe(sandbox.url)
      expect(other.baseUrl).toBe(sandbox.baseUrl)
      expect(await other.health()).toEqual({ status: 'ok' })
    }
    expect(sandboxOrigin('http://h:1/v1')).toBe('http://h:1')
  })

  it('keeps its types in step with the sandbox', () => {
    expectTypeOf<TransitionResource>().toEqualTypeOf<ServerTransitionResource>()
    expectTypeOf<DisputeReason>().toEqualTypeOf<ServerDisputeReason>()
    expectTypeOf<DelayName>().toEqualTypeOf<ServerDelayName>()
    expectTypeOf<WalletCodeNetwork>().toEqualTypeOf<CodeNetwork>()
    expectTypeOf<ClockMode>().toEqualTypeOf<(typeof CLOCK_MODES)[number]>()
    expectTypeOf<JournalEntry>().toEqualTypeOf<ReturnType<typeof journalEntryJson>>()
    expectTypeOf<WebhookEventStatus>().toEqualTypeOf<(typeof WEBHOOK_EVENT_STATUSES)[number]>()
  })
})

describe('control plane', () => {
  it('reset deletes the tenant’s data', async () => {
    await widgetUser()
    const { tenant } = await client.reset()
    expect(tenant).toEqual(expect.any(String))
    const list = await client.v1('GET', '/card-users')
    expect(list.data[0].data).toEqual([])
  })

  it('reset puts the clock in the mode asked for', async () => {
    await client.setClockMode('real')
    await client.reset()
    expect((await client.clock()).mode).toBe('manual') // this sandbox's default
    await client.reset({ clock: 'real' })
    expect((await client.clock()).mode).toBe('real')
    await client.reset({ clock: 'manual' })
    expect((await client.clock()).mode).toBe('manual')
  })

  it('reads, advances and switches the clock', async () => {
    const start = await client.clock()
    expect(start).toMatchObject({ mode: 'manual', now: '2026-01-01T00:00:00.000Z', speed: 1 })
    const advanced = await client.advanceClock('15m')
    expect(advanced.now_ms - start.now_ms).toBe(15 * 60_000)
    expect(advanced.transitions_run).toBe(0)
    expect((await client.advanceClock(500)).now_ms - advanced.now_ms).toBe(500)
    expect((await client.setClockMode('real')).mode).toBe('real')
    expect((await client.setClockMode('manual')).mode).toBe('manual')
  })

  it('sets the clock to an instant and runs until idle, answering what fired', async () => {
    const user = (await client.v1('POST', '/card-users/create', fullIdentity())).data.userCard
      .reference
    const start = await client.clock()
    const idle = await client.runUntilIdle()
    expect(idle.fired).toEqual([
      expect.objectContaining({ resource: 'card_user', reference: user, to: 'passed' }),
    ])
    expect(idle.now_ms - start.now_ms).toBe(3_000)
    const stopped = await client.runUntilIdle({ until: new Date(idle.now_ms + 60_000) })
    expect(stopped).toMatchObject({ fired: [], now_ms: idle.now_ms + 60_000 })
    const set = await client.setClock(new Date('2027-01-01T00:00:00Z'))
    expect(set).toMatchObject({ mode: 'manual', now: '2027-01-01T00:00:00.000Z' })
    const back = await errorOf(client.setClock('2026-01-01T00:00:00Z'))
    expect(back.status).toBe(422)
    expect(back.body).toMatchObject({ errors: { now: expect.any(Array) } })
    expectTypeOf(idle.fired[0].at).toEqualTypeOf<string>()
  })

  it('throws a 422 naming the field for a bad duration', async () => {
    const error = await errorOf(client.advanceClock('soon'))
    expect(error.status).toBe(422)
    expect(error.body).toMatchObject({ statusCode: 422, errors: { by: expect.any(Array) } })
    expect(error.message).toContain('POST /__sandbox/clock/advance answered 422')
  })

  it('reads and sets delays, and lists the jobs', async () => {
    expect((await client.delays()).card_issuing).toBe(5_000)
    expect((await client.setDelays({ card_issuing: '500ms' })).card_issuing).toBe(500)
    expect((await client.setDelays({})).card_issuing).toBe(5_000)
    const user = await widgetUser()
    await client.transition('card-users', user, 'passed')
    await client.v1('POST', '/cards/create', {
      card_user_reference: user,
      card_brand: 'visa',
      card_type: 'virtual',
    })
    expect(await client.jobs()).toEqual([
      expect.objectContaining({ resource: 'cards', action: 'issued', due_at: expect.any(String) }),
    ])
  })

  it('moves a resource, and throws a 409 with the allowed states for an illegal move', async () => {
    const user = await widgetUser()
    expect(await client.transition('card-users', user, 'passed')).toEqual({
      resource: 'card_user',
      reference: user,
      from: 'pending',
      to: 'passed',
    })
    const error = await errorOf(client.transition('card-users', user, 'pending'))
    expect(error.status).toBe(409)
    expect(error.body).toMatchObject({ statusCode: 409, from: 'passed', to: 'pending' })
    // the body is typed as the error shape: read without a cast
    const allowed: string[] | undefined = error.body.allowed
    expect(allowed).toEqual([]) // passed is final
    const message: string = error.body.message
    expect(message).toMatch(/passed/)
  })

  it('funds and withdraws from a card, and throws a 422 when it is short', async () => {
    const card = await issuedCard()
    const funded = await client.fundCard(card, 50_000)
    expect(funded.balance).toBe(50_000)
    expect(funded.transaction).toMatchObject({ kind: 'recharge', status: 'success' })
    expect((await client.withdrawCard(card, 1_000)).balance).toBe(49_000)
    expect((await errorOf(client.withdrawCard(card, 10 ** 9))).status).toBe(422)
    expect((await errorOf(client.fundCard(crypto.randomUUID(), 1))).status).toBe(404)
  })

  it('reads and tops up the business float', async () => {
    const before = await client.business()
    expect(before.float_balance).toBe(10_000_000)
    expect((await client.fundBusiness(5_000)).float_balance).toBe(10_005_000)
  })

  it('opens a dispute on a transaction', async () => {
    const card = await issuedCard()
    const { transaction } = await client.fundCard(card, 10_000)
    const dispute = await client.createDispute({
      transaction_slug: transaction.slug,
      reason: 'duplicate',
    })
    expect(dispute).toMatchObject({ transaction_slug: transaction.slug, status: 'open' })
    expect(await client.transition('disputes', dispute.reference, 'submitted')).toMatchObject({
      from: 'open',
      to: 'submitted',
    })
  })

  it('issues a wallet code', async () => {
    const code = await client.walletCode('+221770000002', 'orange-money-sn')
    expect(code).toMatchObject({ phone: '+221770000002', network: 'orange-money-sn' })
    expect(code.code).toMatch(/^\d{6}$/)
    expect(Date.parse(code.expires_at)).toBe(Date.parse('2026-01-01T00:15:00.000Z'))
  })

  it('sets the webhook, lists the deliveries and replays one', async () => {
    const receiver = await startReceiver()
    try {
      expect(await client.webhook()).toEqual({
        url: null,
        secret: 'client-test',
        url_source: 'none',
        secret_source: 'token',
      })
      expect(await client.setWebhook({ url: receiver.url, secret: 's3cret' })).toEqual({
        url: receiver.url,
        secret: 's3cret',
        url_source: 'tenant',
        secret_source: 'tenant',
      })
      await client.transition('card-users', await widgetUser(), 'passed')
      await until(() => receiver.requests.length === 1, 5_000, 'the webhook')
      await eventually(async () => (await client.webhooks()).data[0]?.status === 'delivered')
      const { data, meta } = await client.webhooks({ status: 'delivered', per_page: 5 })
      expect(meta).toMatchObject({ current_page: 1, per_page: 5, total: 1 })
      expect(data[0]).toMatchObject({ type: 'card_user_verification.successful' })
      expect(data[0].attempts[0]).toMatchObject({ attempt: 1, status_code: 200 })
      expect(await client.replayWebhook(data[0].id)).toEqual({ id: data[0].id, status: 'pending' })
      await until(() => receiver.requests.length === 2, 5_000, 'the replay')
      expect((await errorOf(client.replayWebhook('evt_nothing'))).status).toBe(404)
    } finally {
      await receiver.close()
    }
  })

  it('lists, adds and removes scenarios', async () => {
    expect(await client.scenarios()).toEqual([])
    const added = await client.addScenario({
      name: 'teapot',
      rules: [{ match: { method: 'GET', path: '/v1/cards' }, respond: { status: 418 } }],
    })
    expect(added).toEqual([expect.objectContaining({ name: 'teapot', rules: 1 })])
    const error = await errorOf(client.v1('GET', '/cards'))
    expect(error.status).toBe(418)
    expect((await errorOf(client.addScenario({ name: '' }))).status).toBe(422)
    expect(await client.removeScenario('teapot')).toEqual([])
    expect((await client.v1('GET', '/cards')).statusCode).toBe(200)
    expect((await errorOf(client.removeScenario('teapot'))).status).toBe(404)
  })

  it('takes, lists, restores and deletes snapshots', async () => {
    await client.v1('POST', '/card-users/create', { phone: '+221770000001' })
    const taken = await client.snapshot('one-user')
    expect(taken).toMatchObject({ name: 'one-user', rows: expect.any(Number) })
    await client.reset()
    expect((await client.v1('GET', '/card-users')).data[0].data).toEqual([])
    const restored = await client.restore('one-user')
    expect(restored.clock.now).toBe(taken.taken_at)
    expect((await client.v1('GET', '/card-users')).data[0].data).toHaveLength(1)
    expect((await client.snapshots()).map((s) => s.name)).toContain('one-user')
    expect(await client.deleteSnapshot('one-user')).toEqual(
      (await client.snapshots()).filter((s) => s.name !== 'one-user'),
    )
    expect((await errorOf(client.restore('one-user'))).status).toBe(404)
  })

  it('lists the fixtures', async () => {
    expect((await client.fixtures()).map((f) => f.name)).toEqual([
      'business-every-state',
      'verified-user-funded-card',
    ])
  })

  it('applies a fixture', async () => {
    const applied = await client.applyFixture({ name: 'verified-user-funded-card' })
    expect(applied.name).toBe('verified-user-funded-card')
    expect(applied.steps).toBeGreaterThan(0)
    const cards = await client.v1('GET', '/cards')
    expect(cards.data).toHaveLength(1)
  })

  it('reads and clears the request journal', async () => {
    await client.v1('GET', '/cards?page=1')
    await errorOf(client.v1('POST', '/cards/create', {}))
    const { data, meta } = await client.requests({ path: '/v1/cards*' })
    expect(meta).toMatchObject({ current_page: 1, total: 2 })
    expect(data.map((entry) => [entry.method, entry.path, entry.status])).toEqual([
      ['POST', '/v1/cards/create', 422],
      ['GET', '/v1/cards', 200],
    ])
    expect(data[0].request.body).toEqual({})
    const posts = await client.requests({ method: 'POST', path: '/v1/cards/create', status: 422 })
    expect(posts.data).toHaveLength(1)
    expect((await client.requests({ status: '4xx', per_page: 1 })).meta.per_page).toBe(1)
    await client.clearRequests()
    expect((await client.requests({ path: '/v1/*' })).data).toEqual([])
  })
})

describe('v1', () => {
  it('calls the API as the tenant and returns the whole body', async () => {
    const user = await widgetUser()
    const list = await client.v1<{ data: [{ data: { reference: string }[] }] }>(
      'GET',
      'card-users?per_page=5',
    )
    expect(list.data[0].data.map((u) => u.reference)).toEqual([user])
  })

  it('throws a 422 with the fields named', async () => {
    const error = await errorOf(client.v1('POST', '/cards/create', {}))
    expect(error.status).toBe(422)
    expect(error.body).toMatchObject({ errors: { card_user_reference: expect.any(Array) } })
    const messages: string[] | undefined = error.body.errors?.card_user_reference
    expect(messages).toEqual(['The card user reference field is required.'])
    expectTypeOf(error.body).toEqualTypeOf<SandboxErrorBody>()
    // @ts-expect-error no such key in the error shape
    void error.body.code
  })
})
