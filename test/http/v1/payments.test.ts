/**
 * /v1/payments (SPEC §2.7, §4.7; PRODUCT §2, §4, §5, §10).
 */
import { describe, expect, it } from 'vitest'
import { MILLIS_TIMESTAMP, UUID, newSandbox } from '../../helpers.js'

/** SPEC §4.7: the payment networks, in the spec's order. */
const PAYMENT_NETWORKS = [
  'orange-money-sn',
  'wave-sn',
  'orange-money-ci',
  'wave-ci',
  'mtn-ci',
  'moov-ci',
  'mtn-bj',
  'moov-bj',
  'moov-tg',
  't-money-togo',
]

const BUSINESS = expect.stringMatching(/\S/)
const CHECKOUT = (reference: string) => `http://localhost/__sandbox/checkout/${reference}`
const NOW_PLUS_30_MIN = '2026-01-01T00:30:00.000Z'

function paymentBody(overrides: Record<string, unknown> = {}) {
  return {
    amount: 5000,
    partner_reference: 'order-1001',
    network: 'wave-sn',
    customer: { full_name: 'Awa Diop', email: 'awa.diop@example.com', phone: '+221770000001' },
    ...overrides,
  }
}

type Sandbox = ReturnType<typeof newSandbox>

/** Creates a payment and returns its JSON, wherever the mode puts it. */
async function createPayment(s: Sandbox, body: unknown = paymentBody(), token?: string) {
  const res = await s.call('POST', '/v1/payments/create', body, { token })
  expect(res.status, JSON.stringify(res.body)).toBe(200)
  return res.body.data?.payment ?? res.body.payment
}

