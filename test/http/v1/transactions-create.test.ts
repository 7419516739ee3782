/**
 * POST /v1/transactions/create (docs "topup or withdraw card"): recharge moves money
 * from the business float to the card, withdraw from the card to the float, transfer from card
 * to card; pending and held at creation, settled by the clock, refused when short.
 */
import { afterAll, describe, expect, it } from 'vitest'
import { startSandbox, type RunningSandbox } from '../../../src/server/sandbox.js'
import { UUID, newSandbox, sqlRows } from '../../helpers.js'

type Sandbox = ReturnType<typeof newSandbox>
const CREATE = '/v1/transactions/create'
const UNKNOWN_UUID = '3f2504e0-4f89-41d3-9a0c-0305e82c3301'

const floatOf = async (sb: Sandbox) =>
  (await sb.call('GET', '/v1/business/balances')).body.data.balance as number
const balanceOf = async (sb: Sandbox, card: string) =>
  (await sb.call('GET', `/v1/cards/${card}`)).body.data.card.balance as number
const settle = (sb: Sandbox) => sb.call('POST', '/__sandbox/clock/advance', { by: '5s' })

/** Every posting of every tenant adds up to zero, and no account but the world's is negative. */
async function assertMoneyConserved(sb: Sandbox) {
  const db = sb.deps.db
  expect(
    await sqlRows(
      db,
      'SELECT tenant_id, SUM(amount) AS t FROM postings GROUP BY tenant_id HAVING SUM(amount) != 0',
    ),
  ).toEqual([])
  expect(
    await sqlRows(db, "SELECT name, balance FROM accounts WHERE name != 'world' AND balance < 0"),
  ).toEqual([])
}

describe('POST /v1/transactions/create', () => {
  it('recharge: answers the docs shape, holds the float at once, credits the card when it settles', async () => {
    const sb = newSandbox()
    const { reference: card } = await sb.issuedCard()
    const float = await floatOf(sb)
    const res = await sb.call('POST', CREATE, {
      action: 'recharge',
      amount: 2000,
      card_reference: card,
      reference: 'topup-1',
    })
    expect(res.status, JSON.stringify(res.body)).toBe(200)
    expect(res.body).toEqual({
      message: 'OK',
      statusCode: 200,
      data: {
        transaction: {
          slug: expect.stringMatching(UUID),
          card_reference: card,
          reference: 'topup-1',
          status: 'pending',
          kind: 'recharge',
          merchant: false,
          amount: 2000,
          created_at: '2026-01-01T00:00:00.000000Z',
        },
      },
    })
    expect(await floatOf(sb)).toBe(float - 2000)
    expect(await balanceOf(sb, card)).toBe(0)
    await settle(sb)
    expect(await balanceOf(sb, card)).toBe(2000)
    expect(await floatOf(sb)).toBe(float - 2000)
    const listed = await sb.call('GET', `/v1/transactions?card_reference=${card}`)
    expect(listed.body.data.transaction[0]).toMatchObject({ kind: 'recharge', status: 'success' })
    await assertMoneyConserved(sb)
  })

  it('withdraw: holds the card balance, credits the float when it settles', async () => {
    const sb = newSandbox()
    const { reference: card } = await sb.fundedCard('visa', undefined, 5000)
    const float = await floatOf(sb)
    const res = await sb.call('POST', CREATE, {
      action: 'withdraw',
      amount: 3000,
      card_reference: card,
    })
    expect(res.body.data.transaction).toMatchObject({ kind: 'withdraw', status: 'pending' })
    expect(await balanceOf(sb, card)).toBe(2000)
    expect(await floatOf(sb)).toBe(float)
    await settle(sb)
    expect(await floatOf(sb)).toBe(float + 3000)
    expect(await balanceOf(sb, card)).toBe(2000)
    await assertMoneyConserved(sb)
  })

  it('transfer: moves money card to card when it settles, and gives it back when it fails', async () => {
    const sb = newSandbox()
    const { reference: from } = await sb.fundedCard('visa', undefined, 10_000)
    const { reference: to } = await sb.issuedCard('mastercard')
    const ok = await sb.call('POST', CREATE, {
      action: 'transfer',
      amount: 3000,
      card_reference: from,
      receiver_card_reference: to,
    })
    expect(ok.body.data.transaction).toMatchObject({ kind: 'transfer', card_reference: from })
    const failing = await sb.call('POST', CREATE, {
      action: 'transfer',
      amount: 4004, // the magic amount: fails after its delay
      card_reference: from,
      receiver_card_reference: to,
    })
    expect(failing.status).toBe(200)
    expect(await balanceOf(sb, from)).toBe(10_000 - 3000 - 4004)
    await settle(sb)
    expect(await balanceOf(sb, from)).toBe(7000)
    expect(await balanceOf(sb, to)).toBe(3000)
    const shown = await sb.call('GET', `/v1/transactions/${failing.body.data.transaction.slug}`)
    expect(shown.body.transaction.status).toBe('failed')
    await assertMoneyConserved(sb)
  })

  it("takes the older page's slug as the client reference", async () => {
    const sb = newSandbox()
    const { reference: card } = await sb.issuedCard()
    const res = await sb.call('POST', CREATE, {
      action: 'recharge',
      amount: 10,
      card_reference: card,
      slug: 'older-ref',
    })
    expect(res.body.data.transaction.reference).toBe('older-ref')
  })

  it('refuses what is short or malformed with a 422 naming the field, and loses nothing', async () => {
    const sb = newSandbox()
    const { reference: card } = await sb.fundedCard('visa', undefined, 1000)
    const short = await sb.call('POST', CREATE, {
      action: 'withdraw',
      amount: 1001,
      card_reference: card,
    })
    expect(short.status).toBe(422)
    expect(short.body.errors).toHaveProperty('amount')
    const float = await floatOf(sb)
    const floatShort = await sb.call('POST', CREATE, {
      action: 'recharge',
      amount: float + 1,
      card_reference: card,
    })
    expect(floatShort.status).toBe(422)
    expect(floatShort.body.errors).toHaveProperty('amount')
    const noReceiver = await sb.call('POST', CREATE, {
      action: 'transfer',
      amount: 1,
      card_reference: card,
    })
    expect(noReceiver.status).toBe(422)
    expect(noReceiver.body.errors).toHaveProperty('receiver_card_reference')
    const toItself = await sb.call('POST', CREATE, {
      action: 'transfer',
      amount: 1,
      card_reference: card,
      receiver_card_reference: card,
    })
    expect(toItself.status).toBe(422)
    const bad = await sb.call('POST', CREATE, { action: 'refund', amount: -1 })
    expect(bad.status).toBe(422)
    expect(Object.keys(bad.body.errors).sort()).toEqual(['action', 'amount', 'card_reference'])
    expect(await balanceOf(sb, card)).toBe(1000)
    expect(await floatOf(sb)).toBe(float)
    await assertMoneyConserved(sb)
  })

  it("answers 404 for an unknown card, another tenant's card, or another tenant's receiver", async () => {
    const sb = newSandbox()
    const { reference: card } = await sb.fundedCard('visa', undefined, 1000)
    const { reference: foreign } = await sb.issuedCard('visa', 'other-tenant')
    const unknown = await sb.call('POST', CREATE, {
      action: 'recharge',
      amount: 1,
      card_reference: UNKNOWN_UUID,
    })
    expect(unknown.status).toBe(404)
    const theirs = await sb.call('POST', CREATE, {
      action: 'recharge',
      amount: 1,
      card_reference: foreign,
    })
    expect(theirs.status).toBe(404)
    const receiver = await sb.call('POST', CREATE, {
      action: 'transfer',
      amount: 1,
      card_reference: card,
      receiver_card_reference: foreign,
    })
    expect(receiver.status).toBe(404)
    expect(receiver.body.errors).toHaveProperty('receiver_card_reference')
  })
})

