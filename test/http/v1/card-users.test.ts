/**
 * /v1/card-users (SPEC §2.2, §2.3, §4.1; PRODUCT §2, §4, §5, §10): create (widget and full-data
 * flows), resubmit, list, and the doubled `/v1/v1` prefix, with quirks on and off.
 */
import { describe, expect, it } from 'vitest'
import { UUID, fullIdentity, newSandbox } from '../../helpers.js'

type Sandbox = ReturnType<typeof newSandbox>

const IN_PROGRESS = 'User verification in progress'
const LISTED = 'Card users fetched successfully'
/** `app.request()` resolves relative paths against this origin. */
const ORIGIN = 'http://localhost'
const LIST_PATH = `${ORIGIN}/v1/card-users`
const WIDGET_PHONE = '+221770000002'

async function createUser(
  sb: Sandbox,
  body: Record<string, unknown> = fullIdentity(),
  token?: string,
) {
  const res = await sb.call('POST', '/v1/card-users/create', body, { token })
  expect(res.status, JSON.stringify(res.body)).toBe(200)
  const reference: string = (res.body.data?.userCard ?? res.body.userCard).reference
  return reference
}

async function moveUser(sb: Sandbox, reference: string, to: string, token?: string) {
  const res = await sb.call(
    'POST',
    `/__sandbox/card-users/${reference}/transition`,
    { to },
    { token },
  )
  expect(res.status, JSON.stringify(res.body)).toBe(200)
}

/** The full record of SPEC §2.3 for the helper's identity, as the list and quirks-off show it. */
function identityRecord(overrides: Record<string, unknown> = {}) {
  return {
    reference: expect.stringMatching(UUID),
    first_name: 'Awa',
    last_name: 'Diop',
    address: '12 Rue Carnot, Dakar',
    phone: '+221770000001',
    email: 'awa.diop@example.com',
    id_no: '1234567890123',
    status: 'pending',
    ...overrides,
  }
}

function widgetRecord(overrides: Record<string, unknown> = {}) {
  return {
    reference: expect.stringMatching(UUID),
    first_name: null,
    last_name: null,
    address: null,
    phone: WIDGET_PHONE,
    email: null,
    id_no: null,
    status: 'pending',
    ...overrides,
  }
}

function meta(
  fields: Partial<
    Record<'current_page' | 'from' | 'last_page' | 'per_page' | 'to' | 'total', number | null>
  >,
) {
  return { current_page: 1, from: 1, last_page: 1, per_page: 20, to: 1, total: 1, ...fields }
}

