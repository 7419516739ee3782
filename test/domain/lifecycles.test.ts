/**
 * Every lifecycle of PRODUCT §5 driven through the manual clock and the control plane: what
 * moves by itself after its default delay, what waits, each transition and each refusal.
 */
import { describe, expect, it } from 'vitest'
import { sweepRetiredTenants } from '../../src/store/retired-tenants.js'
import { fullIdentity, newSandbox } from '../helpers.js'

type Sandbox = ReturnType<typeof newSandbox>

const advance = (s: Sandbox, by: string | number) =>
  s.call('POST', '/__sandbox/clock/advance', { by })
const move = (s: Sandbox, resource: string, ref: string, to: string) =>
  s.call('POST', `/__sandbox/${resource}/${ref}/transition`, { to })

async function userStatus(s: Sandbox, reference: string) {
  const list = await s.call('GET', '/v1/card-users?per_page=100')
  return list.body.data[0].data.find((u: { reference: string }) => u.reference === reference)
}
async function card(s: Sandbox, reference: string) {
  const list = await s.call('GET', '/v1/cards?per_page=100')
  return list.body.data.find((c: { reference: string }) => c.reference === reference)
}
async function transaction(s: Sandbox, slug: string) {
  const list = await s.call('GET', '/v1/transactions?per_page=100')
  return list.body.data.transaction.find((t: { slug: string }) => t.slug === slug)
}
const floatBalance = async (s: Sandbox) =>
  (await s.call('GET', '/__sandbox/business')).body.data.float_balance

describe('card user verification', () => {
  it('passes a full-data user after 3 s of sandbox time, not before', async () => {
    const s = newSandbox()
    const ref = (await s.call('POST', '/v1/card-users/create', fullIdentity())).body.data.userCard
      .reference
    await advance(s, 2999)
    expect((await userStatus(s, ref)).status).toBe('pending')
    const advanced = await advance(s, 1)
    expect(advanced.body.data.transitions_run).toBe(1)
    expect((await userStatus(s, ref)).status).toBe('passed')
  })

  it('keeps a widget user pending however far the clock moves, until the control plane passes it', async () => {
    const s = newSandbox()
    const ref = (await s.call('POST', '/v1/card-users/create', { phone: '+221770000000' })).body
      .userCard.reference
    await advance(s, '30d')
    expect((await userStatus(s, ref)).status).toBe('pending')
    const passed = await move(s, 'card-users', ref, 'passed')
    expect(passed.status, JSON.stringify(passed.body)).toBe(200)
    expect(passed.body.data).toEqual({
      resource: 'card_user',
      reference: ref,
      from: 'pending',
      to: 'passed',
    })
    // PRODUCT §10: a widget user passed without identity data gets generated identity
    const user = await userStatus(s, ref)
    for (const field of ['first_name', 'last_name', 'address', 'id_no', 'email']) {
      expect(typeof user[field], field).toBe('string')
    }
  })

  it('reopens a failed user on resubmit and verifies the new data after the delay', async () => {
    const s = newSandbox()
    const ref = (await s.call('POST', '/v1/card-users/create', fullIdentity())).body.data.userCard
      .reference
    expect((await move(s, 'card-users', ref, 'failed')).status).toBe(200)
    await advance(s, '1m')
    expect((await userStatus(s, ref)).status).toBe('failed')
    await s.call('POST', '/v1/card-users/resubmit', { card_user_reference: ref, id_no: '999' })
    expect((await userStatus(s, ref)).status).toBe('pending')
    await advance(s, '3s')
    expect((await userStatus(s, ref)).status).toBe('passed')
  })

  it('refuses passed → failed and failed → passed with 409 and the allowed states', async () => {
    const s = newSandbox()
    const ref = (await s.call('POST', '/v1/card-users/create', fullIdentity())).body.data.userCard
      .reference
    await advance(s, '3s')
    const refused = await move(s, 'card-users', ref, 'failed')
    expect(refused.status).toBe(409)
    expect(refused.body).toEqual({
      message: 'A card user cannot move from passed to failed.',
      statusCode: 409,
      from: 'passed',
      to: 'failed',
      allowed: [],
    })
    const other = (await s.call('POST', '/v1/card-users/create', { phone: '+221770000000' })).body
      .userCard.reference
    await move(s, 'card-users', other, 'failed')
    const back = await move(s, 'card-users', other, 'passed')
    expect(back.status).toBe(409)
    expect(back.body.allowed).toEqual(['pending'])
  })
})