describe('POST /v1/payments/create', () => {
  it('answers a pending payment under data.payment with kind "disburse" and meta.wallet_url (quirks on)', async () => {
    const s = newSandbox()
    const res = await s.call('POST', '/v1/payments/create', paymentBody())
    expect(res.status, JSON.stringify(res.body)).toBe(200)
    const reference = res.body.data.payment.reference
    expect(res.body).toEqual({
      message: expect.any(String),
      statusCode: 200,
      data: {
        payment: {
          business: BUSINESS,
          customer: {
            full_name: 'Awa Diop',
            email: 'awa.diop@example.com',
            phone: '+221770000001',
          },
          slug: expect.stringMatching(UUID),
          reference: expect.stringMatching(UUID),
          kind: 'disburse',
          network: 'wave-sn',
          partner_reference: 'order-1001',
          amount: 5000,
          status: 'pending',
          expired_at: NOW_PLUS_30_MIN,
          meta: { wallet_url: CHECKOUT(reference) },
        },
      },
    })
    expect(res.body.data.payment.slug).not.toBe(reference)
    expect(res.body.data.payment.expired_at).toMatch(MILLIS_TIMESTAMP)
  })

  it('answers kind "payment" with payment beside message and statusCode (quirks off)', async () => {
    const s = newSandbox({ quirks: false })
    const res = await s.call('POST', '/v1/payments/create', paymentBody())
    expect(res.status, JSON.stringify(res.body)).toBe(200)
    const reference = res.body.payment.reference
    expect(res.body).toEqual({
      message: expect.any(String),
      statusCode: 200,
      payment: {
        business: BUSINESS,
        customer: { full_name: 'Awa Diop', email: 'awa.diop@example.com', phone: '+221770000001' },
        slug: expect.stringMatching(UUID),
        reference: expect.stringMatching(UUID),
        kind: 'payment',
        network: 'wave-sn',
        partner_reference: 'order-1001',
        amount: 5000,
        status: 'pending',
        expired_at: NOW_PLUS_30_MIN,
        meta: { wallet_url: CHECKOUT(reference) },
      },
    })
    expect(res.body.data).toBeUndefined()
  })

  it('generates a UUID partner_reference when none is sent', async () => {
    const s = newSandbox()
    const { partner_reference, ...body } = paymentBody()
    const payment = await createPayment(s, body)
    expect(partner_reference).toBe('order-1001')
    expect(payment.partner_reference).toMatch(UUID)
  })

  it('shows every customer field as a string, "" for an email that was not sent', async () => {
    const s = newSandbox()
    const payment = await createPayment(
      s,
      paymentBody({ customer: { full_name: 'Awa Diop', phone: '+221770000001' } }),
    )
    expect(payment.customer).toEqual({ full_name: 'Awa Diop', email: '', phone: '+221770000001' })
  })

  it('builds meta.wallet_url from publicUrl (--public-url), whatever Host the request names', async () => {
    const s = newSandbox({ publicUrl: 'https://sandbox.example.dev/' })
    const req = await s.app.request('http://127.0.0.1:4010/v1/payments/create', {
      method: 'POST',
      headers: { Authorization: 'Bearer test-token', 'Content-Type': 'application/json' },
      body: JSON.stringify(paymentBody()),
    })
    const body = (await req.json()) as any
    expect(req.status, JSON.stringify(body)).toBe(200)
    const reference = body.data.payment.reference
    expect(body.data.payment.meta).toEqual({
      wallet_url: `https://sandbox.example.dev/__sandbox/checkout/${reference}`,
    })
  })

  it('sets expired_at 30 minutes after the sandbox clock, which moves when the clock is advanced', async () => {
    const s = newSandbox()
    const first = await createPayment(s)
    expect(first.expired_at).toBe('2026-01-01T00:30:00.000Z')

    const advanced = await s.call('POST', '/__sandbox/clock/advance', { by: '1h' })
    expect(advanced.status, JSON.stringify(advanced.body)).toBe(200)

    const second = await createPayment(s, paymentBody({ partner_reference: 'order-1002' }))
    expect(second.expired_at).toBe('2026-01-01T01:30:00.000Z')

    // The first payment keeps the expiry it was created with.
    const shown = await s.call('GET', `/v1/payments/${first.reference}`)
    expect(shown.body.data.expired_at).toBe('2026-01-01T00:30:00.000Z')
  })

  it.each(PAYMENT_NETWORKS)('accepts the SPEC §4.7 network %s', async (network) => {
    const s = newSandbox()
    const payment = await createPayment(s, paymentBody({ network }))
    expect(payment.network).toBe(network)
  })

  it('refuses a body without amount, network and customer, naming each (422)', async () => {
    const s = newSandbox()
    const res = await s.call('POST', '/v1/payments/create', {})
    expect(res.status, JSON.stringify(res.body)).toBe(422)
    expect(res.body).toEqual({
      message: expect.any(String),
      statusCode: 422,
      errors: {
        amount: [expect.any(String)],
        network: [expect.any(String)],
        customer: [expect.any(String)],
      },
    })
    expect(res.body.errors.amount[0]).toMatch(/amount.*required/)
    expect(res.body.errors.network[0]).toMatch(/network.*required/)
    expect(res.body.errors.customer[0]).toMatch(/customer.*required/)
  })

  it('refuses a request sent with no body at all, naming the required fields (422)', async () => {
    const s = newSandbox()
    const res = await s.call('POST', '/v1/payments/create')
    expect(res.status, JSON.stringify(res.body)).toBe(422)
    expect(Object.keys(res.body.errors).sort()).toEqual(['amount', 'customer', 'network'])
  })

  it.each(['bank', 'mtn-gh', 'Wave-SN', '', 42])(
    'refuses the network %j, listing the allowed ones (422)',
    async (network) => {
      const s = newSandbox()
      const res = await s.call('POST', '/v1/payments/create', paymentBody({ network }))
      expect(res.status, JSON.stringify(res.body)).toBe(422)
      expect(Object.keys(res.body.errors)).toEqual(['network'])
      expect(res.body.statusCode).toBe(422)
      expect(res.body.errors.network[0]).toContain(PAYMENT_NETWORKS.join(', '))
    },
  )

  it.each([
    ['a string', 'Awa Diop'],
    ['an array', []],
    ['a number', 42],
    ['true', true],
  ])('refuses a customer that is %s, naming customer (422)', async (_label, customer) => {
    const s = newSandbox()
    const res = await s.call('POST', '/v1/payments/create', paymentBody({ customer }))
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
      '/v1/payments/create',
      paymentBody({
        customer: { full_name: 'Awa Diop', email: 'not-an-email', phone: '+221770000001' },
      }),
    )
    expect(res.status, JSON.stringify(res.body)).toBe(422)
    expect(res.body).toEqual({
      message: 'The customer.email field must be a valid email address.',
      statusCode: 422,
      errors: { 'customer.email': ['The customer.email field must be a valid email address.'] },
    })
  })

  it.each([0, -5, 12.5, '5000', null])(
    'refuses the amount %j, naming amount (422)',
    async (amount) => {
      const s = newSandbox()
      const res = await s.call('POST', '/v1/payments/create', paymentBody({ amount }))
      expect(res.status, JSON.stringify(res.body)).toBe(422)
      expect(res.body.statusCode).toBe(422)
      expect(Object.keys(res.body.errors)).toEqual(['amount'])
    },
  )

  it('says a fractional or string amount must be an integer', async () => {
    const s = newSandbox()
    for (const amount of [12.5, '5000']) {
      const res = await s.call('POST', '/v1/payments/create', paymentBody({ amount }))
      expect(res.status, JSON.stringify(res.body)).toBe(422)
      expect(res.body.errors.amount).toEqual(['The amount field must be an integer.'])
    }
  })

  it('says a zero or negative amount must be at least 1 (amounts are positive integers)', async () => {
    const s = newSandbox()
    for (const amount of [0, -5]) {
      const res = await s.call('POST', '/v1/payments/create', paymentBody({ amount }))
      expect(res.status, JSON.stringify(res.body)).toBe(422)
      expect(res.body.errors.amount).toEqual(['The amount field must be at least 1.'])
    }
  })

  it('names every bad field at once, nested ones in dot notation (422)', async () => {
    const s = newSandbox()
    const res = await s.call('POST', '/v1/payments/create', {
      amount: 0,
      network: 'bank',
      customer: { email: 'nope', phone: '+221770000001' },
    })
    expect(res.status, JSON.stringify(res.body)).toBe(422)
    expect(Object.keys(res.body.errors).sort()).toEqual([
      'amount',
      'customer.email',
      'customer.full_name',
      'network',
    ])
    expect(res.body.message).toMatch(/\(and 3 more errors\)$/)
  })

  it('creates nothing when validation fails', async () => {
    const s = newSandbox()
    await s.call('POST', '/v1/payments/create', paymentBody({ amount: 0 }))
    const list = await s.call('GET', '/v1/payments')
    expect(list.body.data).toEqual([])
    expect(list.body.meta.total).toBe(0)
  })

  it('answers 401 without a bearer token', async () => {
    const s = newSandbox()
    const res = await s.call('POST', '/v1/payments/create', paymentBody(), { token: null })
    expect(res.status, JSON.stringify(res.body)).toBe(401)
    expect(res.body).toEqual({ message: expect.any(String), statusCode: 401 })
  })
})