describe('concurrent withdrawals over HTTP', () => {
  let server: RunningSandbox | undefined
  afterAll(() => server?.close())

  it('never overdraw: of twelve withdrawals of 3,000 from 10,000, exactly three are accepted', async () => {
    server = await startSandbox({ port: 0, clock: 'manual' })
    const headers = { Authorization: 'Bearer racer', 'Content-Type': 'application/json' }
    const call = async (method: string, path: string, body?: unknown) => {
      const res = await fetch(server!.url + path, {
        method,
        headers,
        body: body === undefined ? undefined : JSON.stringify(body),
      })
      return { status: res.status, body: (await res.json()) as any }
    }
    const user = await call('POST', '/v1/card-users/create', {
      first_name: 'Awa',
      last_name: 'Diop',
      address: 'Dakar',
      phone: '+221770000001',
      id_no: '1',
      selfie_image: 'https://x.test/s.jpg',
      id_image: 'https://x.test/i.jpg',
    })
    const userRef = user.body.data.userCard.reference
    await call('POST', `/__sandbox/card-users/${userRef}/transition`, { to: 'passed' })
    const created = await call('POST', '/v1/cards/create', {
      card_user_reference: userRef,
      card_brand: 'visa',
      card_type: 'virtual',
    })
    const card = created.body.data.card.reference
    await call('POST', `/__sandbox/cards/${card}/transition`, { to: 'issued' })
    await call('POST', `/__sandbox/cards/${card}/fund`, { amount: 10_000 })
    const answers = await Promise.all(
      Array.from({ length: 12 }, () =>
        call('POST', CREATE, { action: 'withdraw', amount: 3000, card_reference: card }),
      ),
    )
    expect(answers.filter((a) => a.status === 200)).toHaveLength(3)
    expect(answers.filter((a) => a.status === 422)).toHaveLength(9)
    const shown = await call('GET', `/v1/cards/${card}`)
    expect(shown.body.data.card.balance).toBe(1000)
  })
})
