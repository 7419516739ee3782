/**
 * What a team sandbox promises across the processes that serve it, run over real
 * processes, sockets and a real webhook receiver: writes seen from every process, each lifecycle
 * move and each webhook made once, no overdraft under concurrent debits, and a replica killed
 * under load losing nothing. Three replicas on PostgreSQL with CARD_SANDBOX_TEST_PG (CI sets it);
 * without it, one process on SQLite (its file lock lets one process write).
 */
import pg from 'pg'
import { afterEach, describe, expect, it } from 'vitest'
import { sign } from '../../src/webhooks/sign.js'
import { fullIdentity } from '../helpers.js'
import { TEST_PG } from '../pg.js'
import { startReceiver, until } from '../webhooks/receiver.js'
import { inParallel, killed, REPLICAS, roundRobin, startReplicas, STORE } from './replicas.js'

const TOKEN = 'team-sandbox'
/** An attempt's timeout (5 s) and the lease's margin past it (10 s): webhooks/delivery.ts. */
const WEBHOOK_LEASE_MS = 15_000
const WEBHOOK_TIMEOUT_MS = 5_000
const cleanups: (() => Promise<void>)[] = []
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup()
})

async function sandboxOf(flags: string[]) {
  const replicas = await startReplicas(() => ['--clock', 'manual', ...flags])
  cleanups.push(replicas.stop)
  return { replicas, call: roundRobin(replicas.urls, TOKEN) }
}

async function passedUser(call: ReturnType<typeof roundRobin>) {
  const user = await call('POST', '/v1/card-users/create', fullIdentity())
  const reference = user.body.data.userCard.reference as string
  expect(
    (await call('POST', `/__sandbox/card-users/${reference}/transition`, { to: 'passed' })).status,
  ).toBe(200)
  return reference
}

/** `count` virtual cards of the card user, made over the processes 25 at a time; their references. */
async function createCards(
  call: ReturnType<typeof roundRobin>,
  cardUser: string,
  count: number,
): Promise<string[]> {
  const created = await inParallel(count, 25, () =>
    call('POST', '/v1/cards/create', {
      card_user_reference: cardUser,
      card_brand: 'visa',
      card_type: 'virtual',
    }),
  )
  expect(created.filter((a) => a.status !== 200)).toEqual([])
  return created.map((a) => a.body.data.card.reference as string)
}

/** Every card of the tenant as one replica lists it: reference → status. */
async function cardStatuses(url: string, count: number): Promise<Map<string, string>> {
  const read = roundRobin([url], TOKEN)
  const statuses = new Map<string, string>()
  for (let page = 1; page <= Math.ceil(count / 100); page++) {
    const answer = await read('GET', `/v1/cards?page=${page}&per_page=100`)
    for (const card of answer.body.data) statuses.set(card.reference, card.status)
  }
  return statuses
}