describe('GET /v1/payments', () => {
  it('lists payments with kind "payment", meta [] and no partner_reference (quirks on)', async () => {
    const s = newSandbox()
    const created = await createPayment(s)
    const res = await s.call('GET', '/v1/payments')
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
          },
          slug: created.slug,
          reference: created.reference,
          kind: 'payment',
          network: 'wave-sn',
          amount: 5000,
          status: 'pending',
          expired_at: NOW_PLUS_30_MIN,
          meta: [],
        },
      ],
      meta: { current_page: 1, from: 1, last_page: 1, per_page: 20, to: 1, total: 1 },
    })
  })

  it('lists payments with meta {wallet_url} (quirks off)', async () => {
    const s = newSandbox({ quirks: false })
    const created = await createPayment(s)
    const res = await s.call('GET', '/v1/payments')
    expect(res.status, JSON.stringify(res.body)).toBe(200)
    expect(res.body).toEqual({
      message: expect.any(String),
      statusCode: 200,
      data: [
        {
          business: BUSINESS,
          customer: {
            full_name: 'Awa Diop',
            email: 'awa.diop@example.com',
            phone: '+221770000001',
          },
          slug: created.slug,
          reference: created.reference,
          kind: 'payment',
          network: 'wave-sn',
          amount: 5000,
          status: 'pending',
          expired_at: NOW_PLUS_30_MIN,
          meta: { wallet_url: CHECKOUT(created.reference) },
        },
      ],
      meta: { current_page: 1, from: 1, last_page: 1, per_page: 20, to: 1, total: 1 },
    })
  })

  it('answers an empty page with null bounds when there are no payments', async () => {
    const s = newSandbox()
    const res = await s.call('GET', '/v1/payments')
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
    for (const amount of [100, 200, 300])
      refs.push(
        (await createPayment(s, paymentBody({ amount, partner_reference: `order-${amount}` })))
          .reference,
      )
    const res = await s.call('GET', '/v1/payments')
    expect(res.body.data.map((p: any) => p.reference)).toEqual(refs.reverse())
    expect(res.body.data.map((p: any) => p.amount)).toEqual([300, 200, 100])
  })

  it('pages 20 at a time by default', async () => {
    const s = newSandbox()
    for (let i = 1; i <= 21; i++)
      await createPayment(s, paymentBody({ amount: i, partner_reference: `order-${i}` }))
    const first = await s.call('GET', '/v1/payments')
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

    const second = await s.call('GET', '/v1/payments?page=2')
    expect(second.body.data.map((p: any) => p.amount)).toEqual([1])
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
    for (let i = 1; i <= 5; i++)
      await createPayment(s, paymentBody({ amount: i, partner_reference: `order-${i}` }))
    const res = await s.call('GET', '/v1/payments?page=2&per_page=2')
    expect(res.status, JSON.stringify(res.body)).toBe(200)
    expect(res.body.data.map((p: any) => p.amount)).toEqual([3, 2])
    expect(res.body.meta).toEqual({
      current_page: 2,
      from: 3,
      last_page: 3,
      per_page: 2,
      to: 4,
      total: 5,
    })

    const beyond = await s.call('GET', '/v1/payments?page=4&per_page=2')
    expect(beyond.body.data).toEqual([])
    expect(beyond.body.meta).toEqual({
      current_page: 4,
      from: null,
      last_page: 3,
      per_page: 2,
      to: null,
      total: 5,
    })
  })

  it.each(['0', '101', 'abc', '-1'])(
    'refuses per_page=%s, naming per_page (422)',
    async (perPage) => {
      const s = newSandbox()
      const res = await s.call('GET', `/v1/payments?per_page=${perPage}`)
      expect(res.status, JSON.stringify(res.body)).toBe(422)
      expect(res.body).toEqual({
        message: expect.any(String),
        statusCode: 422,
        errors: { per_page: [expect.any(String)] },
      })
    },
  )

  it('refuses page=0, naming page (422)', async () => {
    const s = newSandbox()
    const res = await s.call('GET', '/v1/payments?page=0')
    expect(res.status, JSON.stringify(res.body)).toBe(422)
    expect(Object.keys(res.body.errors)).toEqual(['page'])
  })

  it('shows another tenant an empty list', async () => {
    const s = newSandbox()
    await createPayment(s)
    const res = await s.call('GET', '/v1/payments', undefined, { token: 'other' })
    expect(res.status, JSON.stringify(res.body)).toBe(200)
    expect(res.body.data).toEqual([])
    expect(res.body.meta.total).toBe(0)
  })

  it('shows the status a payment was moved to', async () => {
    const s = newSandbox()
    const payment = await createPayment(s)
    const moved = await s.call('POST', `/__sandbox/payments/${payment.reference}/transition`, {
      to: 'success',
    })
    expect(moved.status, JSON.stringify(moved.body)).toBe(200)
    const res = await s.call('GET', '/v1/payments')
    expect(res.body.data[0].status).toBe('success')
  })
})

