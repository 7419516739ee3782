/**
 * /v1/disburses (SPEC §2.6, §4.6; PRODUCT §2, §4, §5, §10).
 */
import { describe, expect, it } from 'vitest'
import { OPENING_FLOAT } from '../../../src/domain/ledger.js'
import { startSandbox } from '../../../src/index.js'
import { MILLIS_TIMESTAMP, UUID, newSandbox } from '../../helpers.js'

const BUSINESS = expect.stringMatching(/\S/)
const CHECKOUT = (reference: string) => `http://localhost/__sandbox/checkout/${reference}`
const NOW_PLUS_30_MIN = '2026-01-01T00:30:00.000Z'

const WALLET_CUSTOMER = {
  full_name: 'Awa Diop',
  email: 'awa.diop@example.com',
  phone: '+221770000001',
}
const BANK_CUSTOMER = {
  full_name: 'Moussa Ba',
  email: 'moussa.ba@example.com',
  bank_name: 'Banque de Dakar',
  bank_id: 'SN012-01001-000123456789-12',
  bank_account_name: 'Moussa Ba',
}

function walletDisburse(overrides: Record<string, unknown> = {}) {
  return {
    amount: 2500,
    network: 'wave-sn',
    partner_reference: 'payout-77',
    customer: WALLET_CUSTOMER,
    ...overrides,
  }
}

function bankDisburse(overrides: Record<string, unknown> = {}) {
  return {
    amount: 90000,
    network: 'bank',
    partner_reference: 'payout-78',
    customer: BANK_CUSTOMER,
    ...overrides,
  }
}

type Sandbox = ReturnType<typeof newSandbox>

async function createDisburse(s: Sandbox, body: unknown = walletDisburse(), token?: string) {
  const res = await s.call('POST', '/v1/disburses/create', body, { token })
  expect(res.status, JSON.stringify(res.body)).toBe(200)
  return res.body.data.disburse
}