describe('POST /v1/card-users/create', () => {
  describe('with quirks on (default)', () => {
    it('answers a widget registration (phone only) with message, statusCode and userCard at the top level, identity fields null', async () => {
      const sb = newSandbox()
      const res = await sb.call('POST', '/v1/card-users/create', { phone: WIDGET_PHONE })
      expect(res.status, JSON.stringify(res.body)).toBe(200)
      expect(res.body).toEqual({
        message: IN_PROGRESS,
        statusCode: 200,
        userCard: {
          reference: expect.stringMatching(UUID),
          first_name: null,
          last_name: null,
          address: null,
          phone: WIDGET_PHONE,
          email: null,
          id_no: null,
        },
      })
    })

    it('keeps the email sent with a widget registration', async () => {
      const sb = newSandbox()
      const res = await sb.call('POST', '/v1/card-users/create', {
        phone: WIDGET_PHONE,
        email: 'w@example.com',
      })
      expect(res.status, JSON.stringify(res.body)).toBe(200)
      expect(res.body).toEqual({
        message: IN_PROGRESS,
        statusCode: 200,
        userCard: {
          reference: expect.stringMatching(UUID),
          first_name: null,
          last_name: null,
          address: null,
          phone: WIDGET_PHONE,
          email: 'w@example.com',
          id_no: null,
        },
      })
    })

    it('lists the widget userCard fields in the order of the spec example', async () => {
      const sb = newSandbox()
      const res = await sb.call('POST', '/v1/card-users/create', { phone: WIDGET_PHONE })
      expect(Object.keys(res.body.userCard)).toEqual([
        'reference',
        'first_name',
        'last_name',
        'address',
        'phone',
        'email',
        'id_no',
      ])
    })

    it('answers a full-data submission with data.message and data.userCard (no status)', async () => {
      const sb = newSandbox()
      const res = await sb.call('POST', '/v1/card-users/create', fullIdentity())
      expect(res.status, JSON.stringify(res.body)).toBe(200)
      expect(res.body).toEqual({
        message: IN_PROGRESS,
        statusCode: 200,
        data: {
          message: IN_PROGRESS,
          userCard: {
            reference: expect.stringMatching(UUID),
            first_name: 'Awa',
            last_name: 'Diop',
            address: '12 Rue Carnot, Dakar',
            id_no: '1234567890123',
            phone: '+221770000001',
            email: 'awa.diop@example.com',
          },
        },
      })
    })

    it('lists the full-data userCard fields in the order of the spec example', async () => {
      const sb = newSandbox()
      const res = await sb.call('POST', '/v1/card-users/create', fullIdentity())
      expect(Object.keys(res.body.data.userCard)).toEqual([
        'reference',
        'first_name',
        'last_name',
        'address',
        'id_no',
        'phone',
        'email',
      ])
    })

    it('accepts full identity data without email or back_id_image', async () => {
      const sb = newSandbox()
      const { email: _email, back_id_image: _back, ...body } = fullIdentity()
      const res = await sb.call('POST', '/v1/card-users/create', body)
      expect(res.status, JSON.stringify(res.body)).toBe(200)
      expect(res.body.data.userCard).toEqual({
        reference: expect.stringMatching(UUID),
        first_name: 'Awa',
        last_name: 'Diop',
        address: '12 Rue Carnot, Dakar',
        id_no: '1234567890123',
        phone: '+221770000001',
        email: null,
      })
    })

    it('gives every new card user a distinct reference', async () => {
      const sb = newSandbox()
      const a = await createUser(sb, { phone: WIDGET_PHONE })
      const b = await createUser(sb, fullIdentity())
      expect(a).not.toBe(b)
    })
  })

  describe('with quirks off', () => {
    it('answers a widget registration with the clean envelope: data.message and data.userCard with status pending', async () => {
      const sb = newSandbox({ quirks: false })
      const res = await sb.call('POST', '/v1/card-users/create', { phone: WIDGET_PHONE })
      expect(res.status, JSON.stringify(res.body)).toBe(200)
      expect(res.body).toEqual({
        message: IN_PROGRESS,
        statusCode: 200,
        data: { message: IN_PROGRESS, userCard: widgetRecord() },
      })
    })

    it('answers a full-data submission with the full card-user record under data.userCard', async () => {
      const sb = newSandbox({ quirks: false })
      const res = await sb.call('POST', '/v1/card-users/create', fullIdentity())
      expect(res.status, JSON.stringify(res.body)).toBe(200)
      expect(res.body).toEqual({
        message: IN_PROGRESS,
        statusCode: 200,
        data: { message: IN_PROGRESS, userCard: identityRecord() },
      })
    })
  })

  describe('validation', () => {
    it('requires phone (422 in Laravel shape naming phone)', async () => {
      const sb = newSandbox()
      const res = await sb.call('POST', '/v1/card-users/create', { email: 'w@example.com' })
      expect(res.status, JSON.stringify(res.body)).toBe(422)
      expect(res.body).toEqual({
        message: 'The phone field is required.',
        statusCode: 422,
        errors: { phone: ['The phone field is required.'] },
      })
    })

    it('treats a request without a body as missing phone', async () => {
      const sb = newSandbox()
      const res = await sb.call('POST', '/v1/card-users/create')
      expect(res.status, JSON.stringify(res.body)).toBe(422)
      expect(res.body.errors).toEqual({ phone: ['The phone field is required.'] })
    })

    it('names every bad field at once: missing phone and a malformed email', async () => {
      const sb = newSandbox()
      const res = await sb.call('POST', '/v1/card-users/create', { email: 'not-an-email' })
      expect(res.status, JSON.stringify(res.body)).toBe(422)
      expect(res.body).toEqual({
        message: 'The phone field is required. (and 1 more error)',
        statusCode: 422,
        errors: {
          phone: ['The phone field is required.'],
          email: ['The email field must be a valid email address.'],
        },
      })
    })

    it('refuses a phone that is not a phone number', async () => {
      const sb = newSandbox()
      const res = await sb.call('POST', '/v1/card-users/create', { phone: 'call me' })
      expect(res.status, JSON.stringify(res.body)).toBe(422)
      expect(res.body).toEqual({
        message: 'The phone field must be a valid phone number.',
        statusCode: 422,
        errors: { phone: ['The phone field must be a valid phone number.'] },
      })
    })

    it('refuses a phone sent as a number rather than a string', async () => {
      const sb = newSandbox()
      const res = await sb.call('POST', '/v1/card-users/create', { phone: 221770000001 })
      expect(res.status, JSON.stringify(res.body)).toBe(422)
      expect(res.body.errors).toEqual({ phone: ['The phone field must be a string.'] })
    })

    it('requires the rest of the identity once part of it is sent, naming each missing field', async () => {
      const sb = newSandbox()
      const res = await sb.call('POST', '/v1/card-users/create', {
        phone: WIDGET_PHONE,
        first_name: 'Awa',
      })
      expect(res.status, JSON.stringify(res.body)).toBe(422)
      expect(res.body.statusCode).toBe(422)
      expect(res.body.message).toBe(
        'The last name field is required when identity data is sent. (and 4 more errors)',
      )
      expect(res.body.errors).toEqual({
        last_name: ['The last name field is required when identity data is sent.'],
        address: ['The address field is required when identity data is sent.'],
        id_no: ['The id no field is required when identity data is sent.'],
        selfie_image: ['The selfie image field is required when identity data is sent.'],
        id_image: ['The id image field is required when identity data is sent.'],
      })
    })

    it('names the missing phone and the missing identity fields together when partial identity data comes without a phone', async () => {
      const sb = newSandbox()
      const { phone: _phone, last_name: _last, ...body } = fullIdentity()
      const res = await sb.call('POST', '/v1/card-users/create', body)
      expect(res.status, JSON.stringify(res.body)).toBe(422)
      expect(Object.keys(res.body.errors).sort()).toEqual(['last_name', 'phone'])
    })

    it('names a bad phone and the missing identity fields together', async () => {
      const sb = newSandbox()
      const { last_name: _last, ...body } = fullIdentity({ phone: 'call me' })
      const res = await sb.call('POST', '/v1/card-users/create', body)
      expect(res.status, JSON.stringify(res.body)).toBe(422)
      expect(Object.keys(res.body.errors).sort()).toEqual(['last_name', 'phone'])
    })

    it('refuses image links that are not http(s) URLs and empty identity strings', async () => {
      const sb = newSandbox()
      const res = await sb.call(
        'POST',
        '/v1/card-users/create',
        fullIdentity({
          selfie_image: 'not a url',
          id_image: 'ftp://img.example.com/id.jpg',
          first_name: '',
        }),
      )
      expect(res.status, JSON.stringify(res.body)).toBe(422)
      expect(Object.keys(res.body.errors).sort()).toEqual([
        'first_name',
        'id_image',
        'selfie_image',
      ])
      expect(res.body.errors.first_name).toEqual(['The first name field is required.'])
      expect(res.body.errors.selfie_image).toEqual(['The selfie image field must be a valid URL.'])
    })

    it('answers validation errors in the same Laravel shape with quirks off', async () => {
      const sb = newSandbox({ quirks: false })
      const res = await sb.call('POST', '/v1/card-users/create', { email: 'not-an-email' })
      expect(res.status, JSON.stringify(res.body)).toBe(422)
      expect(res.body).toEqual({
        message: 'The phone field is required. (and 1 more error)',
        statusCode: 422,
        errors: {
          phone: ['The phone field is required.'],
          email: ['The email field must be a valid email address.'],
        },
      })
    })

    it('creates nothing when the body is refused', async () => {
      const sb = newSandbox()
      await sb.call('POST', '/v1/card-users/create', { phone: WIDGET_PHONE, first_name: 'Awa' })
      const list = await sb.call('GET', '/v1/card-users')
      expect(list.body.meta.total).toBe(0)
    })
  })
})