describe('GET /v1/payments/{reference}', () => {
  it('shows one payment with kind "payment" and meta [] (quirks on)', async () => {
    const s = newSandbox()
    const created = await createPayment(s)
    const res = await s.call('GET', `/v1/payments/${created.reference}`)
    expect(res.status, JSON.stringify(res.body)).toBe(200)
    expect(res.body).toEqual({
      message: expect.any(String),
      statusCode: 200,
      data: {
        business: created.business,
        customer: { full_name: 'Awa Diop', email: 'awa.diop@example.com', phone: '+221770000001' },
        slug: created.slug,
        reference: created.reference,
        kind: 'payment',
        network: 'wave-sn',
        amount: 5000,
        status: 'pending',
        expired_at: NOW_PLUS_30_MIN,
        meta: [],
      },
    })
  })

  it('shows one payment with meta {wallet_url} (quirks off)', async () => {
    const s = newSandbox({ quirks: false })
    const created = await createPayment(s)
    const res = await s.call('GET', `/v1/payments/${created.reference}`)
    expect(res.status, JSON.stringify(res.body)).toBe(200)
    expect(res.body).toEqual({
      message: expect.any(String),
      statusCode: 200,
      data: {
        business: created.business,
        customer: { full_name: 'Awa Diop', email: 'awa.diop@example.com', phone: '+221770000001' },
        slug: created.slug,
        reference: created.reference,
        kind: 'payment',
        network: 'wave-sn',
        amount: 5000,
        status: 'pending',
        expired_at: NOW_PLUS_30_MIN,
        meta: { wallet_url: CHECKOUT(created.reference) },
      },
    })
  })

  it('answers 404 for an unknown reference', async () => {
    const s = newSandbox()
    await createPayment(s)
    const res = await s.call('GET', '/v1/payments/6f1c1c9e-2b7a-4c3e-9d1f-0a2b3c4d5e6f')
    expect(res.status, JSON.stringify(res.body)).toBe(404)
    expect(res.body).toEqual(
      expect.objectContaining({ message: expect.any(String), statusCode: 404 }),
    )
  })

  it('answers 404 for a reference that is not a UUID', async () => {
    const s = newSandbox()
    const res = await s.call('GET', '/v1/payments/not-a-uuid')
    expect(res.status, JSON.stringify(res.body)).toBe(404)
    expect(res.body).toEqual(
      expect.objectContaining({ message: expect.any(String), statusCode: 404 }),
    )
  })

  it("answers 404 for another tenant's payment", async () => {
    const s = newSandbox()
    const created = await createPayment(s)
    const res = await s.call('GET', `/v1/payments/${created.reference}`, undefined, {
      token: 'other',
    })
    expect(res.status, JSON.stringify(res.body)).toBe(404)
    expect(res.body).toEqual(
      expect.objectContaining({ message: expect.any(String), statusCode: 404 }),
    )
  })
})

