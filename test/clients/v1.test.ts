/**
 * The typed /v1 methods of card-sandbox/client (`client.v1.cards.create(body)`, …) against a real
 * sandbox over HTTP: a whole client journey through them alone, each result read through its
 * declared type, and every /v1 route reached by one of them.
 */
import { afterAll, beforeAll, describe, expect, expectTypeOf, it } from 'vitest'
import {
  createSandboxClient,
  type CreatedCardUser,
  type FullDataCardUserBody,
  type SandboxClient,
  type WidgetCardUserBody,
} from '../../src/clients/client.js'
import { documentedRoutes } from '../../src/http/openapi.js'
import { startSandbox } from '../../src/server/sandbox.js'

type Running = Awaited<ReturnType<typeof startSandbox>>
let sandbox: Running
let client: SandboxClient

beforeAll(async () => {
  sandbox = await startSandbox({ port: 0, clock: 'manual', seed: 7 })
  client = createSandboxClient({ baseUrl: sandbox.url, token: 'typed-v1' })
})
afterAll(() => sandbox.close())

const identity = {
  phone: '+221770000001',
  first_name: 'Awa',
  last_name: 'Diop',
  address: 'Dakar',
  email: 'awa@example.com',
  id_no: '1234567890',
  selfie_image: 'https://img.example.com/s.jpg',
  id_image: 'https://img.example.com/i.jpg',
}