describe('POST /v1/disburses/create', () => {
  it('builds meta.wallet_url from publicUrl (--public-url), not from the Host', async () => {
    const s = newSandbox({ publicUrl: 'http://sandbox.internal:4010' })
    const res = await s.app.request('http://127.0.0.1:9999/v1/disburses/create', {
      method: 'POST',
      headers: { Authorization: 'Bearer test-token', 'Content-Type': 'application/json' },
      body: JSON.stringify(walletDisburse()),
    })
    const body = (await res.json()) as any
    expect(res.status, JSON.stringify(body)).toBe(200)
    expect(body.data.disburse.meta).toEqual({
      wallet_url: `http://sandbox.internal:4010/__sandbox/checkout/${body.data.disburse.reference}`,
    })
  })

  it('answers a processing wallet disburse under data.disburse with meta.wallet_url (quirks on)', async () => {
    const s = newSandbox()
    const res = await s.call('POST', '/v1/disburses/create', walletDisburse())
    expect(res.status, JSON.stringify(res.body)).toBe(200)
    const reference = res.body.data.disburse.reference
    expect(res.body).toEqual({
      message: expect.any(String),
      statusCode: 200,
      data: {
        disburse: {
          business: BUSINESS,
          customer: {
            full_name: 'Awa Diop',
            email: 'awa.diop@example.com',
            phone: '+221770000001',
            bank_name: '',
            bank_id: '',
            bank_account_name: '',
          },
          slug: expect.stringMatching(UUID),
          reference: expect.stringMatching(UUID),
          kind: 'disburse',
          network: 'wave-sn',
          partner_reference: 'payout-77',
          amount: 2500,
          status: 'processing',
          expired_at: NOW_PLUS_30_MIN,
          meta: { wallet_url: CHECKOUT(reference) },
        },
      },
    })
    expect(res.body.data.disburse.slug).not.toBe(reference)
    expect(res.body.data.disburse.expired_at).toMatch(MILLIS_TIMESTAMP)
  })

  it('answers a processing bank disburse with the bank details and "" for the phone not sent', async () => {
    const s = newSandbox()
    const res = await s.call('POST', '/v1/disburses/create', bankDisburse())
    expect(res.status, JSON.stringify(res.body)).toBe(200)
    const reference = res.body.data.disburse.reference
    expect(res.body).toEqual({
      message: expect.any(String),
      statusCode: 200,
      data: {
        disburse: {
          business: BUSINESS,
          customer: {
            full_name: 'Moussa Ba',
            email: 'moussa.ba@example.com',
            phone: '',
            bank_name: 'Banque de Dakar',
            bank_id: 'SN012-01001-000123456789-12',
            bank_account_name: 'Moussa Ba',
          },
          slug: expect.stringMatching(UUID),
          reference: expect.stringMatching(UUID),
          kind: 'disburse',
          network: 'bank',
          partner_reference: 'payout-78',
          amount: 90000,
          status: 'processing',
          expired_at: NOW_PLUS_30_MIN,
          meta: { wallet_url: CHECKOUT(reference) },
        },
      },
    })
  })

  it('answers the same clean shape with quirks off', async () => {
    const s = newSandbox({ quirks: false })
    const res = await s.call('POST', '/v1/disburses/create', walletDisburse())
    expect(res.status, JSON.stringify(res.body)).toBe(200)
    const reference = res.body.data.disburse.reference
    expect(res.body).toEqual({
      message: expect.any(String),
      statusCode: 200,
      data: {
        disburse: {
          business: BUSINESS,
          customer: {
            full_name: 'Awa Diop',
            email: 'awa.diop@example.com',
            phone: '+221770000001',
            bank_name: '',
            bank_id: '',
            bank_account_name: '',
          },
          slug: expect.stringMatching(UUID),
          reference: expect.stringMatching(UUID),
          kind: 'disburse',
          network: 'wave-sn',
          partner_reference: 'payout-77',
          amount: 2500,
          status: 'processing',
          expired_at: NOW_PLUS_30_MIN,
          meta: { wallet_url: CHECKOUT(reference) },
        },
      },
    })
  })

  it('generates a UUID partner_reference when none is sent', async () => {
    const s = newSandbox()
    const { partner_reference: _omitted, ...body } = walletDisburse()
    const disburse = await createDisburse(s, body)
    expect(disburse.partner_reference).toMatch(UUID)
  })

  it('shows every customer field as a string, "" for each one not sent', async () => {
    const s = newSandbox()
    const disburse = await createDisburse(
      s,
      walletDisburse({ customer: { full_name: 'Awa Diop', phone: '+221770000001' } }),
    )
    expect(disburse.customer).toEqual({
      full_name: 'Awa Diop',
      email: '',
      phone: '+221770000001',
      bank_name: '',
      bank_id: '',
      bank_account_name: '',
    })
  })

  it('sets expired_at 30 minutes after the sandbox clock, which moves when the clock is advanced', async () => {
    const s = newSandbox()
    expect((await createDisburse(s)).expired_at).toBe('2026-01-01T00:30:00.000Z')
    const advanced = await s.call('POST', '/__sandbox/clock/advance', { by: '1h' })
    expect(advanced.status, JSON.stringify(advanced.body)).toBe(200)
    const later = walletDisburse({ partner_reference: 'payout-later' })
    expect((await createDisburse(s, later)).expired_at).toBe('2026-01-01T01:30:00.000Z')
  })

  it.each(['bank', 'orange-money-sn', 'wave-sn'])(
    'accepts the SPEC §4.6 network %s',
    async (network) => {
      const s = newSandbox()
      const body = network === 'bank' ? bankDisburse() : walletDisburse({ network })
      const disburse = await createDisburse(s, body)
      expect(disburse.network).toBe(network)
    },
  )

  it('refuses a bank disburse without the customer bank details, naming each in dot notation (422)', async () => {
    const s = newSandbox()
    const res = await s.call(
      'POST',
      '/v1/disburses/create',
      bankDisburse({ customer: { full_name: 'Moussa Ba', phone: '+221770000001' } }),
    )
    expect(res.status, JSON.stringify(res.body)).toBe(422)
    expect(res.body).toEqual({
      message: expect.any(String),
      statusCode: 422,
      errors: {
        'customer.bank_name': ['The customer.bank name field is required when network is bank.'],
        'customer.bank_id': ['The customer.bank id field is required when network is bank.'],
        'customer.bank_account_name': [
          'The customer.bank account name field is required when network is bank.',
        ],
      },
    })
  })

  it('refuses a bank disburse missing only bank_id, naming customer.bank_id (422)', async () => {
    const s = newSandbox()
    const { bank_id: _omitted, ...customer } = BANK_CUSTOMER
    const res = await s.call('POST', '/v1/disburses/create', bankDisburse({ customer }))
    expect(res.status, JSON.stringify(res.body)).toBe(422)
    expect(Object.keys(res.body.errors)).toEqual(['customer.bank_id'])
  })

  it.each(['orange-money-sn', 'wave-sn'])(
    'refuses a %s disburse without customer.phone (422)',
    async (network) => {
      const s = newSandbox()
      const res = await s.call(
        'POST',
        '/v1/disburses/create',
        walletDisburse({
          network,
          customer: { full_name: 'Awa Diop', email: 'awa.diop@example.com' },
        }),
      )
      expect(res.status, JSON.stringify(res.body)).toBe(422)
      expect(res.body).toEqual({
        message: expect.any(String),
        statusCode: 422,
        errors: {
          'customer.phone': [`The customer.phone field is required when network is ${network}.`],
        },
      })
    },
  )

  it('does not ask a wallet disburse for bank details', async () => {
    const s = newSandbox()
    const disburse = await createDisburse(
      s,
      walletDisburse({ customer: { full_name: 'Awa Diop', phone: '+221770000001' } }),
    )
    expect(disburse.status).toBe('processing')
  })

  it('refuses a body without amount, network and customer, naming each (422)', async () => {
    const s = newSandbox()
    const res = await s.call('POST', '/v1/disburses/create', {})
    expect(res.status, JSON.stringify(res.body)).toBe(422)
    expect(res.body).toEqual({
      message: expect.any(String),
      statusCode: 422,
      errors: {
        amount: [expect.stringMatching(/amount.*required/)],
        network: [expect.stringMatching(/network.*required/)],
        customer: [expect.stringMatching(/customer.*required/)],
      },
    })
  })

  it('names the missing bank details together with the other bad fields (422)', async () => {
    const s = newSandbox()
    const res = await s.call('POST', '/v1/disburses/create', {
      network: 'bank',
      customer: { full_name: 'Moussa Ba' },
    })
    expect(res.status, JSON.stringify(res.body)).toBe(422)
    expect(Object.keys(res.body.errors).sort()).toEqual([
      'amount',
      'customer.bank_account_name',
      'customer.bank_id',
      'customer.bank_name',
    ])
  })

  it.each(['paypal', 'Bank', ''])('refuses the network %j (422)', async (network) => {
    const s = newSandbox()
    const res = await s.call('POST', '/v1/disburses/create', walletDisburse({ network }))
    expect(res.status, JSON.stringify(res.body)).toBe(422)
    expect(Object.keys(res.body.errors)).toEqual(['network'])
  })

  it.each([
    ['a string', 'Awa Diop'],
    ['an array', []],
    ['a number', 7],
  ])('refuses a customer that is %s, naming customer (422)', async (_label, customer) => {
    const s = newSandbox()
    const res = await s.call('POST', '/v1/disburses/create', walletDisburse({ customer }))
    expect(res.status, JSON.stringify(res.body)).toBe(422)
    expect(res.body).toEqual({
      message: 'The customer field must be an object.',
      statusCode: 422,
      errors: { customer: ['The customer field must be an object.'] },
    })
  })

  it('refuses a malformed customer email, naming customer.email (422)', async () => {
    const s = newSandbox()
    const res = await s.call(
      'POST',
      '/v1/disburses/create',
      walletDisburse({ customer: { ...WALLET_CUSTOMER, email: 'awa@' } }),
    )
    expect(res.status, JSON.stringify(res.body)).toBe(422)
    expect(res.body).toEqual({
      message: 'The customer.email field must be a valid email address.',
      statusCode: 422,
      errors: { 'customer.email': ['The customer.email field must be a valid email address.'] },
    })
  })

  it.each([0, -1, 99.99, '2500'])('refuses the amount %j, naming amount (422)', async (amount) => {
    const s = newSandbox()
    const res = await s.call('POST', '/v1/disburses/create', walletDisburse({ amount }))
    expect(res.status, JSON.stringify(res.body)).toBe(422)
    expect(res.body.statusCode).toBe(422)
    expect(Object.keys(res.body.errors)).toEqual(['amount'])
  })

  it('creates neither a disburse nor a business operation when validation fails', async () => {
    const s = newSandbox()
    await s.call('POST', '/v1/disburses/create', walletDisburse({ amount: 0 }))
    expect((await s.call('GET', '/v1/disburses')).body.data).toEqual([])
    expect((await s.call('GET', '/v1/business/operations')).body.data).toEqual([])
  })

  it('answers 401 without a bearer token', async () => {
    const s = newSandbox()
    const res = await s.call('POST', '/v1/disburses/create', walletDisburse(), { token: null })
    expect(res.status, JSON.stringify(res.body)).toBe(401)
    expect(res.body).toEqual({ message: expect.any(String), statusCode: 401 })
  })
})