describe('card issuing', () => {
  it('issues a created card after 5 s with its number, cvv2 and expiry', async () => {
    const s = newSandbox()
    const user = await s.verifiedUser()
    const created = await s.call('POST', '/v1/cards/create', {
      card_user_reference: user,
      card_brand: 'mastercard',
      card_type: 'physical',
    })
    const ref = created.body.data.card.reference
    await advance(s, 4999)
    expect(await card(s, ref)).toMatchObject({ status: 'issuing', last_four: null })
    await advance(s, 1)
    expect((await card(s, ref)).status).toBe('issued')
    const frozen = await s.call('POST', '/v1/cards/freeze', { reference: ref })
    expect(frozen.body.data.card).toMatchObject({
      card_number: expect.stringMatching(/^5[1-5]\d{14}$/),
      cvv2: expect.stringMatching(/^\d{3}$/),
      expiry: '2029-01',
      status: 'frozen',
    })
  })

  it('fills a linked card’s details after 3 s, its status issued throughout', async () => {
    const s = newSandbox()
    const user = await s.verifiedUser()
    const linked = await s.call('POST', '/v1/cards/link', {
      identifier: 4242,
      card_user_reference: user,
    })
    expect(linked.body.data.card).toMatchObject({
      status: 'issued',
      card_number: null,
      cvv2: null,
      expiry: null,
    })
    const ref = linked.body.data.card.reference
    await advance(s, '3s')
    expect(await card(s, ref)).toMatchObject({
      status: 'issued',
      last_four: expect.stringMatching(/^\d{4}$/),
    })
  })

  it('lets the control plane fail an issuing card, and then refuses to issue it (409)', async () => {
    const s = newSandbox()
    const user = await s.verifiedUser()
    const ref = (
      await s.call('POST', '/v1/cards/create', {
        card_user_reference: user,
        card_brand: 'gim',
        card_type: 'virtual',
      })
    ).body.data.card.reference
    expect((await move(s, 'cards', ref, 'failed')).status).toBe(200)
    await advance(s, '1m') // the scheduled issuing finds nothing legal to do
    expect((await card(s, ref)).status).toBe('failed')
    const issue = await move(s, 'cards', ref, 'issued')
    expect(issue.status).toBe(409)
    expect(issue.body.allowed).toEqual([])
  })

  it('cancels the pending issuing of a card moved by hand, and of no other card', async () => {
    const s = newSandbox()
    const user = await s.verifiedUser()
    const create = async () =>
      (
        await s.call('POST', '/v1/cards/create', {
          card_user_reference: user,
          card_brand: 'visa',
          card_type: 'virtual',
        })
      ).body.data.card.reference as string
    const [first, moved, last] = [await create(), await create(), await create()]
    const pending = async () =>
      (await s.call('GET', '/__sandbox/jobs')).body.data.map((j: any) => j.reference)
    expect(await pending()).toEqual([first, moved, last])
    // issued, then frozen: an issuing job left behind would unfreeze it (frozen → issued)
    expect((await move(s, 'cards', moved, 'issued')).status).toBe(200)
    expect(await pending()).toEqual([first, last])
    expect((await move(s, 'cards', moved, 'frozen')).status).toBe(200)
    await advance(s, '1m')
    expect((await card(s, moved)).status).toBe('frozen')
    expect((await card(s, first)).status).toBe('issued')
  })

  it('blocks transfers while frozen and allows them again once unfrozen', async () => {
    const s = newSandbox()
    const { reference } = await s.fundedCard()
    await s.call('POST', '/v1/cards/freeze', { reference })
    const body = {
      amount: 100,
      card_reference: reference,
      phone: '+221770000000',
      network: 'wave-sn',
    }
    const blocked = await s.call('POST', '/v1/transactions/create/card-to-wallet', body)
    expect(blocked.status).toBe(422)
    expect(blocked.body.errors).toEqual({ card_reference: ['The card is frozen.'] })
    await s.call('POST', '/v1/cards/unfreeze', { reference })
    expect((await s.call('POST', '/v1/transactions/create/card-to-wallet', body)).status).toBe(200)
  })
})

