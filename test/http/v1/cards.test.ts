/**
 * /v1/cards (SPEC §2.2, §2.4, §3, §4.3; PRODUCT §2, §4, §5, §10): create, link, freeze,
 * unfreeze and list, with quirks on and off, and the issuing lifecycle via the control plane.
 */
import { describe, expect, it } from 'vitest'
import { UUID, fullIdentity, newSandbox } from '../../helpers.js'

type Sandbox = ReturnType<typeof newSandbox>

const GENERATING = 'Card is being generated'
const FROZEN = 'Card frozen successfully'
const UNFROZEN = 'Card unfrozen successfully'
const LISTED = 'Cards fetched successfully'
const UNKNOWN = '0b6b1c1e-2f7a-4c1e-9d3b-3f2a1e4c5d6e'

/** The card object of SPEC §2.4 as it is while issuing. */
function issuingCard(overrides: Record<string, unknown> = {}) {
  return {
    reference: expect.stringMatching(UUID),
    card_number: null,
    card_brand: 'Visa',
    card_type: 'virtual',
    cvv2: null,
    expiry: null,
    balance: 0,
    status: 'issuing',
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

function isLuhnValid(number: string): boolean {
  let sum = 0
  for (let i = 0; i < number.length; i++) {
    let digit = Number(number[number.length - 1 - i])
    if (i % 2 === 1) {
      digit *= 2
      if (digit > 9) digit -= 9
    }
    sum += digit
  }
  return sum % 10 === 0
}

async function createCard(
  sb: Sandbox,
  user: string,
  brand = 'visa',
  type = 'virtual',
  token?: string,
) {
  const res = await sb.call(
    'POST',
    '/v1/cards/create',
    { card_user_reference: user, card_brand: brand, card_type: type },
    { token },
  )
  expect(res.status, JSON.stringify(res.body)).toBe(200)
  const reference: string = (res.body.data?.card ?? res.body.card).reference
  return reference
}

async function moveCard(sb: Sandbox, reference: string, to: string, token?: string) {
  const res = await sb.call('POST', `/__sandbox/cards/${reference}/transition`, { to }, { token })
  expect(res.status, JSON.stringify(res.body)).toBe(200)
}

async function pendingUser(sb: Sandbox, token?: string) {
  const res = await sb.call('POST', '/v1/card-users/create', fullIdentity(), { token })
  expect(res.status, JSON.stringify(res.body)).toBe(200)
  return res.body.data.userCard.reference as string
}

describe('POST /v1/cards/create', () => {
  describe('with quirks on (default)', () => {
    it('answers data.card in status issuing with null number, cvv2 and expiry, balance 0 and a capitalised brand', async () => {
      const sb = newSandbox()
      const user = await sb.verifiedUser()
      const res = await sb.call('POST', '/v1/cards/create', {
        card_user_reference: user,
        card_brand: 'visa',
        card_type: 'virtual',
      })
      expect(res.status, JSON.stringify(res.body)).toBe(200)
      expect(res.body).toEqual({
        message: GENERATING,
        statusCode: 200,
        data: { card: issuingCard() },
      })
      expect(res.body.data.card).not.toHaveProperty('identifier')
    })

    it.each([
      ['mastercard', 'physical', 'Mastercard'],
      ['gim', 'virtual', 'Gim'],
    ])('capitalises the %s brand and echoes card_type %s', async (brand, type, shown) => {
      const sb = newSandbox()
      const user = await sb.verifiedUser()
      const res = await sb.call('POST', '/v1/cards/create', {
        card_user_reference: user,
        card_brand: brand,
        card_type: type,
      })
      expect(res.status, JSON.stringify(res.body)).toBe(200)
      expect(res.body).toEqual({
        message: GENERATING,
        statusCode: 200,
        data: { card: issuingCard({ card_brand: shown, card_type: type }) },
      })
    })

    it('lets one card user hold several cards, each with its own reference', async () => {
      const sb = newSandbox()
      const user = await sb.verifiedUser()
      const a = await createCard(sb, user)
      const b = await createCard(sb, user, 'gim', 'physical')
      expect(a).not.toBe(b)
    })
  })

  describe('with quirks off', () => {
    it('answers the card beside message and statusCode (no data), brand lowercase', async () => {
      const sb = newSandbox({ quirks: false })
      const user = await sb.verifiedUser()
      const res = await sb.call('POST', '/v1/cards/create', {
        card_user_reference: user,
        card_brand: 'mastercard',
        card_type: 'physical',
      })
      expect(res.status, JSON.stringify(res.body)).toBe(200)
      expect(res.body).toEqual({
        message: GENERATING,
        statusCode: 200,
        card: issuingCard({ card_brand: 'mastercard', card_type: 'physical' }),
      })
    })
  })

  describe('validation', () => {
    it('requires all three fields, naming each (422, Laravel shape)', async () => {
      const sb = newSandbox()
      const res = await sb.call('POST', '/v1/cards/create', {})
      expect(res.status, JSON.stringify(res.body)).toBe(422)
      expect(res.body).toEqual({
        message: 'The card user reference field is required. (and 2 more errors)',
        statusCode: 422,
        errors: {
          card_user_reference: ['The card user reference field is required.'],
          card_brand: ['The card brand field is required.'],
          card_type: ['The card type field is required.'],
        },
      })
    })

    it('refuses a brand or type outside the enums, naming both', async () => {
      const sb = newSandbox()
      const user = await sb.verifiedUser()
      const res = await sb.call('POST', '/v1/cards/create', {
        card_user_reference: user,
        card_brand: 'amex',
        card_type: 'plastic',
      })
      expect(res.status, JSON.stringify(res.body)).toBe(422)
      expect(res.body).toEqual({
        message: expect.any(String),
        statusCode: 422,
        errors: {
          card_brand: ['The selected card brand is invalid. Allowed: visa, mastercard, gim.'],
          card_type: ['The selected card type is invalid. Allowed: virtual, physical.'],
        },
      })
    })

    it('refuses a capitalised brand on input (the enum is lowercase)', async () => {
      const sb = newSandbox()
      const user = await sb.verifiedUser()
      const res = await sb.call('POST', '/v1/cards/create', {
        card_user_reference: user,
        card_brand: 'Visa',
        card_type: 'virtual',
      })
      expect(res.status, JSON.stringify(res.body)).toBe(422)
      expect(Object.keys(res.body.errors)).toEqual(['card_brand'])
    })

    it('refuses a card_user_reference that is not a UUID', async () => {
      const sb = newSandbox()
      const res = await sb.call('POST', '/v1/cards/create', {
        card_user_reference: 'user-1',
        card_brand: 'visa',
        card_type: 'virtual',
      })
      expect(res.status, JSON.stringify(res.body)).toBe(422)
      expect(res.body).toEqual({
        message: 'The card user reference field must be a valid UUID.',
        statusCode: 422,
        errors: { card_user_reference: ['The card user reference field must be a valid UUID.'] },
      })
    })
  })

  describe('business rules', () => {
    it('answers 404 naming card_user_reference for an unknown card user', async () => {
      const sb = newSandbox()
      const res = await sb.call('POST', '/v1/cards/create', {
        card_user_reference: UNKNOWN,
        card_brand: 'visa',
        card_type: 'virtual',
      })
      expect(res.status, JSON.stringify(res.body)).toBe(404)
      expect(res.body).toEqual({
        message: expect.any(String),
        statusCode: 404,
        errors: { card_user_reference: [expect.any(String)] },
      })
    })

    it("answers 404 naming card_user_reference for another tenant's verified card user", async () => {
      const sb = newSandbox()
      const theirs = await sb.verifiedUser('other')
      const res = await sb.call('POST', '/v1/cards/create', {
        card_user_reference: theirs,
        card_brand: 'visa',
        card_type: 'virtual',
      })
      expect(res.status, JSON.stringify(res.body)).toBe(404)
      expect(Object.keys(res.body.errors)).toEqual(['card_user_reference'])
      const list = await sb.call('GET', '/v1/cards')
      expect(list.body.meta.total).toBe(0)
    })

    it('refuses (422 naming card_user_reference) a card user whose verification is still pending, creating nothing', async () => {
      const sb = newSandbox()
      const user = await pendingUser(sb)
      const res = await sb.call('POST', '/v1/cards/create', {
        card_user_reference: user,
        card_brand: 'visa',
        card_type: 'virtual',
      })
      expect(res.status, JSON.stringify(res.body)).toBe(422)
      expect(res.body).toEqual({
        message: expect.any(String),
        statusCode: 422,
        errors: { card_user_reference: [expect.any(String)] },
      })
      const list = await sb.call('GET', '/v1/cards')
      expect(list.body.meta.total).toBe(0)
    })

    it('refuses (422 naming card_user_reference) a card user whose verification failed', async () => {
      const sb = newSandbox()
      const user = await pendingUser(sb)
      await sb.call('POST', `/__sandbox/card-users/${user}/transition`, { to: 'failed' })
      const res = await sb.call('POST', '/v1/cards/create', {
        card_user_reference: user,
        card_brand: 'gim',
        card_type: 'physical',
      })
      expect(res.status, JSON.stringify(res.body)).toBe(422)
      expect(Object.keys(res.body.errors)).toEqual(['card_user_reference'])
    })
  })

  describe('issuing through the control plane', () => {
    it.each([
      ['visa', /^4\d{15}$/],
      ['mastercard', /^5[1-5]\d{14}$/],
      ['gim', /^6280\d{12}$/],
    ])(
      'gives an issued %s card a Luhn-valid 16-digit number with the brand prefix, a 3-digit cvv2 and a YYYY-MM expiry',
      async (brand, prefix) => {
        const sb = newSandbox({ quirks: false })
        const { reference } = await sb.issuedCard(brand)
        // Freezing answers the whole card, details included.
        const res = await sb.call('POST', '/v1/cards/freeze', { reference })
        expect(res.status, JSON.stringify(res.body)).toBe(200)
        const card = res.body.card
        expect(card).toEqual({
          reference,
          card_number: expect.stringMatching(prefix),
          card_brand: brand,
          card_type: 'virtual',
          cvv2: expect.stringMatching(/^\d{3}$/),
          expiry: expect.stringMatching(/^\d{4}-(0[1-9]|1[0-2])$/),
          balance: 0,
          status: 'frozen',
        })
        expect(isLuhnValid(card.card_number), card.card_number).toBe(true)
        // The manual clock starts on 2026-01-01: an issued card expires after that.
        expect(card.expiry > '2026-01').toBe(true)
      },
    )

    it('shows the issued card with its last four digits in the list', async () => {
      const sb = newSandbox()
      const { reference } = await sb.issuedCard('mastercard')
      const frozen = await sb.call('POST', '/v1/cards/freeze', { reference })
      const number: string = frozen.body.data.card.card_number
      const list = await sb.call('GET', '/v1/cards')
      expect(list.body.data).toEqual([
        {
          reference,
          balance: 0,
          last_four: number.slice(-4),
          status: 'frozen',
          card_type: 'Mastercard',
          card_brand: 'virtual',
        },
      ])
    })
  })
})

describe('POST /v1/cards/create, many at once', () => {
  it('creates the card of each one sent at once, each with its issuing, and refuses those for an unverified user alone', async () => {
    const sb = newSandbox()
    const verified = await sb.verifiedUser()
    const unverified = (await sb.call('POST', '/v1/card-users/create', fullIdentity())).body.data
      .userCard.reference
    const users = Array.from({ length: 30 }, (_, i) => (i % 3 === 1 ? unverified : verified))
    const answers = await Promise.all(
      users.map((user) =>
        sb.call('POST', '/v1/cards/create', {
          card_user_reference: user,
          card_brand: 'visa',
          card_type: 'virtual',
        }),
      ),
    )
    expect(answers.map((a) => a.status)).toEqual(users.map((u) => (u === verified ? 200 : 422)))
    const created = answers.filter((a) => a.status === 200).map((a) => a.body.data.card.reference)
    expect(new Set(created).size).toBe(20)
    const listed = (await sb.call('GET', '/v1/cards?per_page=100')).body.data.map(
      (c: { reference: string }) => c.reference,
    )
    expect([...listed].sort()).toEqual([...created].sort())
    const jobs = (await sb.call('GET', '/__sandbox/jobs')).body.data as {
      resource: string
      reference: string
    }[]
    const issuing = jobs.filter((j) => j.resource === 'cards').map((j) => j.reference)
    expect(issuing.sort()).toEqual([...created].sort())
  })
})

describe('POST /v1/cards/link', () => {
  it('answers data.card with the identifier, status issued, null details and balance 0 (quirks on)', async () => {
    const sb = newSandbox()
    const user = await sb.verifiedUser()
    const res = await sb.call('POST', '/v1/cards/link', {
      identifier: 123456789,
      card_user_reference: user,
    })
    expect(res.status, JSON.stringify(res.body)).toBe(200)
    expect(res.body).toEqual({
      message: GENERATING,
      statusCode: 200,
      data: {
        card: {
          identifier: 123456789,
          reference: expect.stringMatching(UUID),
          card_number: null,
          card_brand: 'Visa',
          card_type: 'physical',
          cvv2: null,
          expiry: null,
          balance: 0,
          status: 'issued',
        },
      },
    })
  })

  it('answers the card beside message with a lowercase brand (quirks off)', async () => {
    const sb = newSandbox({ quirks: false })
    const user = await sb.verifiedUser()
    const res = await sb.call('POST', '/v1/cards/link', {
      identifier: 42,
      card_user_reference: user,
    })
    expect(res.status, JSON.stringify(res.body)).toBe(200)
    expect(res.body).toEqual({
      message: GENERATING,
      statusCode: 200,
      card: {
        identifier: 42,
        reference: expect.stringMatching(UUID),
        card_number: null,
        card_brand: 'visa',
        card_type: 'physical',
        cvv2: null,
        expiry: null,
        balance: 0,
        status: 'issued',
      },
    })
  })

  it('lists the linked card as issued with no last four digits yet', async () => {
    const sb = newSandbox({ quirks: false })
    const user = await sb.verifiedUser()
    const linked = await sb.call('POST', '/v1/cards/link', {
      identifier: 42,
      card_user_reference: user,
    })
    const list = await sb.call('GET', '/v1/cards')
    expect(list.body.data).toEqual([
      {
        reference: linked.body.card.reference,
        balance: 0,
        last_four: null,
        status: 'issued',
        card_type: 'physical',
        card_brand: 'visa',
      },
    ])
  })

  it('requires identifier (or reference) and card_user_reference, naming both', async () => {
    const sb = newSandbox()
    const res = await sb.call('POST', '/v1/cards/link', {})
    expect(res.status, JSON.stringify(res.body)).toBe(422)
    expect(res.body).toEqual({
      message: 'The card user reference field is required. (and 1 more error)',
      statusCode: 422,
      errors: {
        card_user_reference: ['The card user reference field is required.'],
        identifier: ['The identifier field is required when reference is not present.'],
      },
    })
  })

  it.each([
    ['a decimal', 1.5],
    ['a decimal string', '12.5'],
    ['a string of letters', 'abc'],
    ['an empty string', ''],
    ['zero', 0],
    ['zero as a string', '0'],
    ['a negative number', -7],
    ['past the safe integers, as a string', '9007199254740993'],
    ['an exponent, as a string', '1e3'],
    ['hexadecimal, as a string', '0x10'],
    ['digits after a space', ' 42'],
    ['digits before a space', '42 '],
    ['a boolean', true],
  ])('refuses an identifier that is %s (422 naming identifier)', async (_what, identifier) => {
    const sb = newSandbox()
    const user = await sb.verifiedUser()
    const res = await sb.call('POST', '/v1/cards/link', { identifier, card_user_reference: user })
    expect(res.status, JSON.stringify(res.body)).toBe(422)
    expect(res.body).toEqual({
      message: expect.any(String),
      statusCode: 422,
      errors: { identifier: [expect.any(String)] },
    })
  })

  it('refuses a card_user_reference that is not a UUID', async () => {
    const sb = newSandbox()
    const res = await sb.call('POST', '/v1/cards/link', {
      identifier: 42,
      card_user_reference: 'nope',
    })
    expect(res.status, JSON.stringify(res.body)).toBe(422)
    expect(res.body.errors).toEqual({
      card_user_reference: ['The card user reference field must be a valid UUID.'],
    })
  })

  it('answers 404 naming card_user_reference for an unknown card user', async () => {
    const sb = newSandbox()
    const res = await sb.call('POST', '/v1/cards/link', {
      identifier: 42,
      card_user_reference: UNKNOWN,
    })
    expect(res.status, JSON.stringify(res.body)).toBe(404)
    expect(res.body).toEqual({
      message: expect.any(String),
      statusCode: 404,
      errors: { card_user_reference: [expect.any(String)] },
    })
  })

  it("answers 404 naming card_user_reference for another tenant's card user", async () => {
    const sb = newSandbox()
    const theirs = await sb.verifiedUser('other')
    const res = await sb.call('POST', '/v1/cards/link', {
      identifier: 42,
      card_user_reference: theirs,
    })
    expect(res.status, JSON.stringify(res.body)).toBe(404)
    expect(Object.keys(res.body.errors)).toEqual(['card_user_reference'])
  })

  it('refuses (422 naming card_user_reference) a card user who has not passed verification', async () => {
    const sb = newSandbox()
    const user = await pendingUser(sb)
    const res = await sb.call('POST', '/v1/cards/link', {
      identifier: 42,
      card_user_reference: user,
    })
    expect(res.status, JSON.stringify(res.body)).toBe(422)
    expect(res.body).toEqual({
      message: expect.any(String),
      statusCode: 422,
      errors: { card_user_reference: [expect.any(String)] },
    })
  })

  it('refuses (422 naming identifier) an identifier already linked in the tenant', async () => {
    const sb = newSandbox()
    const user = await sb.verifiedUser()
    const first = await sb.call('POST', '/v1/cards/link', {
      identifier: 42,
      card_user_reference: user,
    })
    expect(first.status, JSON.stringify(first.body)).toBe(200)
    const again = await sb.call('POST', '/v1/cards/link', {
      identifier: 42,
      card_user_reference: user,
    })
    expect(again.status, JSON.stringify(again.body)).toBe(422)
    expect(Object.keys(again.body.errors)).toEqual(['identifier'])
  })

  it('lets another tenant link the same identifier (unique per tenant, not across tenants)', async () => {
    const sb = newSandbox()
    const mine = await sb.call('POST', '/v1/cards/link', {
      identifier: 42,
      card_user_reference: await sb.verifiedUser(),
    })
    expect(mine.status, JSON.stringify(mine.body)).toBe(200)
    const theirs = await sb.call(
      'POST',
      '/v1/cards/link',
      { identifier: 42, card_user_reference: await sb.verifiedUser('other') },
      { token: 'other' },
    )
    expect(theirs.status, JSON.stringify(theirs.body)).toBe(200)
    expect(theirs.body.data.card).toMatchObject({ identifier: 42, status: 'issued' })
    expect(theirs.body.data.card.reference).not.toBe(mine.body.data.card.reference)
  })
})

describe('POST /v1/cards/freeze', () => {
  it('freezes an issued card and answers data.card with status frozen and its details (quirks on)', async () => {
    const sb = newSandbox()
    const { reference } = await sb.issuedCard('visa')
    const res = await sb.call('POST', '/v1/cards/freeze', { reference })
    expect(res.status, JSON.stringify(res.body)).toBe(200)
    expect(res.body).toEqual({
      message: FROZEN,
      statusCode: 200,
      data: {
        card: {
          reference,
          card_number: expect.stringMatching(/^4\d{15}$/),
          card_brand: 'Visa',
          card_type: 'virtual',
          cvv2: expect.stringMatching(/^\d{3}$/),
          expiry: expect.stringMatching(/^\d{4}-\d{2}$/),
          balance: 0,
          status: 'frozen',
        },
      },
    })
    const list = await sb.call('GET', '/v1/cards')
    expect(list.body.data[0]).toMatchObject({ reference, status: 'frozen' })
  })

  it('answers the frozen card beside message with a lowercase brand (quirks off)', async () => {
    const sb = newSandbox({ quirks: false })
    const { reference } = await sb.issuedCard('gim')
    const res = await sb.call('POST', '/v1/cards/freeze', { reference })
    expect(res.status, JSON.stringify(res.body)).toBe(200)
    expect(res.body).toEqual({
      message: FROZEN,
      statusCode: 200,
      card: {
        reference,
        card_number: expect.stringMatching(/^6280\d{12}$/),
        card_brand: 'gim',
        card_type: 'virtual',
        cvv2: expect.stringMatching(/^\d{3}$/),
        expiry: expect.stringMatching(/^\d{4}-\d{2}$/),
        balance: 0,
        status: 'frozen',
      },
    })
  })

  it('freezes a linked card, keeping its identifier', async () => {
    const sb = newSandbox()
    const user = await sb.verifiedUser()
    const linked = await sb.call('POST', '/v1/cards/link', {
      identifier: 777,
      card_user_reference: user,
    })
    const reference = linked.body.data.card.reference
    const res = await sb.call('POST', '/v1/cards/freeze', { reference })
    expect(res.status, JSON.stringify(res.body)).toBe(200)
    expect(res.body.data.card).toMatchObject({ identifier: 777, reference, status: 'frozen' })
  })

  it('refuses to freeze a card that is still issuing (409 with the allowed states) and leaves it issuing', async () => {
    const sb = newSandbox()
    const user = await sb.verifiedUser()
    const reference = await createCard(sb, user)
    const res = await sb.call('POST', '/v1/cards/freeze', { reference })
    expect(res.status, JSON.stringify(res.body)).toBe(409)
    expect(res.body).toEqual({
      message: expect.any(String),
      statusCode: 409,
      from: 'issuing',
      to: 'frozen',
      allowed: ['issued', 'failed'],
    })
    const list = await sb.call('GET', '/v1/cards')
    expect(list.body.data[0]).toMatchObject({ reference, status: 'issuing' })
  })

  it('refuses to freeze a card that is already frozen (409 with the allowed states)', async () => {
    const sb = newSandbox()
    const { reference } = await sb.issuedCard()
    const first = await sb.call('POST', '/v1/cards/freeze', { reference })
    expect(first.status, JSON.stringify(first.body)).toBe(200)
    const again = await sb.call('POST', '/v1/cards/freeze', { reference })
    expect(again.status, JSON.stringify(again.body)).toBe(409)
    expect(again.body).toEqual({
      message: expect.any(String),
      statusCode: 409,
      from: 'frozen',
      to: 'frozen',
      allowed: ['issued'],
    })
  })

  it('refuses to freeze a card whose issuing failed (409, nothing allowed)', async () => {
    const sb = newSandbox()
    const user = await sb.verifiedUser()
    const reference = await createCard(sb, user)
    await moveCard(sb, reference, 'failed')
    const res = await sb.call('POST', '/v1/cards/freeze', { reference })
    expect(res.status, JSON.stringify(res.body)).toBe(409)
    expect(res.body).toMatchObject({ statusCode: 409, from: 'failed', allowed: [] })
  })

  it('answers 404 naming reference for an unknown card', async () => {
    const sb = newSandbox()
    const res = await sb.call('POST', '/v1/cards/freeze', { reference: UNKNOWN })
    expect(res.status, JSON.stringify(res.body)).toBe(404)
    expect(res.body).toEqual({
      message: expect.any(String),
      statusCode: 404,
      errors: { reference: [expect.any(String)] },
    })
  })

  it("answers 404 for another tenant's card and leaves it issued", async () => {
    const sb = newSandbox()
    const { reference } = await sb.issuedCard('visa', 'other')
    const res = await sb.call('POST', '/v1/cards/freeze', { reference })
    expect(res.status, JSON.stringify(res.body)).toBe(404)
    expect(Object.keys(res.body.errors)).toEqual(['reference'])
    const theirs = await sb.call('GET', '/v1/cards', undefined, { token: 'other' })
    expect(theirs.body.data[0]).toMatchObject({ reference, status: 'issued' })
  })

  it('requires reference (422)', async () => {
    const sb = newSandbox()
    const res = await sb.call('POST', '/v1/cards/freeze', {})
    expect(res.status, JSON.stringify(res.body)).toBe(422)
    expect(res.body).toEqual({
      message: 'The reference field is required.',
      statusCode: 422,
      errors: { reference: ['The reference field is required.'] },
    })
  })

  it('refuses a reference that is not a UUID (422)', async () => {
    const sb = newSandbox()
    const res = await sb.call('POST', '/v1/cards/freeze', { reference: '1234' })
    expect(res.status, JSON.stringify(res.body)).toBe(422)
    expect(res.body).toEqual({
      message: 'The reference field must be a valid UUID.',
      statusCode: 422,
      errors: { reference: ['The reference field must be a valid UUID.'] },
    })
  })
})

describe('POST /v1/cards/unfreeze', () => {
  it('unfreezes a frozen card back to issued with the same details (quirks on)', async () => {
    const sb = newSandbox()
    const { reference } = await sb.issuedCard('mastercard')
    const frozen = await sb.call('POST', '/v1/cards/freeze', { reference })
    const res = await sb.call('POST', '/v1/cards/unfreeze', { reference })
    expect(res.status, JSON.stringify(res.body)).toBe(200)
    const { card_number, cvv2, expiry } = frozen.body.data.card
    expect(res.body).toEqual({
      message: UNFROZEN,
      statusCode: 200,
      data: {
        card: {
          reference,
          card_number,
          card_brand: 'Mastercard',
          card_type: 'virtual',
          cvv2,
          expiry,
          balance: 0,
          status: 'issued',
        },
      },
    })
    const list = await sb.call('GET', '/v1/cards')
    expect(list.body.data[0]).toMatchObject({
      reference,
      status: 'issued',
      last_four: card_number.slice(-4),
    })
  })

  it('answers the card beside message with a lowercase brand (quirks off)', async () => {
    const sb = newSandbox({ quirks: false })
    const { reference } = await sb.issuedCard('visa')
    const frozen = await sb.call('POST', '/v1/cards/freeze', { reference })
    const res = await sb.call('POST', '/v1/cards/unfreeze', { reference })
    expect(res.status, JSON.stringify(res.body)).toBe(200)
    expect(res.body).toEqual({
      message: UNFROZEN,
      statusCode: 200,
      card: { ...frozen.body.card, status: 'issued' },
    })
  })

  it('refuses to unfreeze an issued card that is not frozen (409 with the allowed states)', async () => {
    const sb = newSandbox()
    const { reference } = await sb.issuedCard()
    const res = await sb.call('POST', '/v1/cards/unfreeze', { reference })
    expect(res.status, JSON.stringify(res.body)).toBe(409)
    expect(res.body).toEqual({
      message: expect.any(String),
      statusCode: 409,
      from: 'issued',
      to: 'issued',
      allowed: ['frozen'],
    })
  })

  it('refuses to unfreeze a card that is still issuing (409) and leaves it issuing with no details', async () => {
    const sb = newSandbox()
    const user = await sb.verifiedUser()
    const reference = await createCard(sb, user)
    const res = await sb.call('POST', '/v1/cards/unfreeze', { reference })
    expect(res.status, JSON.stringify(res.body)).toBe(409)
    expect(res.body).toMatchObject({ statusCode: 409, from: 'issuing' })
    const list = await sb.call('GET', '/v1/cards')
    expect(list.body.data[0]).toMatchObject({ reference, status: 'issuing', last_four: null })
  })

  it('answers 404 naming reference for an unknown card', async () => {
    const sb = newSandbox()
    const res = await sb.call('POST', '/v1/cards/unfreeze', { reference: UNKNOWN })
    expect(res.status, JSON.stringify(res.body)).toBe(404)
    expect(res.body).toEqual({
      message: expect.any(String),
      statusCode: 404,
      errors: { reference: [expect.any(String)] },
    })
  })

  it("answers 404 for another tenant's frozen card and leaves it frozen", async () => {
    const sb = newSandbox()
    const { reference } = await sb.issuedCard('visa', 'other')
    await sb.call('POST', '/v1/cards/freeze', { reference }, { token: 'other' })
    const res = await sb.call('POST', '/v1/cards/unfreeze', { reference })
    expect(res.status, JSON.stringify(res.body)).toBe(404)
    const theirs = await sb.call('GET', '/v1/cards', undefined, { token: 'other' })
    expect(theirs.body.data[0]).toMatchObject({ reference, status: 'frozen' })
  })

  it('refuses a missing or non-UUID reference (422)', async () => {
    const sb = newSandbox()
    const missing = await sb.call('POST', '/v1/cards/unfreeze', {})
    expect(missing.status, JSON.stringify(missing.body)).toBe(422)
    expect(missing.body.errors).toEqual({ reference: ['The reference field is required.'] })
    const bad = await sb.call('POST', '/v1/cards/unfreeze', { reference: 12 })
    expect(bad.status, JSON.stringify(bad.body)).toBe(422)
    expect(Object.keys(bad.body.errors)).toEqual(['reference'])
  })
})

describe('GET /v1/cards', () => {
  it('answers reduced records with card_type and card_brand swapped and a capitalised brand (quirks on)', async () => {
    const sb = newSandbox()
    const user = await sb.verifiedUser()
    const reference = await createCard(sb, user, 'gim', 'physical')
    const res = await sb.call('GET', '/v1/cards')
    expect(res.status, JSON.stringify(res.body)).toBe(200)
    expect(res.body).toEqual({
      message: LISTED,
      statusCode: 200,
      data: [
        {
          reference,
          balance: 0,
          last_four: null,
          status: 'issuing',
          card_type: 'Gim',
          card_brand: 'physical',
        },
      ],
      meta: meta({}),
    })
  })

  it('answers reduced records with card_type and card_brand in place and a lowercase brand (quirks off)', async () => {
    const sb = newSandbox({ quirks: false })
    const user = await sb.verifiedUser()
    const reference = await createCard(sb, user, 'gim', 'physical')
    const res = await sb.call('GET', '/v1/cards')
    expect(res.status, JSON.stringify(res.body)).toBe(200)
    expect(res.body).toEqual({
      message: LISTED,
      statusCode: 200,
      data: [
        {
          reference,
          balance: 0,
          last_four: null,
          status: 'issuing',
          card_type: 'physical',
          card_brand: 'gim',
        },
      ],
      meta: meta({}),
    })
  })

  it('gives an issued card last_four as a 4-digit string', async () => {
    const sb = newSandbox({ quirks: false })
    const { reference } = await sb.issuedCard('visa')
    const res = await sb.call('GET', '/v1/cards')
    expect(res.body.data).toEqual([
      {
        reference,
        balance: 0,
        last_four: expect.stringMatching(/^\d{4}$/),
        status: 'issued',
        card_type: 'virtual',
        card_brand: 'visa',
      },
    ])
  })

  it('answers an empty list with null from/to', async () => {
    const sb = newSandbox()
    const res = await sb.call('GET', '/v1/cards')
    expect(res.status, JSON.stringify(res.body)).toBe(200)
    expect(res.body).toEqual({
      message: LISTED,
      statusCode: 200,
      data: [],
      meta: meta({ from: null, to: null, total: 0 }),
    })
  })

  it('lists newest first', async () => {
    const sb = newSandbox()
    const user = await sb.verifiedUser()
    const first = await createCard(sb, user)
    const second = await createCard(sb, user, 'mastercard')
    const third = await createCard(sb, user, 'gim')
    const res = await sb.call('GET', '/v1/cards')
    expect(res.body.data.map((c: { reference: string }) => c.reference)).toEqual([
      third,
      second,
      first,
    ])
  })

  it('pages by 20 by default', async () => {
    const sb = newSandbox()
    const user = await sb.verifiedUser()
    const refs: string[] = []
    for (let i = 0; i < 21; i++) refs.push(await createCard(sb, user))
    const page1 = await sb.call('GET', '/v1/cards')
    expect(page1.body.data).toHaveLength(20)
    expect(page1.body.data[0].reference).toBe(refs[20])
    expect(page1.body.meta).toEqual(meta({ last_page: 2, to: 20, total: 21 }))
    const page2 = await sb.call('GET', '/v1/cards?page=2')
    expect(page2.body.data.map((c: { reference: string }) => c.reference)).toEqual([refs[0]])
    expect(page2.body.meta).toEqual(
      meta({ current_page: 2, from: 21, last_page: 2, to: 21, total: 21 }),
    )
  })

  it('honours page and per_page', async () => {
    const sb = newSandbox()
    const user = await sb.verifiedUser()
    const refs: string[] = []
    for (let i = 0; i < 5; i++) refs.push(await createCard(sb, user))
    const res = await sb.call('GET', '/v1/cards?page=2&per_page=2')
    expect(res.status, JSON.stringify(res.body)).toBe(200)
    expect(res.body.data.map((c: { reference: string }) => c.reference)).toEqual([refs[2], refs[1]])
    expect(res.body.meta).toEqual(
      meta({ current_page: 2, from: 3, last_page: 3, per_page: 2, to: 4, total: 5 }),
    )
  })

  it('answers a page past the last with no rows and null from/to', async () => {
    const sb = newSandbox()
    const user = await sb.verifiedUser()
    await createCard(sb, user)
    const res = await sb.call('GET', '/v1/cards?page=2')
    expect(res.status, JSON.stringify(res.body)).toBe(200)
    expect(res.body.data).toEqual([])
    expect(res.body.meta).toEqual(meta({ current_page: 2, from: null, to: null, total: 1 }))
  })

  it.each([
    ['page=0', 'page'],
    ['per_page=101', 'per_page'],
    ['per_page=abc', 'per_page'],
    ['page=x', 'page'],
  ])('refuses %s with 422 naming %s', async (query, field) => {
    const sb = newSandbox()
    const res = await sb.call('GET', `/v1/cards?${query}`)
    expect(res.status, JSON.stringify(res.body)).toBe(422)
    expect(res.body).toEqual({
      message: expect.any(String),
      statusCode: 422,
      errors: { [field]: [expect.any(String)] },
    })
  })

  it("never shows another tenant's cards", async () => {
    const sb = newSandbox()
    await sb.issuedCard('visa', 'other')
    const user = await sb.verifiedUser()
    const mine = await createCard(sb, user)
    const res = await sb.call('GET', '/v1/cards')
    expect(res.body.data.map((c: { reference: string }) => c.reference)).toEqual([mine])
    expect(res.body.meta.total).toBe(1)
  })
})

describe('GET /v1/cards/{reference}', () => {
  it('answers data.card as create answers it, with its number, cvv2 and expiry once issued', async () => {
    const sb = newSandbox()
    const { reference } = await sb.issuedCard('mastercard')
    await sb.call('POST', `/__sandbox/cards/${reference}/fund`, { amount: 2500 })
    const res = await sb.call('GET', `/v1/cards/${reference}`)
    expect(res.status, JSON.stringify(res.body)).toBe(200)
    expect(Object.keys(res.body)).toEqual(['message', 'statusCode', 'data'])
    expect(res.body.message).toBe('OK')
    expect(res.body.statusCode).toBe(200)
    const card = res.body.data.card
    expect(Object.keys(card)).toEqual([
      'reference',
      'card_number',
      'card_brand',
      'card_type',
      'cvv2',
      'expiry',
      'balance',
      'status',
    ])
    expect(card.reference).toBe(reference)
    expect(card.card_number).toMatch(/^5[1-5]\d{14}$/)
    expect(isLuhnValid(card.card_number)).toBe(true)
    expect(card.card_brand).toBe('Mastercard')
    expect(card.card_type).toBe('virtual')
    expect(card.cvv2).toMatch(/^\d{3}$/)
    expect(card.expiry).toBe('2029-01')
    expect(card.balance).toBe(2500)
    expect(card.status).toBe('issued')
  })

  it('shows the state as it is now: issuing with null details, then frozen', async () => {
    const sb = newSandbox()
    const user = await sb.verifiedUser()
    const reference = await createCard(sb, user, 'gim', 'physical')
    const issuing = await sb.call('GET', `/v1/cards/${reference}`)
    expect(issuing.body.data.card).toEqual(
      issuingCard({ reference, card_brand: 'Gim', card_type: 'physical' }),
    )
    await moveCard(sb, reference, 'issued')
    await sb.call('POST', '/v1/cards/freeze', { reference })
    const frozen = await sb.call('GET', `/v1/cards/${reference}`)
    expect(frozen.body.data.card.status).toBe('frozen')
  })

  it('carries the identifier of a linked card, as link answers it', async () => {
    const sb = newSandbox()
    const user = await sb.verifiedUser()
    const linked = await sb.call('POST', '/v1/cards/link', {
      identifier: 8840822604,
      card_user_reference: user,
    })
    const shown = await sb.call('GET', `/v1/cards/${linked.body.data.card.reference}`)
    expect(shown.body.data.card).toEqual(linked.body.data.card)
  })

  it('answers the card beside message with quirks off', async () => {
    const sb = newSandbox({ quirks: false })
    const { reference } = await sb.issuedCard()
    const res = await sb.call('GET', `/v1/cards/${reference}`)
    expect(res.body.data).toBeUndefined()
    expect(res.body.card).toMatchObject({ reference, card_brand: 'visa', status: 'issued' })
  })

  it("answers the Laravel-shaped 404 for an unknown reference, another tenant's, or a non-UUID", async () => {
    const sb = newSandbox()
    const theirs = await sb.issuedCard('visa', 'other')
    for (const reference of [UNKNOWN, theirs.reference]) {
      const res = await sb.call('GET', `/v1/cards/${reference}`)
      expect(res.status, reference).toBe(404)
      expect(res.body).toEqual({
        message: `No card found for reference "${reference}".`,
        statusCode: 404,
        errors: { reference: [`No card found for reference "${reference}".`] },
      })
    }
    const bad = await sb.call('GET', '/v1/cards/not-a-uuid')
    expect(bad.status).toBe(404)
    expect(bad.body).toEqual({ message: 'No resource found for this reference.', statusCode: 404 })
  })

  it('never takes a literal route for a reference: GET /v1/cards/create and the like stay 405', async () => {
    const sb = newSandbox()
    for (const path of ['create', 'link', 'freeze', 'unfreeze', 'create/']) {
      const res = await sb.call('GET', `/v1/cards/${path}`)
      expect(res.status, path).toBe(405)
      expect(res.headers.get('Allow')).toBe('POST')
    }
  })
})

describe('POST /v1/cards/link, the older body', () => {
  it('takes the identifier as a numeric string, and answers it as an integer', async () => {
    const sb = newSandbox()
    const user = await sb.verifiedUser()
    const res = await sb.call('POST', '/v1/cards/link', {
      identifier: '8840822604',
      card_user_reference: user,
    })
    expect(res.status, JSON.stringify(res.body)).toBe(200)
    expect(res.body.data.card.identifier).toBe(8840822604)
    const again = await sb.call('POST', '/v1/cards/link', {
      identifier: 8840822604,
      card_user_reference: user,
    })
    expect(again.status).toBe(422)
    expect(Object.keys(again.body.errors)).toEqual(['identifier'])
  })

  it("links by reference when identifier is absent: the reference becomes the card's", async () => {
    const sb = newSandbox()
    const user = await sb.verifiedUser()
    const reference = 'd282e4a6-1fb6-4827-a6ae-a780263287d7'
    const res = await sb.call('POST', '/v1/cards/link', { reference, card_user_reference: user })
    expect(res.status, JSON.stringify(res.body)).toBe(200)
    expect(res.body).toEqual({
      message: GENERATING,
      statusCode: 200,
      data: { card: issuingCard({ reference, card_type: 'physical', status: 'issued' }) },
    })
    const shown = await sb.call('GET', `/v1/cards/${reference}`)
    expect(shown.body.data.card.reference).toBe(reference)
    const list = await sb.call('GET', '/v1/cards')
    expect(list.body.data.map((c: any) => c.reference)).toEqual([reference])
    // its details arrive after the link delay, as for a card linked by identifier
    await sb.call('POST', '/__sandbox/clock/advance', { by: '1h' })
    const filled = await sb.call('GET', `/v1/cards/${reference}`)
    expect(filled.body.data.card.card_number).toMatch(/^4\d{15}$/)
  })

  it('gives the card both when both are sent', async () => {
    const sb = newSandbox()
    const user = await sb.verifiedUser()
    const reference = '6f1c2a7e-1111-4222-8333-944444444444'
    const res = await sb.call('POST', '/v1/cards/link', {
      identifier: 77,
      reference,
      card_user_reference: user,
    })
    expect(res.body.data.card).toMatchObject({ identifier: 77, reference })
  })

  it("refuses (422 naming reference) a reference the tenant's cards already have", async () => {
    const sb = newSandbox()
    const created = await sb.issuedCard()
    const user = await sb.verifiedUser()
    const linked = '3b0c8f0e-5d1a-4e7b-9c2d-6a4f8e1b7c35'
    await sb.call('POST', '/v1/cards/link', { reference: linked, card_user_reference: user })
    for (const reference of [created.reference, linked]) {
      const res = await sb.call('POST', '/v1/cards/link', { reference, card_user_reference: user })
      expect(res.status, JSON.stringify(res.body)).toBe(422)
      expect(res.body).toEqual({
        message: 'The reference has already been taken.',
        statusCode: 422,
        errors: { reference: ['The reference has already been taken.'] },
      })
    }
    const list = await sb.call('GET', '/v1/cards')
    expect(list.body.meta.total).toBe(2)
  })

  it("links a reference another tenant's card has: references are unique per tenant, and nothing tells one tenant what another used", async () => {
    const sb = newSandbox()
    const theirs = await sb.issuedCard('visa', 'other')
    const linkedByThem = 'a6e2b1c4-7f3d-4c8e-9b5a-1d2e3f4a5b6c'
    const theirUser = await sb.verifiedUser('other')
    const first = await sb.call(
      'POST',
      '/v1/cards/link',
      { reference: linkedByThem, card_user_reference: theirUser },
      { token: 'other' },
    )
    expect(first.status, JSON.stringify(first.body)).toBe(200)
    const user = await sb.verifiedUser()
    for (const reference of [theirs.reference, linkedByThem]) {
      const res = await sb.call('POST', '/v1/cards/link', { reference, card_user_reference: user })
      expect(res.status, JSON.stringify(res.body)).toBe(200)
      expect(res.body.data.card.reference).toBe(reference)
    }
    const list = await sb.call('GET', '/v1/cards')
    expect(list.body.data.map((c: any) => c.reference).sort()).toEqual(
      [theirs.reference, linkedByThem].sort(),
    )
    // the other tenant's card is theirs still: created virtual, where this tenant's is linked
    const shown = await sb.call('GET', `/v1/cards/${theirs.reference}`, undefined, {
      token: 'other',
    })
    expect(shown.body.data.card).toMatchObject({ card_type: 'virtual', status: 'issued' })
    const theirList = await sb.call('GET', '/v1/cards', undefined, { token: 'other' })
    expect(theirList.body.meta.total).toBe(2)
  })

  it('refuses a reference that is not a UUID (422 naming reference)', async () => {
    const sb = newSandbox()
    const user = await sb.verifiedUser()
    const res = await sb.call('POST', '/v1/cards/link', {
      reference: 'card-1',
      card_user_reference: user,
    })
    expect(res.status).toBe(422)
    expect(res.body.errors).toEqual({ reference: ['The reference field must be a valid UUID.'] })
  })
})

describe('POST /v1/cards/auth/access_token', () => {
  const TOKEN_SHAPE = /^[A-Za-z0-9]{50}$/

  it('answers data.access_token and data.embedded_ui, the card-reveal page of this sandbox', async () => {
    const sb = newSandbox()
    const { reference } = await sb.issuedCard()
    const res = await sb.call('POST', '/v1/cards/auth/access_token', { reference })
    expect(res.status, JSON.stringify(res.body)).toBe(200)
    expect(Object.keys(res.body)).toEqual(['message', 'statusCode', 'data'])
    expect(res.body.message).toBe('Access Token generated successfully')
    expect(res.body.statusCode).toBe(200)
    expect(Object.keys(res.body.data)).toEqual(['access_token', 'embedded_ui'])
    const token: string = res.body.data.access_token
    expect(token).toMatch(TOKEN_SHAPE)
    expect(res.body.data.embedded_ui).toBe(`http://localhost/__sandbox/card-reveal/${token}`)
    const page = await sb.app.request(`/__sandbox/card-reveal/${token}`)
    expect(page.status).toBe(200)
  })

  it('builds embedded_ui from the public origin, never from the Host asked', async () => {
    const sb = newSandbox({ publicUrl: 'https://sandbox.example.dev/' })
    const { reference } = await sb.issuedCard()
    const res = await sb.call(
      'POST',
      '/v1/cards/auth/access_token',
      { reference },
      { headers: { Host: 'localhost:9999' } },
    )
    expect(res.body.data.embedded_ui).toBe(
      `https://sandbox.example.dev/__sandbox/card-reveal/${res.body.data.access_token}`,
    )
  })

  it('gives a new token on each call, and the same bytes for the same requests with a seed', async () => {
    const run = async () => {
      const sb = newSandbox({ seed: 9 })
      const { reference } = await sb.issuedCard()
      const first = await sb.call('POST', '/v1/cards/auth/access_token', { reference })
      const second = await sb.call('POST', '/v1/cards/auth/access_token', { reference })
      return [first.body.data.access_token, second.body.data.access_token]
    }
    const [a, b] = await run()
    expect(a).not.toBe(b)
    expect(await run()).toEqual([a, b])
  })

  it('takes an http(s) css_url, and an empty one as absent', async () => {
    const sb = newSandbox()
    const { reference } = await sb.issuedCard()
    for (const css_url of ['https://cdn.example.com/card.css', 'http://127.0.0.1:8080/c.css', '']) {
      const res = await sb.call('POST', '/v1/cards/auth/access_token', { reference, css_url })
      expect(res.status, css_url).toBe(200)
      const page = await sb.app.request(new URL(res.body.data.embedded_ui).pathname)
      const html = await page.text()
      if (css_url) expect(html).toContain(`<link rel="stylesheet" href="${css_url}" />`)
      else expect(html).not.toContain('<link rel="stylesheet"')
    }
  })

  it.each([
    ['a relative URL', 'style.css'],
    ['another scheme', 'ftp://cdn.example.com/card.css'],
    ['a scheme ending in https', 'git+https://cdn.example.com/card.css'],
    ['a scheme starting with https', 'httpsx://cdn.example.com/card.css'],
    ['a script URL', 'javascript:alert(1)'],
    ['a number', 42],
  ])('refuses a css_url that is %s (422 naming css_url)', async (_what, css_url) => {
    const sb = newSandbox()
    const { reference } = await sb.issuedCard()
    const res = await sb.call('POST', '/v1/cards/auth/access_token', { reference, css_url })
    expect(res.status, JSON.stringify(res.body)).toBe(422)
    expect(res.body).toEqual({
      message: expect.any(String),
      statusCode: 422,
      errors: { css_url: [expect.stringMatching(/^The css url field must be/)] },
    })
  })

  it('requires a UUID reference, naming it (422)', async () => {
    const sb = newSandbox()
    const missing = await sb.call('POST', '/v1/cards/auth/access_token', {})
    expect(missing.status).toBe(422)
    expect(missing.body.errors).toEqual({ reference: ['The reference field is required.'] })
    const bad = await sb.call('POST', '/v1/cards/auth/access_token', { reference: 'card-1' })
    expect(bad.body.errors).toEqual({ reference: ['The reference field must be a valid UUID.'] })
  })

  it("answers the Laravel-shaped 404 naming reference for an unknown card or another tenant's", async () => {
    const sb = newSandbox()
    const theirs = await sb.issuedCard('visa', 'other')
    for (const reference of [UNKNOWN, theirs.reference]) {
      const res = await sb.call('POST', '/v1/cards/auth/access_token', { reference })
      expect(res.status, reference).toBe(404)
      expect(res.body).toEqual({
        message: `No card found for reference "${reference}".`,
        statusCode: 404,
        errors: { reference: [`No card found for reference "${reference}".`] },
      })
    }
  })

  it('keeps the token out of the journal in clear', async () => {
    const sb = newSandbox()
    const { reference } = await sb.issuedCard()
    const res = await sb.call('POST', '/v1/cards/auth/access_token', { reference })
    const token: string = res.body.data.access_token
    await sb.app.request(`/__sandbox/card-reveal/${token}`)
    const journal = await sb.call('GET', '/__sandbox/requests')
    const text = JSON.stringify(journal.body)
    expect(text).not.toContain(token)
    expect(text).toContain(`"access_token":"${'*'.repeat(46)}${token.slice(-4)}"`)
    expect(text).toContain(`/__sandbox/card-reveal/${'*'.repeat(46)}${token.slice(-4)}`)
  })
})