describe('GET /v1/disburses', () => {
  it('lists disburses with meta [] and no partner_reference (quirks on)', async () => {
    const s = newSandbox()
    const created = await createDisburse(s)
    const res = await s.call('GET', '/v1/disburses')
    expect(res.status, JSON.stringify(res.body)).toBe(200)
    expect(res.body).toEqual({
      message: expect.any(String),
      statusCode: 200,
      data: [
        {
          business: created.business,
          customer: {
            full_name: 'Awa Diop',
            email: 'awa.diop@example.com',
            phone: '+221770000001',
            bank_name: '',
            bank_id: '',
            bank_account_name: '',
          },
          slug: created.slug,
          reference: created.reference,
          kind: 'disburse',
          network: 'wave-sn',
          amount: 2500,
          status: 'processing',
          expired_at: NOW_PLUS_30_MIN,
          meta: [],
        },
      ],
      meta: { current_page: 1, from: 1, last_page: 1, per_page: 20, to: 1, total: 1 },
    })
  })

  it('lists disburses with meta {wallet_url} (quirks off)', async () => {
    const s = newSandbox({ quirks: false })
    const created = await createDisburse(s)
    const res = await s.call('GET', '/v1/disburses')
    expect(res.status, JSON.stringify(res.body)).toBe(200)
    expect(res.body).toEqual({
      message: expect.any(String),
      statusCode: 200,
      data: [
        {
          business: created.business,
          customer: {
            full_name: 'Awa Diop',
            email: 'awa.diop@example.com',
            phone: '+221770000001',
            bank_name: '',
            bank_id: '',
            bank_account_name: '',
          },
          slug: created.slug,
          reference: created.reference,
          kind: 'disburse',
          network: 'wave-sn',
          amount: 2500,
          status: 'processing',
          expired_at: NOW_PLUS_30_MIN,
          meta: { wallet_url: CHECKOUT(created.reference) },
        },
      ],
      meta: { current_page: 1, from: 1, last_page: 1, per_page: 20, to: 1, total: 1 },
    })
  })

  it('answers an empty page with null bounds when there are no disburses', async () => {
    const s = newSandbox()
    const res = await s.call('GET', '/v1/disburses')
    expect(res.status, JSON.stringify(res.body)).toBe(200)
    expect(res.body).toEqual({
      message: expect.any(String),
      statusCode: 200,
      data: [],
      meta: { current_page: 1, from: null, last_page: 1, per_page: 20, to: null, total: 0 },
    })
  })

  it('lists newest first', async () => {
    const s = newSandbox()
    const refs: string[] = []
    refs.push((await createDisburse(s, walletDisburse({ amount: 1 }))).reference)
    refs.push((await createDisburse(s, bankDisburse({ amount: 2 }))).reference)
    const third = walletDisburse({ amount: 3, partner_reference: 'payout-79' })
    refs.push((await createDisburse(s, third)).reference)
    const res = await s.call('GET', '/v1/disburses')
    expect(res.body.data.map((d: any) => d.reference)).toEqual(refs.reverse())
  })

  it('pages 20 at a time by default', async () => {
    const s = newSandbox()
    for (let i = 1; i <= 21; i++)
      await createDisburse(s, walletDisburse({ amount: i, partner_reference: `payout-${i}` }))
    const first = await s.call('GET', '/v1/disburses')
    expect(first.body.data).toHaveLength(20)
    expect(first.body.data[0].amount).toBe(21)
    expect(first.body.meta).toEqual({
      current_page: 1,
      from: 1,
      last_page: 2,
      per_page: 20,
      to: 20,
      total: 21,
    })
    const second = await s.call('GET', '/v1/disburses?page=2')
    expect(second.body.data.map((d: any) => d.amount)).toEqual([1])
    expect(second.body.meta).toEqual({
      current_page: 2,
      from: 21,
      last_page: 2,
      per_page: 20,
      to: 21,
      total: 21,
    })
  })

  it('honours page and per_page', async () => {
    const s = newSandbox()
    for (let i = 1; i <= 7; i++)
      await createDisburse(s, walletDisburse({ amount: i, partner_reference: `payout-${i}` }))
    const res = await s.call('GET', '/v1/disburses?page=3&per_page=3')
    expect(res.status, JSON.stringify(res.body)).toBe(200)
    expect(res.body.data.map((d: any) => d.amount)).toEqual([1])
    expect(res.body.meta).toEqual({
      current_page: 3,
      from: 7,
      last_page: 3,
      per_page: 3,
      to: 7,
      total: 7,
    })
  })

  it.each(['0', '101'])('refuses per_page=%s, naming per_page (422)', async (perPage) => {
    const s = newSandbox()
    const res = await s.call('GET', `/v1/disburses?per_page=${perPage}`)
    expect(res.status, JSON.stringify(res.body)).toBe(422)
    expect(res.body).toEqual({
      message: expect.any(String),
      statusCode: 422,
      errors: { per_page: [expect.any(String)] },
    })
  })

  it('shows another tenant an empty list', async () => {
    const s = newSandbox()
    await createDisburse(s)
    const res = await s.call('GET', '/v1/disburses', undefined, { token: 'other' })
    expect(res.status, JSON.stringify(res.body)).toBe(200)
    expect(res.body.data).toEqual([])
    expect(res.body.meta.total).toBe(0)
  })
})