describe('transactions and the card balance', () => {
  it('holds a card-to-bank amount at creation and keeps it out when it settles after 5 s', async () => {
    const s = newSandbox()
    const { reference } = await s.issuedCard()
    await s.call('POST', `/__sandbox/cards/${reference}/fund`, { amount: 10_000 })
    const created = await s.call('POST', '/v1/transactions/create/card-to-bank', {
      amount: 4_000,
      card_reference: reference,
      bank_id: 'SN01',
      bank_name: 'BICICI',
    })
    expect((await card(s, reference)).balance).toBe(6_000)
    await advance(s, '5s')
    expect((await transaction(s, created.body.data.transaction.slug)).status).toBe('success')
    expect((await card(s, reference)).balance).toBe(6_000)
  })

  it('releases the hold when a transfer fails', async () => {
    const s = newSandbox()
    const { reference } = await s.issuedCard()
    await s.call('POST', `/__sandbox/cards/${reference}/fund`, { amount: 10_000 })
    const created = await s.call('POST', '/v1/transactions/create/card-to-wallet', {
      amount: 4_000,
      card_reference: reference,
      phone: '+221770000000',
      network: 'mtn-ci',
    })
    const slug = created.body.data.transaction.slug
    expect((await move(s, 'transactions', slug, 'failed')).status).toBe(200)
    expect((await card(s, reference)).balance).toBe(10_000)
    await advance(s, '5s') // the scheduled settlement is dropped
    expect((await transaction(s, slug)).status).toBe('failed')
    expect((await move(s, 'transactions', slug, 'success')).status).toBe(409)
  })

  it('refuses a transfer larger than the balance with 422 naming amount, and creates nothing', async () => {
    const s = newSandbox()
    const { reference } = await s.issuedCard()
    await s.call('POST', `/__sandbox/cards/${reference}/fund`, { amount: 1_000 })
    const refused = await s.call('POST', '/v1/transactions/create/card-to-bank', {
      amount: 1_001,
      card_reference: reference,
      bank_id: 'SN01',
      bank_name: 'BICICI',
    })
    expect(refused.status).toBe(422)
    expect(refused.body.errors).toEqual({
      amount: ['Insufficient balance: 1000 available, 1001 needed.'],
    })
    const list = await s.call('GET', `/v1/transactions?card_reference=${reference}`)
    expect(list.body.data.transaction.map((t: { kind: string }) => t.kind)).toEqual(['recharge'])
  })

  it('credits a wallet-to-card amount only when it succeeds', async () => {
    const s = newSandbox()
    const { reference } = await s.issuedCard()
    await s.call('POST', '/v1/transactions/create/wallet-to-card', {
      amount: 2_500,
      card_reference: reference,
      phone: '+221770000000',
      network: 'wave-ci',
    })
    expect((await card(s, reference)).balance).toBe(0)
    await advance(s, '5s')
    expect((await card(s, reference)).balance).toBe(2_500)
  })

  it('funds and withdraws through the control plane as settled recharge and withdraw transactions', async () => {
    const s = newSandbox()
    const { reference } = await s.issuedCard()
    const funded = await s.call('POST', `/__sandbox/cards/${reference}/fund`, { amount: 5_000 })
    expect(funded.body.data).toEqual({
      transaction: {
        slug: expect.any(String),
        card_reference: reference,
        reference: expect.any(String),
        status: 'success',
        kind: 'recharge',
        merchant: false,
        amount: 5_000,
        created_at: '2026-01-01T00:00:00.000000Z',
      },
      balance: 5_000,
    })
    const withdrawn = await s.call('POST', `/__sandbox/cards/${reference}/withdraw`, {
      amount: 1_500,
    })
    expect(withdrawn.body.data.transaction).toMatchObject({ kind: 'withdraw', status: 'success' })
    expect(withdrawn.body.data.balance).toBe(3_500)
    const tooMuch = await s.call('POST', `/__sandbox/cards/${reference}/withdraw`, {
      amount: 3_501,
    })
    expect(tooMuch.status).toBe(422)
  })
})