describe('POST /v1/v1/card-users/create (doubled prefix)', () => {
  it('is accepted with quirks on and answers like the canonical path', async () => {
    const sb = newSandbox()
    const res = await sb.call('POST', '/v1/v1/card-users/create', { phone: WIDGET_PHONE })
    expect(res.status, JSON.stringify(res.body)).toBe(200)
    expect(res.body).toEqual({
      message: IN_PROGRESS,
      statusCode: 200,
      userCard: {
        reference: expect.stringMatching(UUID),
        first_name: null,
        last_name: null,
        address: null,
        phone: WIDGET_PHONE,
        email: null,
        id_no: null,
      },
    })
    const list = await sb.call('GET', '/v1/card-users')
    expect(list.body.meta.total).toBe(1)
    expect(list.body.data[0].data[0].reference).toBe(res.body.userCard.reference)
  })

  it('validates like the canonical path with quirks on', async () => {
    const sb = newSandbox()
    const res = await sb.call('POST', '/v1/v1/card-users/create', {})
    expect(res.status, JSON.stringify(res.body)).toBe(422)
    expect(res.body.errors).toEqual({ phone: ['The phone field is required.'] })
  })

  it('is an unknown route (404, JSON) with quirks off', async () => {
    const sb = newSandbox({ quirks: false })
    const res = await sb.call('POST', '/v1/v1/card-users/create', { phone: WIDGET_PHONE })
    expect(res.status, JSON.stringify(res.body)).toBe(404)
    expect(res.body).toEqual({
      message: 'The route /v1/v1/card-users/create could not be found.',
      statusCode: 404,
    })
    const list = await sb.call('GET', '/v1/card-users')
    expect(list.body.meta.total).toBe(0)
  })
})