describe('GET /v1/disburses/{reference}', () => {
  it('shows one disburse with meta [] (quirks on)', async () => {
    const s = newSandbox()
    const created = await createDisburse(s, bankDisburse())
    const res = await s.call('GET', `/v1/disburses/${created.reference}`)
    expect(res.status, JSON.stringify(res.body)).toBe(200)
    expect(res.body).toEqual({
      message: expect.any(String),
      statusCode: 200,
      data: {
        business: created.business,
        customer: {
          full_name: 'Moussa Ba',
          email: 'moussa.ba@example.com',
          phone: '',
          bank_name: 'Banque de Dakar',
          bank_id: 'SN012-01001-000123456789-12',
          bank_account_name: 'Moussa Ba',
        },
        slug: created.slug,
        reference: created.reference,
        kind: 'disburse',
        network: 'bank',
        amount: 90000,
        status: 'processing',
        expired_at: NOW_PLUS_30_MIN,
        meta: [],
      },
    })
  })

  it('shows one disburse with meta {wallet_url} (quirks off)', async () => {
    const s = newSandbox({ quirks: false })
    const created = await createDisburse(s, bankDisburse())
    const res = await s.call('GET', `/v1/disburses/${created.reference}`)
    expect(res.status, JSON.stringify(res.body)).toBe(200)
    expect(res.body).toEqual({
      message: expect.any(String),
      statusCode: 200,
      data: {
        business: created.business,
        customer: {
          full_name: 'Moussa Ba',
          email: 'moussa.ba@example.com',
          phone: '',
          bank_name: 'Banque de Dakar',
          bank_id: 'SN012-01001-000123456789-12',
          bank_account_name: 'Moussa Ba',
        },
        slug: created.slug,
        reference: created.reference,
        kind: 'disburse',
        network: 'bank',
        amount: 90000,
        status: 'processing',
        expired_at: NOW_PLUS_30_MIN,
        meta: { wallet_url: CHECKOUT(created.reference) },
      },
    })
  })

  it('answers 404 for an unknown reference', async () => {
    const s = newSandbox()
    await createDisburse(s)
    const res = await s.call('GET', '/v1/disburses/0b8f3c2a-5d4e-4f6a-8b9c-1d2e3f4a5b6c')
    expect(res.status, JSON.stringify(res.body)).toBe(404)
    expect(res.body).toEqual(
      expect.objectContaining({ message: expect.any(String), statusCode: 404 }),
    )
  })

  it('answers 404 for a reference that is not a UUID', async () => {
    const s = newSandbox()
    const res = await s.call('GET', '/v1/disburses/12345')
    expect(res.status, JSON.stringify(res.body)).toBe(404)
    expect(res.body).toEqual(
      expect.objectContaining({ message: expect.any(String), statusCode: 404 }),
    )
  })

  it("answers 404 for another tenant's disburse", async () => {
    const s = newSandbox()
    const created = await createDisburse(s)
    const res = await s.call('GET', `/v1/disburses/${created.reference}`, undefined, {
      token: 'other',
    })
    expect(res.status, JSON.stringify(res.body)).toBe(404)
    expect(res.body).toEqual(
      expect.objectContaining({ message: expect.any(String), statusCode: 404 }),
    )
  })
})