describe('disburses and the float', () => {
  const disburse = {
    amount: 250_000,
    network: 'wave-sn',
    customer: { full_name: 'Moussa Ba', phone: '+221770000003' },
  }

  it('debits the float at creation and settles after 5 s, its float_debit following', async () => {
    const s = newSandbox()
    const opening = await floatBalance(s)
    expect(opening).toBe(10_000_000)
    const created = await s.call('POST', '/v1/disburses/create', disburse)
    expect(created.body.data.disburse.status).toBe('processing')
    expect(await floatBalance(s)).toBe(opening - 250_000)
    await advance(s, '5s')
    const shown = await s.call('GET', `/v1/disburses/${created.body.data.disburse.reference}`)
    expect(shown.body.data.status).toBe('success')
    const ops = await s.call('GET', '/v1/business/operations')
    expect(ops.body.data[0]).toMatchObject({
      kind: 'float_debit',
      status: 'success',
      amount: 250_000,
    })
    expect(await floatBalance(s)).toBe(opening - 250_000)
  })

  it('gives the money back to the float when a disburse fails', async () => {
    const s = newSandbox()
    const created = await s.call('POST', '/v1/disburses/create', disburse)
    await move(s, 'disburses', created.body.data.disburse.reference, 'failed')
    expect(await floatBalance(s)).toBe(10_000_000)
    const ops = await s.call('GET', '/v1/business/operations')
    expect(ops.body.data[0]).toMatchObject({ kind: 'float_debit', status: 'failed' })
  })

  it('refuses a disburse larger than the float with 422 naming amount', async () => {
    const s = newSandbox()
    const refused = await s.call('POST', '/v1/disburses/create', {
      ...disburse,
      amount: 10_000_001,
    })
    expect(refused.status).toBe(422)
    expect(refused.body.errors).toEqual({
      amount: ['Insufficient balance: 10000000 available, 10000001 needed.'],
    })
    await s.call('POST', '/__sandbox/business/fund', { amount: 1 })
    expect(
      (await s.call('POST', '/v1/disburses/create', { ...disburse, amount: 10_000_001 })).status,
    ).toBe(200)
    expect(await floatBalance(s)).toBe(0)
  })
})

describe('payments', () => {
  const payment = {
    amount: 1_500,
    network: 'orange-money-sn',
    customer: { full_name: 'Fatou Sall', phone: '+221770000004' },
  }

  it('waits for its payer and expires only once the clock passes expired_at', async () => {
    const s = newSandbox()
    const ref = (await s.call('POST', '/v1/payments/create', payment)).body.data.payment.reference
    await advance(s, '30m')
    expect((await s.call('GET', `/v1/payments/${ref}`)).body.data.status).toBe('pending')
    await advance(s, 1)
    expect((await s.call('GET', `/v1/payments/${ref}`)).body.data.status).toBe('expired')
    const late = await move(s, 'payments', ref, 'success')
    expect(late.status).toBe(409)
    expect(late.body.allowed).toEqual([])
  })

  it('credits the float when the payer pays, with a settled float_credit', async () => {
    const s = newSandbox()
    const ref = (await s.call('POST', '/v1/payments/create', payment)).body.data.payment.reference
    await move(s, 'payments', ref, 'success')
    expect(await floatBalance(s)).toBe(10_001_500)
    await advance(s, '1h') // a paid payment never expires
    expect((await s.call('GET', `/v1/payments/${ref}`)).body.data.status).toBe('success')
    const ops = await s.call('GET', '/v1/business/operations')
    expect(ops.body.data[0]).toMatchObject({
      kind: 'float_credit',
      status: 'success',
      amount: 1_500,
    })
  })

  it('lets the control plane fail a pending payment', async () => {
    const s = newSandbox()
    const ref = (await s.call('POST', '/v1/payments/create', payment)).body.data.payment.reference
    expect((await move(s, 'payments', ref, 'failed')).status).toBe(200)
    expect(await floatBalance(s)).toBe(10_000_000)
  })
})

describe('disputes', () => {
  it('goes open → submitted → won, and refuses moves off that path', async () => {
    const s = newSandbox()
    const { reference } = await s.fundedCard()
    const slug = (
      await s.call('POST', '/v1/transactions/create/card-to-bank', {
        amount: 100,
        card_reference: reference,
        bank_id: 'SN01',
        bank_name: 'BICICI',
      })
    ).body.data.transaction.slug
    const opened = await s.call('POST', '/__sandbox/disputes', {
      transaction_slug: slug,
      reason: 'fraudulent',
    })
    const ref = opened.body.data.reference
    expect((await move(s, 'disputes', ref, 'won')).status).toBe(409)
    await s.call('POST', `/v1/disputes/update/${ref}`, {
      transaction_slug: slug,
      explanation: 'Not me',
    })
    expect((await move(s, 'disputes', ref, 'won')).body.data).toEqual({
      resource: 'dispute',
      reference: ref,
      from: 'submitted',
      to: 'won',
    })
    expect((await move(s, 'disputes', ref, 'lost')).status).toBe(409)
  })
})

