/**
 * GET /v1/business/operations (SPEC §2.9, §4.8; PRODUCT §2, §5): a `float_debit` for each
 * disburse, following its outcome, and a `float_credit` for each successful payment.
 */
import { describe, expect, it } from 'vitest'
import { MICROS_TIMESTAMP, MILLIS_TIMESTAMP, newSandbox } from '../../helpers.js'

type Sandbox = ReturnType<typeof newSandbox>

const WALLET_DISBURSE = {
  amount: 2500,
  network: 'wave-sn',
  customer: { full_name: 'Awa Diop', email: 'awa.diop@example.com', phone: '+221770000001' },
}
const BANK_DISBURSE = {
  amount: 90000,
  network: 'bank',
  customer: {
    full_name: 'Moussa Ba',
    bank_name: 'Banque de Dakar',
    bank_id: 'SN012-01001-000123456789-12',
    bank_account_name: 'Moussa B. Ba',
  },
}
const PAYMENT = {
  amount: 5000,
  network: 'orange-money-sn',
  customer: { full_name: 'Fatou Sall', phone: '+221770000002' },
}

async function createDisburse(
  s: Sandbox,
  body: Record<string, unknown> = WALLET_DISBURSE,
  token?: string,
) {
  const res = await s.call('POST', '/v1/disburses/create', body, { token })
  expect(res.status, JSON.stringify(res.body)).toBe(200)
  return res.body.data.disburse.reference as string
}

async function createPayment(s: Sandbox, body: Record<string, unknown> = PAYMENT) {
  const res = await s.call('POST', '/v1/payments/create', body)
  expect(res.status, JSON.stringify(res.body)).toBe(200)
  return (res.body.data?.payment ?? res.body.payment).reference as string
}

async function move(s: Sandbox, resource: 'payments' | 'disburses', reference: string, to: string) {
  const res = await s.call('POST', `/__sandbox/${resource}/${reference}/transition`, { to })
  expect(res.status, JSON.stringify(res.body)).toBe(200)
}

async function operations(s: Sandbox, query = '', token?: string) {
  const res = await s.call('GET', `/v1/business/operations${query}`, undefined, { token })
  expect(res.status, JSON.stringify(res.body)).toBe(200)
  return res.body
}