describe('disburse lifecycle through the control plane', () => {
  it.each(['success', 'failed'])(
    'moves a processing disburse to %s, and the show answer says so',
    async (to) => {
      const s = newSandbox()
      const disburse = await createDisburse(s)
      const moved = await s.call('POST', `/__sandbox/disburses/${disburse.reference}/transition`, {
        to,
      })
      expect(moved.status, JSON.stringify(moved.body)).toBe(200)
      const res = await s.call('GET', `/v1/disburses/${disburse.reference}`)
      expect(res.body.data.status).toBe(to)
    },
  )

  it('refuses processing → processing with 409 naming the allowed states', async () => {
    const s = newSandbox()
    const disburse = await createDisburse(s)
    const res = await s.call('POST', `/__sandbox/disburses/${disburse.reference}/transition`, {
      to: 'processing',
    })
    expect(res.status, JSON.stringify(res.body)).toBe(409)
    expect(res.body).toEqual({
      message: expect.any(String),
      statusCode: 409,
      from: 'processing',
      to: 'processing',
      allowed: ['success', 'failed'],
    })
  })

  it('refuses success → failed with 409 and an empty allowed list', async () => {
    const s = newSandbox()
    const disburse = await createDisburse(s)
    await s.call('POST', `/__sandbox/disburses/${disburse.reference}/transition`, { to: 'success' })
    const res = await s.call('POST', `/__sandbox/disburses/${disburse.reference}/transition`, {
      to: 'failed',
    })
    expect(res.status, JSON.stringify(res.body)).toBe(409)
    expect(res.body).toEqual({
      message: expect.any(String),
      statusCode: 409,
      from: 'success',
      to: 'failed',
      allowed: [],
    })
  })

  it('does not move by itself while the manual clock stands', async () => {
    // at ×1000, the 250 ms waited would be 250 s of sandbox time on a clock that ran
    const s = newSandbox({ speed: 1000 })
    const disburse = await createDisburse(s)
    await new Promise((resolve) => setTimeout(resolve, 250)) // several scheduler ticks
    const res = await s.call('GET', `/v1/disburses/${disburse.reference}`)
    expect(res.body.data.status).toBe('processing')
    expect((await s.call('GET', '/__sandbox/clock')).body.data.now).toBe('2026-01-01T00:00:00.000Z')
    // what the clock's standing held back: settled once it is moved past the delay
    await s.call('POST', '/__sandbox/clock/advance', { by: '5s' })
    expect((await s.call('GET', `/v1/disburses/${disburse.reference}`)).body.data.status).toBe(
      'success',
    )
    s.close()
  })
})