describe('POST /v1/card-users/resubmit', () => {
  it('puts a failed full-data user back to pending and answers data.message + data.userCard with the new values (quirks on)', async () => {
    const sb = newSandbox()
    const reference = await createUser(sb)
    await moveUser(sb, reference, 'failed')
    const res = await sb.call('POST', '/v1/card-users/resubmit', {
      card_user_reference: reference,
      address: '3 Avenue Senghor, Dakar',
      id_image: 'https://img.example.com/id-front-2.jpg',
    })
    expect(res.status, JSON.stringify(res.body)).toBe(200)
    expect(res.body).toEqual({
      message: IN_PROGRESS,
      statusCode: 200,
      data: {
        message: IN_PROGRESS,
        userCard: {
          reference,
          first_name: 'Awa',
          last_name: 'Diop',
          address: '3 Avenue Senghor, Dakar',
          id_no: '1234567890123',
          phone: '+221770000001',
          email: 'awa.diop@example.com',
        },
      },
    })
    const list = await sb.call('GET', '/v1/card-users')
    expect(list.body.data[0].data).toEqual([
      identityRecord({ reference, address: '3 Avenue Senghor, Dakar', status: 'pending' }),
    ])
  })

  it('answers a failed widget-flow user with userCard at the top level (quirks on)', async () => {
    const sb = newSandbox()
    const reference = await createUser(sb, { phone: WIDGET_PHONE })
    await moveUser(sb, reference, 'failed')
    const res = await sb.call('POST', '/v1/card-users/resubmit', {
      card_user_reference: reference,
      phone: '+221770000009',
    })
    expect(res.status, JSON.stringify(res.body)).toBe(200)
    expect(res.body).toEqual({
      message: IN_PROGRESS,
      statusCode: 200,
      userCard: {
        reference,
        first_name: null,
        last_name: null,
        address: null,
        phone: '+221770000009',
        email: null,
        id_no: null,
      },
    })
    const list = await sb.call('GET', '/v1/card-users')
    expect(list.body.data[0].data[0]).toEqual(widgetRecord({ reference, phone: '+221770000009' }))
  })

  it('answers the clean envelope with the full record and status pending with quirks off', async () => {
    const sb = newSandbox({ quirks: false })
    const reference = await createUser(sb)
    await moveUser(sb, reference, 'failed')
    const res = await sb.call('POST', '/v1/card-users/resubmit', { card_user_reference: reference })
    expect(res.status, JSON.stringify(res.body)).toBe(200)
    expect(res.body).toEqual({
      message: IN_PROGRESS,
      statusCode: 200,
      data: { message: IN_PROGRESS, userCard: identityRecord({ reference }) },
    })
    const list = await sb.call('GET', '/v1/card-users')
    expect(list.body.data).toEqual([identityRecord({ reference, status: 'pending' })])
  })

  it('takes new values for a user still pending, who stays pending', async () => {
    const sb = newSandbox()
    const reference = await createUser(sb)
    const res = await sb.call('POST', '/v1/card-users/resubmit', {
      card_user_reference: reference,
      address: '3 Avenue Senghor, Dakar',
    })
    expect(res.status, JSON.stringify(res.body)).toBe(200)
    const list = await sb.call('GET', '/v1/card-users')
    expect(list.body.data[0].data).toEqual([
      identityRecord({ reference, address: '3 Avenue Senghor, Dakar', status: 'pending' }),
    ])
  })

  it('refuses to resubmit a user who passed verification (409 with the allowed states) and leaves them passed', async () => {
    const sb = newSandbox()
    const reference = await sb.verifiedUser()
    const res = await sb.call('POST', '/v1/card-users/resubmit', {
      card_user_reference: reference,
      address: 'elsewhere',
    })
    expect(res.status, JSON.stringify(res.body)).toBe(409)
    expect(res.body).toEqual({
      message: 'A card user cannot move from passed to pending.',
      statusCode: 409,
      from: 'passed',
      to: 'pending',
      allowed: [],
    })
    const list = await sb.call('GET', '/v1/card-users')
    expect(list.body.data[0].data[0]).toMatchObject({
      reference,
      status: 'passed',
      address: '12 Rue Carnot, Dakar',
    })
  })

  it('answers 404 naming card_user_reference for an unknown card user', async () => {
    const sb = newSandbox()
    const unknown = '0b6b1c1e-2f7a-4c1e-9d3b-3f2a1e4c5d6e'
    const res = await sb.call('POST', '/v1/card-users/resubmit', { card_user_reference: unknown })
    expect(res.status, JSON.stringify(res.body)).toBe(404)
    expect(res.body).toEqual({
      message: expect.any(String),
      statusCode: 404,
      errors: { card_user_reference: [expect.any(String)] },
    })
  })

  it("answers 404 naming card_user_reference for another tenant's card user and leaves it unchanged", async () => {
    const sb = newSandbox()
    const theirs = await createUser(sb, fullIdentity(), 'other')
    await moveUser(sb, theirs, 'failed', 'other')
    const res = await sb.call('POST', '/v1/card-users/resubmit', { card_user_reference: theirs })
    expect(res.status, JSON.stringify(res.body)).toBe(404)
    expect(Object.keys(res.body.errors)).toEqual(['card_user_reference'])
    const list = await sb.call('GET', '/v1/card-users', undefined, { token: 'other' })
    expect(list.body.data[0].data[0]).toMatchObject({ reference: theirs, status: 'failed' })
  })

  it('requires card_user_reference (422)', async () => {
    const sb = newSandbox()
    const res = await sb.call('POST', '/v1/card-users/resubmit', { phone: WIDGET_PHONE })
    expect(res.status, JSON.stringify(res.body)).toBe(422)
    expect(res.body).toEqual({
      message: 'The card user reference field is required.',
      statusCode: 422,
      errors: { card_user_reference: ['The card user reference field is required.'] },
    })
  })

  it('refuses a card_user_reference that is not a UUID and names every other bad field too', async () => {
    const sb = newSandbox()
    const res = await sb.call('POST', '/v1/card-users/resubmit', {
      card_user_reference: 'abc',
      email: 'nope',
    })
    expect(res.status, JSON.stringify(res.body)).toBe(422)
    expect(res.body).toEqual({
      message: 'The card user reference field must be a valid UUID. (and 1 more error)',
      statusCode: 422,
      errors: {
        card_user_reference: ['The card user reference field must be a valid UUID.'],
        email: ['The email field must be a valid email address.'],
      },
    })
  })
})