describe(`one database, its processes (${STORE})`, () => {
  it('1,000 cards created over the processes are issued when read from any of them, each announced by one signed webhook', async () => {
    const CARDS = 1_000
    const receiver = await startReceiver()
    cleanups.push(receiver.close)
    const { replicas, call } = await sandboxOf(['--webhook-url', receiver.url])
    const cardUser = await passedUser(call)

    const references = new Set(await createCards(call, cardUser, CARDS))
    expect(references.size).toBe(CARDS)

    // the clock moved on one process: every card is issued on all of them
    expect((await call('POST', '/__sandbox/clock/advance', { by: '10s' })).status).toBe(200)
    for (const url of replicas.urls) {
      const statuses = await cardStatuses(url, CARDS)
      expect(statuses.size).toBe(CARDS)
      expect([...statuses.keys()].every((r) => references.has(r))).toBe(true)
      expect([...statuses.values()].every((s) => s === 'issued')).toBe(true)
    }

    const cardEvents = () =>
      receiver.requests.filter((r) => r.body.includes('"event":"card_creation.'))
    await until(() => cardEvents().length >= CARDS, 30_000, `${CARDS} card_creation webhooks`)
    // whatever would come twice has had time to
    await new Promise((resolve) => setTimeout(resolve, 500))
    const events = cardEvents()
    expect(events).toHaveLength(CARDS)
    const ids = new Set(events.map((r) => r.headers['x-alal-event-id']))
    expect(ids.size).toBe(CARDS)
    const announced = new Set(events.map((r) => JSON.parse(r.body).data.reference as string))
    expect(announced).toEqual(references)
    for (const { headers, body } of events) {
      expect(JSON.parse(body).event).toBe('card_creation.successful')
      expect(headers['x-alal-signature']).toBe(sign(body, TOKEN))
    }
  }, 60_000)

  it('300 concurrent debits of one funded card over the processes never overdraw it', async () => {
    const FUNDING = 100_000
    const DEBIT = 700
    const { call } = await sandboxOf([])
    const cardUser = await passedUser(call)
    const created = await call('POST', '/v1/cards/create', {
      card_user_reference: cardUser,
      card_brand: 'visa',
      card_type: 'virtual',
    })
    const card = created.body.data.card.reference as string
    await call('POST', `/__sandbox/cards/${card}/transition`, { to: 'issued' })
    expect((await call('POST', `/__sandbox/cards/${card}/fund`, { amount: FUNDING })).status).toBe(
      200,
    )

    const answers = await inParallel(300, 300, () =>
      call('POST', '/v1/transactions/create', {
        action: 'withdraw',
        amount: DEBIT,
        card_reference: card,
      }),
    )
    const accepted = answers.filter((a) => a.status === 200).length
    expect(answers.filter((a) => a.status !== 200 && a.status !== 422)).toEqual([])
    // every debit that fitted was taken, none that did not
    expect(accepted).toBe(Math.floor(FUNDING / DEBIT))
    await call('POST', '/__sandbox/clock/advance', { by: '10s' })
    const shown = await call('GET', `/v1/cards/${card}`)
    expect(shown.body.data.card.balance).toBe(FUNDING - accepted * DEBIT)
  }, 60_000)

  it('shares the control plane: delays, webhook endpoint, scenarios, snapshots and resets made on one process hold on the others', async () => {
    const replicas = await startReplicas(() => ['--clock', 'manual'])
    cleanups.push(replicas.stop)
    const on = (i: number) => roundRobin([replicas.urls[i % replicas.urls.length]], TOKEN)

    expect((await on(0)('PUT', '/__sandbox/delays', { card_issuing: '42s' })).status).toBe(200)
    expect((await on(1)('GET', '/__sandbox/delays')).body.data.card_issuing).toBe(42_000)
    const hook = { url: 'http://127.0.0.1:9/hooks', secret: 'shared-secret' }
    expect((await on(1)('PUT', '/__sandbox/webhook', hook)).status).toBe(200)
    expect((await on(2)('GET', '/__sandbox/webhook')).body.data).toEqual({
      ...hook,
      url_source: 'tenant',
      secret_source: 'tenant',
    })

    // a scenario posted on one process answers on the others
    const scenario = {
      name: 'no-card-users',
      rules: [
        { match: { method: 'POST', path: '/v1/card-users/create' }, respond: { status: 503 } },
      ],
    }
    expect((await on(2)('POST', '/__sandbox/scenarios', scenario)).status).toBe(200)
    expect((await on(0)('POST', '/v1/card-users/create', fullIdentity())).status).toBe(503)
    expect((await on(1)('DELETE', '/__sandbox/scenarios/no-card-users')).status).toBe(200)
    const user = await on(2)('POST', '/v1/card-users/create', fullIdentity())
    expect(user.status).toBe(200)
    const reference = user.body.data.userCard.reference as string

    // a snapshot taken on one, a reset on another, the restore on a third
    expect((await on(0)('POST', '/__sandbox/snapshots', { name: 'one-user' })).status).toBe(200)
    expect((await on(1)('POST', '/__sandbox/reset')).status).toBe(200)
    expect((await on(2)('GET', `/v1/card-users/${reference}`)).status).toBe(404)
    expect((await on(0)('GET', '/__sandbox/delays')).body.data.card_issuing).not.toBe(42_000)
    expect((await on(2)('POST', '/__sandbox/snapshots/one-user/restore')).status).toBe(200)
    for (let i = 0; i < REPLICAS; i++) {
      expect((await on(i)('GET', `/v1/card-users/${reference}`)).status).toBe(200)
      expect((await on(i)('GET', '/__sandbox/delays')).body.data.card_issuing).toBe(42_000)
    }
  })

  it('seeds a new or reset tenant with the start-up fixture once, on whichever process its next request reaches', async () => {
    const { replicas } = await sandboxOf(['--fixtures', 'verified-user-funded-card'])
    const on = (i: number) => roundRobin([replicas.urls[i % replicas.urls.length]], TOKEN)
    const usersOn = async (i: number) =>
      (await on(i)('GET', '/v1/card-users')).body.data[0].data as unknown[]
    // the first requests of the token, at once on every process: one seeding
    await inParallel(30, 30, (i) => on(i)('GET', '/v1/card-users'))
    for (let i = 0; i < REPLICAS; i++) expect(await usersOn(i)).toHaveLength(1)

    // reset on one process, the next request on another: seeded there, once
    expect((await on(0)('POST', '/__sandbox/reset')).status).toBe(200)
    expect(await usersOn(1)).toHaveLength(1)
    await inParallel(30, 30, (i) => on(i)('GET', '/v1/cards'))
    for (let i = 0; i < REPLICAS; i++) expect(await usersOn(i)).toHaveLength(1)
  })

  it('takes one of 60 payments sent at once over the processes with one partner reference', async () => {
    const { call } = await sandboxOf([])
    const answers = await inParallel(60, 60, () =>
      call('POST', '/v1/payments/create', {
        amount: 5000,
        partner_reference: 'order-1001',
        network: 'wave-sn',
        customer: { full_name: 'Awa Diop', email: 'awa.diop@example.com', phone: '+221770000001' },
      }),
    )
    expect(answers.map((a) => a.status).filter((status) => status !== 422)).toEqual([200])
    expect(answers.filter((a) => a.status !== 200).map((a) => Object.keys(a.body.errors))).toEqual(
      Array(59).fill(['partner_reference']),
    )
  })

  it('on real clocks, every replica’s tick runs due jobs, and each card is issued and announced once', async () => {
    const CARDS = 300
    const receiver = await startReceiver()
    cleanups.push(receiver.close)
    const replicas = await startReplicas(() => ['--webhook-url', receiver.url])
    cleanups.push(replicas.stop)
    const call = roundRobin(replicas.urls, TOKEN)
    const cardUser = await passedUser(call)
    expect((await call('PUT', '/__sandbox/delays', { card_issuing: '300ms' })).status).toBe(200)

    const references = new Set(await createCards(call, cardUser, CARDS))

    const announced = () =>
      receiver.requests.filter((r) => r.body.includes('"event":"card_creation.'))
    await until(() => announced().length >= CARDS, 30_000, `${CARDS} card_creation webhooks`)
    await new Promise((resolve) => setTimeout(resolve, 500))
    expect(announced()).toHaveLength(CARDS)
    expect(new Set(announced().map((r) => JSON.parse(r.body).data.reference))).toEqual(references)
    for (const url of replicas.urls) {
      const statuses = await cardStatuses(url, CARDS)
      expect([...statuses.keys()].sort()).toEqual([...references].sort())
      expect([...statuses.values()].every((s) => s === 'issued')).toBe(true)
    }
  }, 60_000)

  it.skipIf(REPLICAS < 2)(
    'a replica killed under load loses no acknowledged write, the others keep answering, and the webhooks it had claimed are sent once its lease runs out',
    async () => {
      const hang = await startReceiver(['hang'])
      const ok = await startReceiver()
      cleanups.push(hang.close, ok.close)
      // replica 0 sends to a receiver that never answers: what it claims, it never finishes
      const replicas = await startReplicas((i) => [
        '--clock',
        'manual',
        '--webhook-url',
        i === 0 ? hang.url : ok.url,
      ])
      cleanups.push(replicas.stop)
      const call = roundRobin(replicas.urls, TOKEN)
      const cardUser = await passedUser(call)
      const issuedBefore = await createCards(call, cardUser, 300)
      // 300 card_creation events; replica 0 starts sending some at once (it served the advance)
      const first = roundRobin([replicas.urls[0]], TOKEN)
      expect((await first('POST', '/__sandbox/clock/advance', { by: '10s' })).status).toBe(200)
      const survivor = roundRobin([replicas.urls[1]], TOKEN)

      let loading = true
      const answers: { replica: number; status: number; reference?: string }[] = []
      const load = Promise.all(
        Array.from({ length: 10 }, async (_, worker) => {
          for (let i = worker; loading; i += 10) {
            const replica = i % REPLICAS
            const answer = await roundRobin([replicas.urls[replica]], TOKEN)(
              'POST',
              '/v1/cards/create',
              { card_user_reference: cardUser, card_brand: 'visa', card_type: 'virtual' },
            ).catch(() => ({ status: 0, body: null }))
            answers.push({
              replica,
              status: answer.status,
              reference: answer.body?.data?.card?.reference,
            })
          }
        }),
      )
      await until(() => hang.requests.length > 0, 30_000, 'replica 0 to claim an event')
      await new Promise((resolve) => setTimeout(resolve, 200))
      const killedAt = Date.now()
      await killed(replicas.children[0])
      await new Promise((resolve) => setTimeout(resolve, 1_000))
      loading = false
      await load

      // the survivors answered every call; each write acknowledged by anyone is there
      expect(answers.filter((a) => a.replica !== 0 && a.status !== 200)).toEqual([])
      const acknowledged = [
        ...issuedBefore,
        ...answers.filter((a) => a.status === 200).map((a) => a.reference!),
      ]
      for (const reference of acknowledged)
        expect((await survivor('GET', `/v1/cards/${reference}`)).status).toBe(200)

      // the cards made under load are issued too; every card is announced once, to `ok`
      expect((await survivor('POST', '/__sandbox/clock/advance', { by: '10s' })).status).toBe(200)
      const announced = () => ok.requests.filter((r) => r.body.includes('"event":"card_creation.'))
      await until(
        () => announced().length >= acknowledged.length,
        45_000,
        `${acknowledged.length} card_creation webhooks`,
      )
      await new Promise((resolve) => setTimeout(resolve, 500))
      const ids = announced().map((r) => r.headers['x-alal-event-id'] as string)
      expect(new Set(ids).size).toBe(ids.length)
      // each acknowledged card, and at most the cards replica 0 made but could not answer for
      const cards = new Set(announced().map((r) => JSON.parse(r.body).data.reference as string))
      expect(acknowledged.filter((reference) => !cards.has(reference))).toEqual([])
      const unanswered = answers.filter((a) => a.status === 0).length
      expect(cards.size - acknowledged.length).toBeLessThanOrEqual(unanswered)
      for (const { headers, body } of announced())
        expect(headers['x-alal-signature']).toBe(sign(body, TOKEN))
      // what replica 0 still held when it died came after its lease (attempt timeout + margin), not
      // before; what it had already given up on (its attempt timed out while it lived: a starved test
      // process can kill late) came after that timeout
      const claimedAt = new Map(hang.requests.map((r) => [r.headers['x-alal-event-id'], r.at]))
      const retaken = ok.requests.filter((r) => claimedAt.has(r.headers['x-alal-event-id']))
      expect(retaken).toHaveLength(claimedAt.size)
      const heldAtDeath = retaken.filter(
        (r) => claimedAt.get(r.headers['x-alal-event-id'])! > killedAt - WEBHOOK_TIMEOUT_MS + 1_000,
      )
      expect(heldAtDeath.length).toBeGreaterThan(0)
      for (const r of retaken) {
        const waited = r.at - claimedAt.get(r.headers['x-alal-event-id'])!
        const bound = heldAtDeath.includes(r) ? WEBHOOK_LEASE_MS : WEBHOOK_TIMEOUT_MS
        expect(waited).toBeGreaterThanOrEqual(bound - 1_000)
      }
    },
    120_000,
  )

  it.skipIf(REPLICAS < 2)(
    'a replica stalled while it runs due jobs holds them until its lease runs out; then another runs each once',
    async () => {
      const CARDS = 1_500
      const LEASE_MS = 3_000
      const receiver = await startReceiver()
      cleanups.push(receiver.close)
      // the lease is PostgreSQL's idle_in_transaction_session_timeout (30 s unless the URL says)
      const replicas = await startReplicas(
        () => ['--clock', 'manual', '--webhook-url', receiver.url],
        (i) => ({
          application_name: `replica-${i}`,
          idle_in_transaction_session_timeout: String(LEASE_MS),
        }),
      )
      cleanups.push(replicas.stop)
      const on = (i: number) => roundRobin([replicas.urls[i]], TOKEN)
      const call = roundRobin(replicas.urls, TOKEN)
      await createCards(call, await passedUser(call), CARDS)

      // replica 0 runs the due jobs (an advance), and is stopped while it holds a batch of them
      const admin = new pg.Client({ connectionString: TEST_PG })
      await admin.connect()
      cleanups.push(() => admin.end())
      const holdsJobs = async () =>
        (
          await admin.query(
            `SELECT 1 FROM pg_locks l JOIN pg_stat_activity a ON a.pid = l.pid
             WHERE a.application_name = 'replica-0' AND l.relation = $1::regclass
               AND l.mode IN ('RowShareLock', 'RowExclusiveLock')`,
            [`${replicas.schema}.jobs`],
          )
        ).rowCount! > 0
      void on(0)('POST', '/__sandbox/clock/advance', { by: '10s' }).catch(() => {})
      let stopped = false
      for (let tries = 0; !stopped && tries < 2_000; tries++) {
        if (!(await holdsJobs())) continue
        replicas.children[0].kill('SIGSTOP')
        if (await holdsJobs()) stopped = true
        else replicas.children[0].kill('SIGCONT')
      }
      expect(stopped).toBe(true)
      const stoppedAt = Date.now()

      // another replica's run of what is due waits for the claim, then runs it
      expect((await on(1)('POST', '/__sandbox/clock/run-due', {})).status).toBe(200)
      expect(Date.now() - stoppedAt).toBeGreaterThanOrEqual(LEASE_MS - 500)
      await killed(replicas.children[0])
      const statuses = await cardStatuses(replicas.urls[2], CARDS)
      expect([...statuses.values()].filter((s) => s !== 'issued')).toEqual([])

      const announced = () =>
        receiver.requests.filter((r) => r.body.includes('"event":"card_creation.'))
      await until(() => announced().length >= CARDS, 45_000, `${CARDS} card_creation webhooks`)
      await new Promise((resolve) => setTimeout(resolve, 500))
      const references = announced().map((r) => JSON.parse(r.body).data.reference as string)
      expect(references).toHaveLength(CARDS)
      expect(new Set(references).size).toBe(CARDS)
    },
    120_000,
  )
})