describe('idempotency', () => {
  it('refuses a disburse repeating a partner_reference with 422, paying nothing twice', async () => {
    const s = newSandbox()
    const first = await createDisburse(s)
    const again = await s.call('POST', '/v1/disburses/create', walletDisburse({ amount: 7 }))
    expect(again.status).toBe(422)
    expect(again.body.errors).toEqual({
      partner_reference: [
        `The partner reference has already been used (disburse ${first.reference}).`,
      ],
    })
    expect((await s.call('GET', '/v1/disburses')).body.meta.total).toBe(1)
    expect((await s.call('GET', '/v1/business/operations')).body.meta.total).toBe(1)
    const float = (await s.call('GET', '/__sandbox/business')).body.data.float_balance
    expect(float).toBe(OPENING_FLOAT - 2500)
    // another tenant has its own references
    expect(
      (await s.call('POST', '/v1/disburses/create', walletDisburse(), { token: 'other' })).status,
    ).toBe(200)
  })

  it('creates one of 60 concurrent identical disburses (and payments) over real HTTP', async () => {
    const sandbox = await startSandbox({ port: 0, clock: 'manual', log: 'silent' })
    const headers = { Authorization: 'Bearer dup', 'Content-Type': 'application/json' }
    const get = async (path: string) =>
      ((await (await fetch(`${sandbox.url}${path}`, { headers })).json()) as any).meta.total
    try {
      for (const resource of ['disburses', 'payments']) {
        const answers = await Promise.all(
          Array.from({ length: 60 }, () =>
            fetch(`${sandbox.url}/v1/${resource}/create`, {
              method: 'POST',
              headers,
              body: JSON.stringify(walletDisburse({ partner_reference: 'once' })),
            }).then(async (res) => ({ status: res.status, body: (await res.json()) as any })),
          ),
        )
        const statuses = answers.map((a) => a.status)
        expect(
          statuses.filter((status) => status === 200),
          resource,
        ).toHaveLength(1)
        expect(
          statuses.filter((status) => status === 422),
          resource,
        ).toHaveLength(59)
        for (const refused of answers.filter((a) => a.status === 422))
          expect(Object.keys(refused.body.errors), resource).toEqual(['partner_reference'])
        expect(await get(`/v1/${resource}`), resource).toBe(1)
      }
      expect(await get('/v1/business/operations')).toBe(1)
      const business = await fetch(`${sandbox.url}/__sandbox/business`, { headers })
      expect(((await business.json()) as any).data.float_balance).toBe(OPENING_FLOAT - 2500)
    } finally {
      await sandbox.close()
    }
  })
})