describe('GET /v1/card-users', () => {
  describe('with quirks on (default)', () => {
    it('wraps one Laravel paginator (data, links, meta with path and links) in the data array, plus meta', async () => {
      const sb = newSandbox()
      const reference = await createUser(sb)
      const res = await sb.call('GET', '/v1/card-users')
      expect(res.status, JSON.stringify(res.body)).toBe(200)
      expect(res.body).toEqual({
        message: LISTED,
        statusCode: 200,
        data: [
          {
            data: [identityRecord({ reference })],
            links: {
              first: `${LIST_PATH}?page=1`,
              last: `${LIST_PATH}?page=1`,
              prev: null,
              next: null,
            },
            meta: {
              current_page: 1,
              from: 1,
              last_page: 1,
              links: [
                { url: null, label: '&laquo; Previous', active: false },
                { url: `${LIST_PATH}?page=1`, label: '1', active: true },
                { url: null, label: 'Next &raquo;', active: false },
              ],
              path: LIST_PATH,
              per_page: 20,
              to: 1,
              total: 1,
            },
          },
        ],
        meta: meta({}),
      })
    })

    it('answers an empty paginator with null from/to when the tenant has no card users', async () => {
      const sb = newSandbox()
      const res = await sb.call('GET', '/v1/card-users')
      expect(res.status, JSON.stringify(res.body)).toBe(200)
      expect(res.body).toEqual({
        message: LISTED,
        statusCode: 200,
        data: [
          {
            data: [],
            links: {
              first: `${LIST_PATH}?page=1`,
              last: `${LIST_PATH}?page=1`,
              prev: null,
              next: null,
            },
            meta: {
              current_page: 1,
              from: null,
              last_page: 1,
              links: [
                { url: null, label: '&laquo; Previous', active: false },
                { url: `${LIST_PATH}?page=1`, label: '1', active: true },
                { url: null, label: 'Next &raquo;', active: false },
              ],
              path: LIST_PATH,
              per_page: 20,
              to: null,
              total: 0,
            },
          },
        ],
        meta: meta({ from: null, to: null, total: 0 }),
      })
    })

    it('shows widget-flow users with null identity fields and their status', async () => {
      const sb = newSandbox()
      const reference = await createUser(sb, { phone: WIDGET_PHONE })
      const res = await sb.call('GET', '/v1/card-users')
      expect(res.body.data[0].data).toEqual([widgetRecord({ reference })])
    })

    it('points the paginator links at the page asked for, keeping a non-default per_page', async () => {
      const sb = newSandbox()
      for (let i = 0; i < 5; i++) await createUser(sb, { phone: `+22177000010${i}` })
      const res = await sb.call('GET', '/v1/card-users?page=2&per_page=2')
      expect(res.status, JSON.stringify(res.body)).toBe(200)
      const url = (n: number) => `${LIST_PATH}?page=${n}&per_page=2`
      const paginator = res.body.data[0]
      expect(paginator.links).toEqual({ first: url(1), last: url(3), prev: url(1), next: url(3) })
      expect(paginator.meta).toEqual({
        current_page: 2,
        from: 3,
        last_page: 3,
        links: [
          { url: url(1), label: '&laquo; Previous', active: false },
          { url: url(1), label: '1', active: false },
          { url: url(2), label: '2', active: true },
          { url: url(3), label: '3', active: false },
          { url: url(3), label: 'Next &raquo;', active: false },
        ],
        path: LIST_PATH,
        per_page: 2,
        to: 4,
        total: 5,
      })
      expect(res.body.meta).toEqual(
        meta({ current_page: 2, from: 3, last_page: 3, per_page: 2, to: 4, total: 5 }),
      )
    })
  })

  describe('with quirks off', () => {
    it('answers a clean list: data is the array of card users, meta beside it', async () => {
      const sb = newSandbox({ quirks: false })
      const widget = await createUser(sb, { phone: WIDGET_PHONE })
      const full = await createUser(sb)
      const res = await sb.call('GET', '/v1/card-users')
      expect(res.status, JSON.stringify(res.body)).toBe(200)
      expect(res.body).toEqual({
        message: LISTED,
        statusCode: 200,
        data: [identityRecord({ reference: full }), widgetRecord({ reference: widget })],
        meta: meta({ to: 2, total: 2 }),
      })
    })

    it('answers an empty list with null from/to', async () => {
      const sb = newSandbox({ quirks: false })
      const res = await sb.call('GET', '/v1/card-users')
      expect(res.body).toEqual({
        message: LISTED,
        statusCode: 200,
        data: [],
        meta: meta({ from: null, to: null, total: 0 }),
      })
    })

    it('shows each status as it moves: passed and failed', async () => {
      const sb = newSandbox({ quirks: false })
      const passed = await sb.verifiedUser()
      const failed = await createUser(sb)
      await moveUser(sb, failed, 'failed')
      const res = await sb.call('GET', '/v1/card-users')
      expect(
        res.body.data.map((u: { reference: string; status: string }) => [u.reference, u.status]),
      ).toEqual([
        [failed, 'failed'],
        [passed, 'passed'],
      ])
    })
  })

  describe('pagination', () => {
    it('lists newest first', async () => {
      const sb = newSandbox({ quirks: false })
      const first = await createUser(sb, { phone: '+221770000101' })
      const second = await createUser(sb, { phone: '+221770000102' })
      const third = await createUser(sb, { phone: '+221770000103' })
      const res = await sb.call('GET', '/v1/card-users')
      expect(res.body.data.map((u: { reference: string }) => u.reference)).toEqual([
        third,
        second,
        first,
      ])
    })

    it('pages by 20 by default', async () => {
      const sb = newSandbox({ quirks: false })
      const refs: string[] = []
      for (let i = 0; i < 21; i++)
        refs.push(await createUser(sb, { phone: `+2217700002${String(i).padStart(2, '0')}` }))
      const page1 = await sb.call('GET', '/v1/card-users')
      expect(page1.body.data).toHaveLength(20)
      expect(page1.body.data[0].reference).toBe(refs[20])
      expect(page1.body.meta).toEqual(meta({ last_page: 2, to: 20, total: 21 }))
      const page2 = await sb.call('GET', '/v1/card-users?page=2')
      expect(page2.body.data.map((u: { reference: string }) => u.reference)).toEqual([refs[0]])
      expect(page2.body.meta).toEqual(
        meta({ current_page: 2, from: 21, last_page: 2, to: 21, total: 21 }),
      )
    })

    it('honours page and per_page', async () => {
      const sb = newSandbox({ quirks: false })
      const refs: string[] = []
      for (let i = 0; i < 5; i++) refs.push(await createUser(sb, { phone: `+22177000030${i}` }))
      const res = await sb.call('GET', '/v1/card-users?page=2&per_page=2')
      expect(res.status, JSON.stringify(res.body)).toBe(200)
      expect(res.body.data.map((u: { reference: string }) => u.reference)).toEqual([
        refs[2],
        refs[1],
      ])
      expect(res.body.meta).toEqual(
        meta({ current_page: 2, from: 3, last_page: 3, per_page: 2, to: 4, total: 5 }),
      )
    })

    it('answers a page past the last with no rows and null from/to', async () => {
      const sb = newSandbox({ quirks: false })
      await createUser(sb)
      const res = await sb.call('GET', '/v1/card-users?page=3')
      expect(res.status, JSON.stringify(res.body)).toBe(200)
      expect(res.body.data).toEqual([])
      expect(res.body.meta).toEqual(meta({ current_page: 3, from: null, to: null, total: 1 }))
    })

    it.each([
      ['page=0', 'page'],
      ['per_page=101', 'per_page'],
      ['per_page=abc', 'per_page'],
      ['per_page=0', 'per_page'],
      ['page=-1', 'page'],
      ['page=1.5', 'page'],
    ])('refuses %s with 422 naming %s', async (query, field) => {
      const sb = newSandbox()
      const res = await sb.call('GET', `/v1/card-users?${query}`)
      expect(res.status, JSON.stringify(res.body)).toBe(422)
      expect(res.body).toEqual({
        message: expect.any(String),
        statusCode: 422,
        errors: { [field]: [expect.any(String)] },
      })
    })

    it('names both page and per_page when both are bad', async () => {
      const sb = newSandbox()
      const res = await sb.call('GET', '/v1/card-users?page=0&per_page=101')
      expect(res.status, JSON.stringify(res.body)).toBe(422)
      expect(res.body.errors).toEqual({
        page: ['The page field must be at least 1.'],
        per_page: ['The per page field must not be greater than 100.'],
      })
    })

    it('accepts per_page=100, the largest page', async () => {
      const sb = newSandbox({ quirks: false })
      await createUser(sb)
      const res = await sb.call('GET', '/v1/card-users?per_page=100')
      expect(res.status, JSON.stringify(res.body)).toBe(200)
      expect(res.body.meta).toEqual(meta({ per_page: 100 }))
    })
  })

  it("never shows another tenant's card users", async () => {
    const sb = newSandbox({ quirks: false })
    await createUser(sb, fullIdentity(), 'other')
    const mine = await createUser(sb, { phone: WIDGET_PHONE })
    const res = await sb.call('GET', '/v1/card-users')
    expect(res.body.data.map((u: { reference: string }) => u.reference)).toEqual([mine])
    expect(res.body.meta.total).toBe(1)
  })
})

