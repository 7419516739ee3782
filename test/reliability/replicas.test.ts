/**
 * What a team sandbox promises across the processes that serve it (issue 20), run over real
 * processes, sockets and a real webhook receiver: writes seen from every process, each lifecycle
 * move and each webhook made once, and no overdraft under concurrent debits. On SQLite the
 * processes are one (its file lock lets one process write); the same tests are the
 * multi-replica ones once the sandbox runs on PostgreSQL.
 */
import { afterEach, describe, expect, it } from 'vitest'
import { sign } from '../../src/webhooks/sign.js'
import { fullIdentity } from '../helpers.js'
import { startReceiver, until } from '../webhooks/receiver.js'
import { inParallel, REPLICAS_ON_SQLITE, roundRobin, startReplicas } from './replicas.js'

const TOKEN = 'team-sandbox'
const cleanups: (() => Promise<void>)[] = []
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup()
})

async function sandboxOf(flags: string[]) {
  const replicas = await startReplicas(REPLICAS_ON_SQLITE, ['--clock', 'manual', ...flags])
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

describe(`one database, its processes (SQLite: ${REPLICAS_ON_SQLITE})`, () => {
  it('1,000 cards created over the processes are issued when read from any of them, each announced by one signed webhook', async () => {
    const CARDS = 1_000
    const receiver = await startReceiver()
    cleanups.push(receiver.close)
    const { replicas, call } = await sandboxOf(['--webhook-url', receiver.url])
    const cardUser = await passedUser(call)

    const created = await inParallel(CARDS, 25, () =>
      call('POST', '/v1/cards/create', {
        card_user_reference: cardUser,
        card_brand: 'visa',
        card_type: 'virtual',
      }),
    )
    expect(created.filter((a) => a.status !== 200)).toEqual([])
    const references = new Set(created.map((a) => a.body.data.card.reference as string))
    expect(references.size).toBe(CARDS)

    // the clock moved on one process: every card is issued on all of them
    expect((await call('POST', '/__sandbox/clock/advance', { by: '10s' })).status).toBe(200)
    for (const url of replicas.urls) {
      const read = roundRobin([url], TOKEN)
      const statuses = new Map<string, string>()
      for (let page = 1; page <= CARDS / 100; page++) {
        const answer = await read('GET', `/v1/cards?page=${page}&per_page=100`)
        for (const card of answer.body.data) statuses.set(card.reference, card.status)
      }
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
})