describe('payment lifecycle through the control plane', () => {
  it('moves a pending payment to success, and the show answer says so', async () => {
    const s = newSandbox()
    const payment = await createPayment(s)
    const moved = await s.call('POST', `/__sandbox/payments/${payment.reference}/transition`, {
      to: 'success',
    })
    expect(moved.status, JSON.stringify(moved.body)).toBe(200)
    const res = await s.call('GET', `/v1/payments/${payment.reference}`)
    expect(res.body.data.status).toBe('success')
  })

  it.each(['failed', 'expired'])('moves a pending payment to %s', async (to) => {
    const s = newSandbox()
    const payment = await createPayment(s)
    const moved = await s.call('POST', `/__sandbox/payments/${payment.reference}/transition`, {
      to,
    })
    expect(moved.status, JSON.stringify(moved.body)).toBe(200)
    const res = await s.call('GET', `/v1/payments/${payment.reference}`)
    expect(res.body.data.status).toBe(to)
  })

  it('refuses pending → pending with 409 naming the allowed states', async () => {
    const s = newSandbox()
    const payment = await createPayment(s)
    const res = await s.call('POST', `/__sandbox/payments/${payment.reference}/transition`, {
      to: 'pending',
    })
    expect(res.status, JSON.stringify(res.body)).toBe(409)
    expect(res.body).toEqual({
      message: expect.any(String),
      statusCode: 409,
      from: 'pending',
      to: 'pending',
      allowed: ['success', 'failed', 'expired'],
    })
  })

  it('refuses success → failed with 409 and an empty allowed list, leaving the payment successful', async () => {
    const s = newSandbox()
    const payment = await createPayment(s)
    await s.call('POST', `/__sandbox/payments/${payment.reference}/transition`, { to: 'success' })
    const res = await s.call('POST', `/__sandbox/payments/${payment.reference}/transition`, {
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
    const shown = await s.call('GET', `/v1/payments/${payment.reference}`)
    expect(shown.body.data.status).toBe('success')
  })

  it('does not let another tenant move a payment (404)', async () => {
    const s = newSandbox()
    const payment = await createPayment(s)
    const res = await s.call(
      'POST',
      `/__sandbox/payments/${payment.reference}/transition`,
      { to: 'success' },
      { token: 'other' },
    )
    expect(res.status, JSON.stringify(res.body)).toBe(404)
    const shown = await s.call('GET', `/v1/payments/${payment.reference}`)
    expect(shown.body.data.status).toBe('pending')
  })
})

describe('idempotency', () => {
  it('refuses a payment repeating a partner_reference with 422, collecting nothing twice', async () => {
    const s = newSandbox()
    await createPayment(s)
    const again = await s.call('POST', '/v1/payments/create', paymentBody())
    expect(again.status).toBe(422)
    expect(again.body.errors).toEqual({
      partner_reference: [expect.stringMatching(/^The partner reference has already been used/)],
    })
    expect((await s.call('GET', '/v1/payments')).body.meta.total).toBe(1)
    // another tenant has its own references
    expect(
      (await s.call('POST', '/v1/payments/create', paymentBody(), { token: 'other' })).status,
    ).toBe(200)
  })
})