describe('GET /v1/card-users/{reference}', () => {
  const UNKNOWN = '0b6b1c1e-2f7a-4c1e-9d3b-3f2a1e4c5d6e'

  it('answers data.cardUser with the docs fields, in their order, and created_at', async () => {
    const sb = newSandbox()
    const reference = await createUser(sb)
    // full-data verification passes by itself after its delay
    await sb.call('POST', '/__sandbox/clock/advance', { by: '90s' })
    const res = await sb.call('GET', `/v1/card-users/${reference}`)
    expect(res.status, JSON.stringify(res.body)).toBe(200)
    expect(res.body).toEqual({
      message: 'OK',
      statusCode: 200,
      data: {
        cardUser: {
          reference,
          first_name: 'Awa',
          last_name: 'Diop',
          address: '12 Rue Carnot, Dakar',
          id_no: '1234567890123',
          phone: '+221770000001',
          email: 'awa.diop@example.com',
          status: 'passed',
          // when it was created, not when it last changed
          created_at: '2026-01-01T00:00:00.000000Z',
        },
      },
    })
    expect(Object.keys(res.body.data.cardUser)).toEqual([
      'reference',
      'first_name',
      'last_name',
      'address',
      'id_no',
      'phone',
      'email',
      'status',
      'created_at',
    ])
  })

  it('shows a widget-flow user as pending with null identity, and plain ISO time with quirks off', async () => {
    const sb = newSandbox({ quirks: false })
    const reference = await createUser(sb, { phone: WIDGET_PHONE })
    const res = await sb.call('GET', `/v1/card-users/${reference}`)
    expect(res.body.data.cardUser).toEqual({
      reference,
      first_name: null,
      last_name: null,
      address: null,
      id_no: null,
      phone: WIDGET_PHONE,
      email: null,
      status: 'pending',
      created_at: '2026-01-01T00:00:00.000Z',
    })
  })

  it('answers under the doubled /v1/v1 prefix with quirks on, as the other card-user routes', async () => {
    const sb = newSandbox()
    const reference = await createUser(sb)
    const res = await sb.call('GET', `/v1/v1/card-users/${reference}`)
    expect(res.status).toBe(200)
    expect(res.body.data.cardUser.reference).toBe(reference)
  })

  it("answers the Laravel-shaped 404 for an unknown reference, another tenant's, or a non-UUID", async () => {
    const sb = newSandbox()
    const theirs = await createUser(sb, fullIdentity(), 'other')
    for (const reference of [UNKNOWN, theirs]) {
      const res = await sb.call('GET', `/v1/card-users/${reference}`)
      expect(res.status, reference).toBe(404)
      expect(res.body).toEqual({
        message: `No card user found for reference "${reference}".`,
        statusCode: 404,
        errors: { reference: [`No card user found for reference "${reference}".`] },
      })
    }
    const bad = await sb.call('GET', '/v1/card-users/not-a-uuid')
    expect(bad.status).toBe(404)
    expect(bad.body.statusCode).toBe(404)
  })

  it('never takes a literal route for a reference: GET create and resubmit stay 405', async () => {
    const sb = newSandbox()
    for (const path of [
      '/v1/card-users/create',
      '/v1/card-users/resubmit',
      '/v1/v1/card-users/create',
    ]) {
      const res = await sb.call('GET', path)
      expect(res.status, path).toBe(405)
      expect(res.headers.get('Allow')).toBe('POST')
    }
  })
})