describe('client.v1, typed', () => {
  it('takes a card user, a card, money, payments, disburses, a dispute and a phone through every route', async () => {
    const { v1 } = client
    const created = await v1.cardUsers.create(identity)
    // the whole identity: answered under data, and typed so (no narrowing)
    const user: string = created.data.userCard.reference
    expect(
      (await v1.cardUsers.resubmit({ card_user_reference: user, phone: '+221770000002' })).message,
    ).toBe('User verification in progress')
    await client.transition('card-users', user, 'passed')
    expect((await v1.cardUsers.show(user)).data.cardUser.status).toBe('passed')
    expect((await v1.cardUsers.list()).data[0].data.map((u) => u.reference)).toEqual([user])

    const order = await v1.cards.create({
      card_user_reference: user,
      card_brand: 'visa',
      card_type: 'virtual',
    })
    expectTypeOf(order.data.card.card_brand).toEqualTypeOf<'Visa' | 'Mastercard' | 'Gim'>()
    const card = order.data.card.reference
    expect(order.data.card.status).toBe('issuing')
    await client.advanceClock('1m')
    expect((await v1.cards.show(card)).data.card.status).toBe('issued')
    expect((await v1.cards.freeze(card)).data.card.status).toBe('frozen')
    expect((await v1.cards.unfreeze(card)).data.card.status).toBe('issued')
    const linked = await v1.cards.link({ identifier: 4242, card_user_reference: user })
    expect(linked.data.card.identifier).toBe(4242)
    expect((await v1.cards.accessToken({ reference: card })).data.embedded_ui).toContain(
      '/card-reveal/',
    )
    const cards = await v1.cards.list({ per_page: 1 })
    expect(cards.meta).toMatchObject({ per_page: 1, total: 2 })

    await client.fundBusiness(100_000)
    const topUp = await v1.transactions.create({
      action: 'recharge',
      amount: 50_000,
      card_reference: card,
      reference: 'top-up',
    })
    expect(topUp.data.transaction.kind).toBe('recharge')
    await client.advanceClock('1m')
    const payout = await v1.transactions.cardToBank({
      amount: 1_000,
      card_reference: card,
      bank_id: 'SN01',
      bank_name: 'BICICI',
    })
    expect(payout.data.transaction.merchant).toBe('BICICI')
    await v1.transactions.cardToWallet({
      amount: 1_000,
      card_reference: card,
      phone: '+221770000009',
      network: 'wave-sn',
    })
    await v1.transactions.walletToCard({
      amount: 1_000,
      card_reference: card,
      phone: '+225070000009',
      network: 'mtn-ci',
    })
    expect((await v1.transactions.list({ card_reference: card })).data.transaction).toHaveLength(4)
    expect((await v1.transactions.show('top-up')).transaction.status).toBe('success')

    const customer = { full_name: 'Moussa Ba', phone: '+221770000008' }
    const payment = await v1.payments.create({ amount: 500, network: 'wave-sn', customer })
    const paymentRef = payment.data.payment.reference
    expect((await v1.payments.show(paymentRef)).data.reference).toBe(paymentRef)
    expect((await v1.payments.list()).meta.total).toBe(1)
    const disburse = await v1.disburses.create({ amount: 500, network: 'wave-sn', customer })
    const disburseRef = disburse.data.disburse.reference
    expect((await v1.disburses.show(disburseRef)).data.status).toBe('processing')
    expect((await v1.disburses.list()).meta.total).toBe(1)

    const opened = await v1.disputes.create({
      transaction_reference: 'top-up',
      reason: 'duplicate',
    })
    const dispute = opened.data[0].slug
    if (typeof dispute !== 'string') throw new Error('a created dispute names its slug')
    expect(
      (
        await v1.disputes.update(dispute, {
          transaction_reference: 'top-up',
          explanation: 'Twice.',
        })
      ).data[0].status,
    ).toBe('submitted')
    expect((await v1.disputes.show(dispute)).data.dispute.explanation).toBe('Twice.')
    expect((await v1.disputes.list()).meta.total).toBe(1)
    expect((await v1.business.balances()).data.balance).toBeGreaterThan(0)
    expect((await v1.business.operations()).data.length).toBeGreaterThan(0)
    const verified = await v1.phone.verify({ phone: '770000001', country_code: 'sn' })
    expect(verified.data).toEqual({ phone: '770000001', country_code: 'sn' })

    // every /v1 route was reached by one of the typed methods (a literal path before a pattern)
    const routes = documentedRoutes(sandbox.app as never)
      .filter((r) => r.path.startsWith('/v1/') && !r.path.startsWith('/v1/v1/'))
      .map((r) => ({ ...r, pattern: new RegExp(`^${r.path.replace(/:\w+/g, '[^/]+')}$`) }))
    const routeOf = (method: string, path: string) =>
      routes.find((r) => r.method === method && r.path === path) ??
      routes.find((r) => r.method === method && r.pattern.test(path))
    const journal = await client.requests({ per_page: 100 })
    const reached = new Set(
      journal.data.flatMap((entry) => {
        const route = routeOf(entry.method, entry.path)
        return route ? [`${route.method} ${route.path}`] : []
      }),
    )
    expect([...reached].sort()).toEqual(routes.map((r) => `${r.method} ${r.path}`).sort())
  })

  it('keeps the untyped call: any method and path, the whole body', async () => {
    const answer = await client.v1('GET', '/cards')
    expect(answer.statusCode).toBe(200)
  })

  it('types each card-user create by the flow its body picks, as the sandbox answers it', async () => {
    const { v1 } = client
    const full = await v1.cardUsers.create(identity)
    expectTypeOf(full).toEqualTypeOf<CreatedCardUser<'full_data'>>()
    expect(full.data.userCard.reference).toMatch(/^[0-9a-f-]{36}$/)
    expect(full).not.toHaveProperty('userCard')

    const widget = await v1.cardUsers.create({ phone: '+221770000003', email: 'w@example.com' })
    expectTypeOf(widget).toEqualTypeOf<CreatedCardUser<'widget'>>()
    const widgetUser: string = widget.userCard.reference
    expect(widget).not.toHaveProperty('data')
    // @ts-expect-error a widget user's answer has no data
    void widget.data

    // identity data in a resubmit moves the user to the full-data flow: under data
    const resubmitted = await v1.cardUsers.resubmit({
      card_user_reference: widgetUser,
      first_name: 'Awa',
    })
    expect(resubmitted.data.userCard.reference).toBe(widgetUser)
    // without, the answer keeps the user's flow, which the body does not say: the union
    const again = await v1.cardUsers.resubmit({ card_user_reference: widgetUser })
    expectTypeOf(again).toEqualTypeOf<CreatedCardUser>()
    // @ts-expect-error the union needs narrowing
    const unnarrowed = () => again.data.userCard
    void unnarrowed
    expect('data' in again ? again.data.userCard : again.userCard).toMatchObject({
      reference: widgetUser,
    })

    // a body whose type says neither flow gets the union too
    const loose: { phone: string; first_name?: string } = { phone: '+221770000004' }
    const looseAnswer = await v1.cardUsers.create(loose)
    expectTypeOf(looseAnswer).toEqualTypeOf<CreatedCardUser>()
    expect(looseAnswer).toHaveProperty('userCard')
    expectTypeOf<FullDataCardUserBody>().toHaveProperty('id_image').toEqualTypeOf<string>()
    // @ts-expect-error a widget body has no identity data beside the phone
    const widgetBody: WidgetCardUserBody = { phone: '+221770000005', first_name: 'Awa' }
    void widgetBody
  })

  it('types inputs from the routes’ own schemas', () => {
    expectTypeOf(client.v1.cards.create).parameter(0).toEqualTypeOf<{
      card_user_reference: string
      card_brand: 'visa' | 'mastercard' | 'gim'
      card_type: 'virtual' | 'physical'
    }>()
    type Bank = Parameters<typeof client.v1.transactions.cardToBank>[0]['bank_name']
    // @ts-expect-error a bank the docs' card-to-bank page does not list
    const unlisted: Bank = 'CBAO'
    void unlisted
    expectTypeOf(client.v1.phone.verify).parameter(0).toEqualTypeOf<{
      phone: string
      country_code: 'sn' | 'ci' | 'tg' | 'bj' | 'bf'
    }>()
  })
})