describe('delays and reset', () => {
  it('uses a tenant’s delay override, and reset puts the defaults back', async () => {
    const s = newSandbox()
    const put = await s.call('PUT', '/__sandbox/delays', { card_issuing: '500ms' })
    expect(put.body.data.card_issuing).toBe(500)
    const user = await s.verifiedUser()
    const ref = (
      await s.call('POST', '/v1/cards/create', {
        card_user_reference: user,
        card_brand: 'visa',
        card_type: 'virtual',
      })
    ).body.data.card.reference
    await advance(s, 500)
    expect((await card(s, ref)).status).toBe('issued')
    await s.call('POST', '/__sandbox/reset')
    expect((await s.call('GET', '/__sandbox/delays')).body.data.card_issuing).toBe(5_000)
  })

  it('refuses unknown delay names and unreadable durations with 422', async () => {
    const s = newSandbox()
    const res = await s.call('PUT', '/__sandbox/delays', { card_issuing: 'soon', coffee: '1s' })
    expect(res.status).toBe(422)
    expect(Object.keys(res.body.errors).sort()).toEqual(['card_issuing', 'coffee'])
  })

  it('resets rows, pending jobs, the clock and the float of the caller only', async () => {
    const s = newSandbox()
    // two tenants with the same history: a pending user, a disburse, a clock moved by 1 s
    const o = {
      call: (method: string, path: string, body?: unknown) =>
        s.call(method, path, body, { token: 'other' }),
    }
    for (const tenant of [s, o]) {
      await tenant.call('POST', '/v1/card-users/create', fullIdentity())
      await tenant.call('POST', '/v1/disburses/create', {
        amount: 5,
        network: 'wave-sn',
        customer: { full_name: 'A', phone: '+221770000000' },
      })
      await tenant.call('POST', '/__sandbox/clock/advance', { by: '1s' })
    }
    const before = {
      users: (await o.call('GET', '/v1/card-users')).body,
      disburses: (await o.call('GET', '/v1/disburses')).body,
      jobs: (await o.call('GET', '/__sandbox/jobs')).body.data,
      business: (await o.call('GET', '/__sandbox/business')).body.data,
    }
    expect(before.jobs).toHaveLength(2)
    expect(before.business.float_balance).toBe(10_000_000 - 5)

    await s.call('POST', '/__sandbox/reset')
    while ((await sweepRetiredTenants(s.deps.db)) > 0); // what the tick does with the old rows

    expect((await s.call('GET', '/__sandbox/clock')).body.data.now).toBe('2026-01-01T00:00:00.000Z')
    expect((await s.call('GET', '/__sandbox/jobs')).body.data).toEqual([])
    expect(await floatBalance(s)).toBe(10_000_000)
    expect((await s.call('GET', '/v1/card-users')).body.data[0].data).toEqual([])
    expect((await s.call('GET', '/v1/disburses')).body.data).toEqual([])
    expect((await advance(s, '1d')).body.data.transitions_run).toBe(0)

    // the other tenant keeps everything, and its jobs still run
    expect((await o.call('GET', '/__sandbox/clock')).body.data.now).toBe('2026-01-01T00:00:01.000Z')
    expect((await o.call('GET', '/v1/card-users')).body).toEqual(before.users)
    expect((await o.call('GET', '/v1/disburses')).body).toEqual(before.disburses)
    expect((await o.call('GET', '/__sandbox/jobs')).body.data).toEqual(before.jobs)
    expect((await o.call('GET', '/__sandbox/business')).body.data).toEqual(before.business)
    expect(
      (await o.call('POST', '/__sandbox/clock/advance', { by: '1d' })).body.data,
    ).toMatchObject({ transitions_run: 2 })
  })

  it('lists pending jobs in due order', async () => {
    const s = newSandbox()
    await s.call('POST', '/v1/card-users/create', fullIdentity())
    await s.call('POST', '/v1/payments/create', {
      amount: 5,
      network: 'wave-sn',
      customer: { full_name: 'A', phone: '+221770000000' },
    })
    const jobs = (await s.call('GET', '/__sandbox/jobs')).body.data
    expect(
      jobs.map((j: { resource: string; action: string; due_at: string }) => [
        j.resource,
        j.action,
        j.due_at,
      ]),
    ).toEqual([
      ['card-users', 'passed', '2026-01-01T00:00:03.000Z'],
      ['payments', 'expired', '2026-01-01T00:30:00.001Z'],
    ])
  })
})

describe('a linked card moved by the control plane', () => {
  it('still gets its details after the delay', async () => {
    const s = newSandbox()
    const user = await s.verifiedUser()
    const ref = (
      await s.call('POST', '/v1/cards/link', { identifier: 77, card_user_reference: user })
    ).body.data.card.reference
    await move(s, 'cards', ref, 'frozen')
    await advance(s, '3s')
    expect(await card(s, ref)).toMatchObject({
      status: 'frozen',
      last_four: expect.stringMatching(/^\d{4}$/),
    })
  })
})