describe('GET /v1/business/operations', () => {
  it('answers an empty page when the business has done nothing', async () => {
    const s = newSandbox()
    expect(await operations(s)).toEqual({
      message: expect.any(String),
      statusCode: 200,
      data: [],
      meta: { current_page: 1, from: null, last_page: 1, per_page: 20, to: null, total: 0 },
    })
  })

  it('shows a pending float_debit for a wallet disburse, created_at with microseconds (quirks on)', async () => {
    const s = newSandbox()
    await createDisburse(s)
    const body = await operations(s)
    expect(body).toEqual({
      message: expect.any(String),
      statusCode: 200,
      data: [
        {
          amount: 2500,
          fees: 0,
          description: expect.any(String),
          type: 'account_transfer',
          kind: 'float_debit',
          bank_name: 'wave-sn',
          bank_id: '+221770000001',
          bank_account_name: 'Awa Diop',
          status: 'pending',
          created_at: '2026-01-01T00:00:00.000000Z',
        },
      ],
      meta: { current_page: 1, from: 1, last_page: 1, per_page: 20, to: 1, total: 1 },
    })
    expect(body.data[0].created_at).toMatch(MICROS_TIMESTAMP)
    expect(body.data[0].description).not.toBe('')
  })

  it('shows a pending float_debit for a disburse, created_at in milliseconds (quirks off)', async () => {
    const s = newSandbox({ quirks: false })
    await createDisburse(s)
    const body = await operations(s)
    expect(body).toEqual({
      message: expect.any(String),
      statusCode: 200,
      data: [
        {
          amount: 2500,
          fees: 0,
          description: expect.any(String),
          type: 'account_transfer',
          kind: 'float_debit',
          bank_name: 'wave-sn',
          bank_id: '+221770000001',
          bank_account_name: 'Awa Diop',
          status: 'pending',
          created_at: '2026-01-01T00:00:00.000Z',
        },
      ],
      meta: { current_page: 1, from: 1, last_page: 1, per_page: 20, to: 1, total: 1 },
    })
    expect(body.data[0].created_at).toMatch(MILLIS_TIMESTAMP)
  })

  it("carries a bank disburse's bank details on its float_debit", async () => {
    const s = newSandbox()
    await createDisburse(s, BANK_DISBURSE)
    const body = await operations(s)
    expect(body.data).toEqual([
      {
        amount: 90000,
        fees: 0,
        description: expect.any(String),
        type: 'account_transfer',
        kind: 'float_debit',
        bank_name: 'Banque de Dakar',
        bank_id: 'SN012-01001-000123456789-12',
        bank_account_name: 'Moussa B. Ba',
        status: 'pending',
        created_at: '2026-01-01T00:00:00.000000Z',
      },
    ])
  })

  it('stamps created_at with the sandbox clock after it is advanced', async () => {
    const s = newSandbox()
    const advanced = await s.call('POST', '/__sandbox/clock/advance', { by: '1h' })
    expect(advanced.status, JSON.stringify(advanced.body)).toBe(200)
    await createDisburse(s)
    expect((await operations(s)).data[0].created_at).toBe('2026-01-01T01:00:00.000000Z')
  })

  it('moves the float_debit to success when its disburse succeeds', async () => {
    const s = newSandbox()
    const reference = await createDisburse(s)
    await move(s, 'disburses', reference, 'success')
    const body = await operations(s)
    expect(body.data).toHaveLength(1)
    expect(body.data[0]).toEqual(
      expect.objectContaining({ kind: 'float_debit', amount: 2500, status: 'success' }),
    )
  })

  it('moves the float_debit to failed when its disburse fails', async () => {
    const s = newSandbox()
    const reference = await createDisburse(s)
    await move(s, 'disburses', reference, 'failed')
    const body = await operations(s)
    expect(body.data).toHaveLength(1)
    expect(body.data[0]).toEqual(
      expect.objectContaining({ kind: 'float_debit', amount: 2500, status: 'failed' }),
    )
  })

  it('moves only the float_debit of the disburse that moved', async () => {
    const s = newSandbox()
    const first = await createDisburse(s, { ...WALLET_DISBURSE, amount: 111 })
    await createDisburse(s, { ...WALLET_DISBURSE, amount: 222 })
    await move(s, 'disburses', first, 'success')
    const body = await operations(s)
    expect(body.data.map((o: any) => [o.amount, o.status])).toEqual([
      [222, 'pending'],
      [111, 'success'],
    ])
  })

  it('leaves the float_debit alone when an illegal disburse move is refused', async () => {
    const s = newSandbox()
    const reference = await createDisburse(s)
    await move(s, 'disburses', reference, 'success')
    const refused = await s.call('POST', `/__sandbox/disburses/${reference}/transition`, {
      to: 'failed',
    })
    expect(refused.status, JSON.stringify(refused.body)).toBe(409)
    expect((await operations(s)).data[0].status).toBe('success')
  })

  it('records nothing for a payment until it succeeds', async () => {
    const s = newSandbox()
    await createPayment(s)
    expect((await operations(s)).data).toEqual([])
  })

  it('records a float_credit when a payment moves to success', async () => {
    const s = newSandbox()
    const reference = await createPayment(s)
    await s.call('POST', '/__sandbox/clock/advance', { by: '5m' })
    await move(s, 'payments', reference, 'success')
    const body = await operations(s)
    expect(body).toEqual({
      message: expect.any(String),
      statusCode: 200,
      data: [
        {
          amount: 5000,
          fees: 0,
          description: expect.any(String),
          type: 'account_transfer',
          kind: 'float_credit',
          bank_name: 'orange-money-sn',
          bank_id: '+221770000002',
          bank_account_name: 'Fatou Sall',
          // the payment's money is in: its credit is settled at once
          status: 'success',
          created_at: '2026-01-01T00:05:00.000000Z',
        },
      ],
      meta: { current_page: 1, from: 1, last_page: 1, per_page: 20, to: 1, total: 1 },
    })
  })

  it.each(['failed', 'expired'])('records no float_credit for a payment that %s', async (to) => {
    const s = newSandbox()
    const reference = await createPayment(s)
    await move(s, 'payments', reference, to)
    expect((await operations(s)).data).toEqual([])
  })

  it('lists newest first', async () => {
    const s = newSandbox()
    await createDisburse(s, { ...WALLET_DISBURSE, amount: 1 })
    const payment = await createPayment(s, { ...PAYMENT, amount: 2 })
    await createDisburse(s, { ...BANK_DISBURSE, amount: 3 })
    await move(s, 'payments', payment, 'success')
    const body = await operations(s)
    expect(body.data.map((o: any) => [o.kind, o.amount])).toEqual([
      ['float_credit', 2],
      ['float_debit', 3],
      ['float_debit', 1],
    ])
  })

  it('pages 20 at a time by default and honours page and per_page', async () => {
    const s = newSandbox()
    for (let i = 1; i <= 21; i++) await createDisburse(s, { ...WALLET_DISBURSE, amount: i })

    const first = await operations(s)
    expect(first.data).toHaveLength(20)
    expect(first.data[0].amount).toBe(21)
    expect(first.meta).toEqual({
      current_page: 1,
      from: 1,
      last_page: 2,
      per_page: 20,
      to: 20,
      total: 21,
    })

    const second = await operations(s, '?page=2')
    expect(second.data.map((o: any) => o.amount)).toEqual([1])
    expect(second.meta).toEqual({
      current_page: 2,
      from: 21,
      last_page: 2,
      per_page: 20,
      to: 21,
      total: 21,
    })

    const custom = await operations(s, '?page=2&per_page=5')
    expect(custom.data.map((o: any) => o.amount)).toEqual([16, 15, 14, 13, 12])
    expect(custom.meta).toEqual({
      current_page: 2,
      from: 6,
      last_page: 5,
      per_page: 5,
      to: 10,
      total: 21,
    })
  })

  it.each(['0', '101'])('refuses per_page=%s, naming per_page (422)', async (perPage) => {
    const s = newSandbox()
    const res = await s.call('GET', `/v1/business/operations?per_page=${perPage}`)
    expect(res.status, JSON.stringify(res.body)).toBe(422)
    expect(res.body).toEqual({
      message: expect.any(String),
      statusCode: 422,
      errors: { per_page: [expect.any(String)] },
    })
  })

  it("shows another tenant none of this tenant's operations", async () => {
    const s = newSandbox()
    await createDisburse(s)
    const reference = await createPayment(s)
    await move(s, 'payments', reference, 'success')
    const other = await operations(s, '', 'other')
    expect(other.data).toEqual([])
    expect(other.meta.total).toBe(0)
  })

  it("keeps each tenant's operations apart when both disburse", async () => {
    const s = newSandbox()
    await createDisburse(s, { ...WALLET_DISBURSE, amount: 10 })
    await createDisburse(s, { ...WALLET_DISBURSE, amount: 20 }, 'other')
    expect((await operations(s)).data.map((o: any) => o.amount)).toEqual([10])
    expect((await operations(s, '', 'other')).data.map((o: any) => o.amount)).toEqual([20])
  })

  it('answers 401 without a bearer token', async () => {
    const s = newSandbox()
    const res = await s.call('GET', '/v1/business/operations', undefined, { token: null })
    expect(res.status, JSON.stringify(res.body)).toBe(401)
    expect(res.body).toEqual({ message: expect.any(String), statusCode: 401 })
  })
})

describe('GET /v1/business/balances (the PHP SDK’s getBalances; shape guessed)', () => {
  it('answers the float balance, which follows a top-up, for this tenant only', async () => {
    const sb = newSandbox()
    const opening = await sb.call('GET', '/v1/business/balances')
    expect(opening.status).toBe(200)
    expect(opening.body).toEqual({
      message: 'Business balances fetched successfully',
      statusCode: 200,
      data: { balance: 10_000_000 },
    })
    await sb.call('POST', '/__sandbox/business/fund', { amount: 2_500 })
    const after = await sb.call('GET', '/v1/business/balances')
    expect(after.body.data.balance).toBe(10_002_500)
    const other = await sb.call('GET', '/v1/business/balances', undefined, { token: 'other' })
    expect(other.body.data.balance).toBe(10_000_000)
  })
})
