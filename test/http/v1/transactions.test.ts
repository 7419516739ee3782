/**
 * /v1/transactions (SPEC §2.5, §4.4; PRODUCT §2, §4, §5, §10): the three transfers and the
 * list, with quirks on (the spec's examples) and off (the clean schema shape).
 */
import { describe, expect, it } from 'vitest'
import { MICROS_TIMESTAMP, MILLIS_TIMESTAMP, UUID, newSandbox } from '../../helpers.js'

const PHONE = '+221770000001'
const UNKNOWN_UUID = '3f2504e0-4f89-41d3-9a0c-0305e82c3301'
/** The manual clock's start, as quirks on (microseconds) and off (milliseconds) write it. */
const START_MICROS = '2026-01-01T00:00:00.000000Z'
const START_MILLIS = '2026-01-01T00:00:00.000Z'

/**
 * The `bank_name` list of the docs' "Card to Bank Account" page, written out here rather than
 * read from src/: a change to the sandbox's list must show against the docs' own.
 */
const DOCUMENTED_BANKS = [
  'BICICI',
  'NSIA_BANQUE_CI',
  'SIB',
  'SOCIETE_GENERALE_CI',
  'CITIBANK_CI',
  'BOA_CI',
  'BACI',
  'ECOBANK_CI',
  'BHCI',
  'BNI',
  'STANDARD_CHARTERED_BANK_CI',
  'AFRILAND_FIRST_BANK_CI',
  'VERSUS_BANK_CI',
  'ORABANK_CI',
  'BBG_CI',
  'UBA_CI',
  'BSIC_CI',
  'BGFIBANK_CI',
  'BANQUE_POPULAIRE',
  'GTBANK_CI',
  'CBI_CI',
  'BDU_CI',
  'STANBIC_BANK_CI',
  'BDA',
  'MANSA_BANK_CI',
  'ORANGE_BANK_CI',
  'AFG_BANK_CI',
]

const CARD_TO_BANK = '/v1/transactions/create/card-to-bank'
const CARD_TO_WALLET = '/v1/transactions/create/card-to-wallet'
const WALLET_TO_CARD = '/v1/transactions/create/wallet-to-card'

/** A valid body for each transfer endpoint on the given card. */
const VALID_BODIES: Record<string, (card: string) => Record<string, unknown>> = {
  [CARD_TO_BANK]: (card) => ({
    amount: 15000,
    card_reference: card,
    bank_id: 'SN012-01001-000123456789-12',
    bank_name: 'BICICI',
  }),
  [CARD_TO_WALLET]: (card) => ({
    amount: 15000,
    card_reference: card,
    phone: PHONE,
    network: 'wave-sn',
  }),
  [WALLET_TO_CARD]: (card) => ({
    amount: 15000,
    card_reference: card,
    phone: PHONE,
    network: 'wave-sn',
  }),
}
const ENDPOINTS = Object.keys(VALID_BODIES)

/** A fresh sandbox holding one issued card of a verified user (Awa Diop). */
async function withCard(options: Parameters<typeof newSandbox>[0] = {}) {
  const sandbox = newSandbox(options)
  const { reference } = await sandbox.fundedCard('visa')
  return { ...sandbox, card: reference }
}

/**
 * A fresh sandbox holding one issued card with balance 0 and no transactions: enough for a
 * wallet-to-card, which brings money in; money leaving it needs `fund()` first.
 */
async function withEmptyCard(options: Parameters<typeof newSandbox>[0] = {}) {
  const sandbox = newSandbox(options)
  const { reference } = await sandbox.issuedCard('visa')
  return { ...sandbox, card: reference }
}

/** Funds a card through the control plane; answers the `recharge` transaction it creates. */
async function fund(
  call: ReturnType<typeof newSandbox>['call'],
  card: string,
  amount: number,
  token?: string,
) {
  const res = await call('POST', `/__sandbox/cards/${card}/fund`, { amount }, { token })
  expect(res.status, JSON.stringify(res.body)).toBe(200)
  return res.body.data.transaction as { slug: string; reference: string }
}

/** A card of a verified user, still `issuing` (no control-plane transition). */
async function issuingCard(sandbox: ReturnType<typeof newSandbox>) {
  const user = await sandbox.verifiedUser()
  const created = await sandbox.call('POST', '/v1/cards/create', {
    card_user_reference: user,
    card_brand: 'visa',
    card_type: 'virtual',
  })
  expect(created.status, JSON.stringify(created.body)).toBe(200)
  return created.body.data.card.reference as string
}

describe('POST /v1/transactions/create/card-to-bank', () => {
  it('answers the pending card_to_bank transaction with the bank as merchant and microsecond created_at (quirks on)', async () => {
    const { call, card } = await withCard()
    const res = await call('POST', CARD_TO_BANK, {
      amount: 15000,
      card_reference: card,
      reference: 'order-2026-0001',
      bank_id: 'SN012-01001-000123456789-12',
      bank_name: 'BICICI',
      bank_account_name: 'Moussa Ndiaye',
      description: 'Supplier invoice 42',
    })
    expect(res.status, JSON.stringify(res.body)).toBe(200)
    expect(res.body).toEqual({
      message: 'Transaction initiated successfully',
      statusCode: 200,
      data: {
        transaction: {
          slug: expect.stringMatching(UUID),
          card_reference: card,
          reference: 'order-2026-0001',
          status: 'pending',
          kind: 'card_to_bank',
          merchant: 'BICICI',
          amount: 15000,
          bank_name: 'BICICI',
          bank_id: 'SN012-01001-000123456789-12',
          bank_account_name: 'Moussa Ndiaye',
          created_at: START_MICROS,
        },
      },
    })
    expect(res.body.data.transaction.created_at).toMatch(MICROS_TIMESTAMP)
  })

  it('answers the clean shape with quirks off: merchant still the bank, created_at in milliseconds', async () => {
    const { call, card } = await withCard({ quirks: false })
    const res = await call('POST', CARD_TO_BANK, {
      amount: 15000,
      card_reference: card,
      reference: 'order-2026-0001',
      bank_id: 'SN012-01001-000123456789-12',
      bank_name: 'BICICI',
      bank_account_name: 'Moussa Ndiaye',
    })
    expect(res.status, JSON.stringify(res.body)).toBe(200)
    expect(res.body).toEqual({
      message: 'Transaction initiated successfully',
      statusCode: 200,
      data: {
        transaction: {
          slug: expect.stringMatching(UUID),
          card_reference: card,
          reference: 'order-2026-0001',
          status: 'pending',
          kind: 'card_to_bank',
          merchant: 'BICICI',
          amount: 15000,
          bank_name: 'BICICI',
          bank_id: 'SN012-01001-000123456789-12',
          bank_account_name: 'Moussa Ndiaye',
          created_at: START_MILLIS,
        },
      },
    })
    expect(res.body.data.transaction.created_at).toMatch(MILLIS_TIMESTAMP)
  })

  it('defaults bank_account_name to the card holder name and generates a UUID reference when none is sent', async () => {
    const { call, card } = await withCard()
    const res = await call('POST', CARD_TO_BANK, VALID_BODIES[CARD_TO_BANK](card))
    expect(res.status, JSON.stringify(res.body)).toBe(200)
    const transaction = res.body.data.transaction
    expect(transaction.bank_account_name).toBe('Awa Diop')
    expect(transaction.reference).toMatch(UUID)
    expect(transaction.reference).not.toBe(transaction.slug)
  })

  it('keeps the sub-second part of the sandbox clock in created_at, padded to microseconds with quirks on', async () => {
    const { call, card } = await withCard()
    const advanced = await call('POST', '/__sandbox/clock/advance', { by: 1500 })
    expect(advanced.status, JSON.stringify(advanced.body)).toBe(200)
    const res = await call('POST', CARD_TO_BANK, VALID_BODIES[CARD_TO_BANK](card))
    expect(res.status, JSON.stringify(res.body)).toBe(200)
    expect(res.body.data.transaction.created_at).toBe('2026-01-01T00:00:01.500000Z')
  })

  it('keeps the sub-second part of the sandbox clock in created_at, in milliseconds with quirks off', async () => {
    const { call, card } = await withCard({ quirks: false })
    await call('POST', '/__sandbox/clock/advance', { by: 1500 })
    const res = await call('POST', CARD_TO_BANK, VALID_BODIES[CARD_TO_BANK](card))
    expect(res.status, JSON.stringify(res.body)).toBe(200)
    expect(res.body.data.transaction.created_at).toBe('2026-01-01T00:00:01.500Z')
  })

  it('accepts the largest amount the sandbox allows (10^12)', async () => {
    const { call, card } = await withCard()
    const res = await call('POST', CARD_TO_BANK, {
      ...VALID_BODIES[CARD_TO_BANK](card),
      amount: 1e12,
    })
    expect(res.status, JSON.stringify(res.body)).toBe(200)
    expect(res.body.data.transaction.amount).toBe(1e12)
  })

  it('tells the client the amount must be at least 1 when it sends 0 or a negative amount', async () => {
    const { call, card } = await withCard()
    for (const amount of [0, -5]) {
      const res = await call('POST', CARD_TO_BANK, { ...VALID_BODIES[CARD_TO_BANK](card), amount })
      expect(res.status, JSON.stringify(res.body)).toBe(422)
      expect(res.body, `amount ${amount}`).toEqual({
        message: 'The amount field must be at least 1.',
        statusCode: 422,
        errors: { amount: ['The amount field must be at least 1.'] },
      })
    }
  })

  it('names every missing required field in one 422: amount, card_reference, bank_id, bank_name', async () => {
    const { call } = newSandbox()
    const res = await call('POST', CARD_TO_BANK, {})
    expect(res.status, JSON.stringify(res.body)).toBe(422)
    expect(res.body).toEqual({
      message: 'The amount field is required. (and 3 more errors)',
      statusCode: 422,
      errors: {
        amount: ['The amount field is required.'],
        card_reference: ['The card reference field is required.'],
        bank_id: ['The bank id field is required.'],
        bank_name: ['The bank name field is required.'],
      },
    })
  })

  it('accepts each of the 27 banks of the docs’ card-to-bank page', async () => {
    const { call, card } = await withCard()
    for (const bank of DOCUMENTED_BANKS) {
      const res = await call('POST', CARD_TO_BANK, {
        ...VALID_BODIES[CARD_TO_BANK](card),
        bank_name: bank,
      })
      expect(res.status, `${bank}: ${JSON.stringify(res.body)}`).toBe(200)
      expect(res.body.data.transaction.bank_name).toBe(bank)
    }
  })

  it('refuses a bank the docs do not list with a 422 naming bank_name and the 27 it takes, and records nothing', async () => {
    const { call, card } = await withCard()
    const before = (await call('GET', `/v1/transactions?card_reference=${card}`)).body.meta.total
    for (const bank of ['CBAO', 'bicici']) {
      const res = await call('POST', CARD_TO_BANK, {
        ...VALID_BODIES[CARD_TO_BANK](card),
        bank_name: bank,
      })
      expect(res.status, JSON.stringify(res.body)).toBe(422)
      const message = `The selected bank name is invalid. Allowed: ${DOCUMENTED_BANKS.join(', ')}.`
      expect(res.body, bank).toEqual({ message, statusCode: 422, errors: { bank_name: [message] } })
    }
    const after = (await call('GET', `/v1/transactions?card_reference=${card}`)).body.meta.total
    expect(after).toBe(before)
  })
})

describe('POST /v1/transactions/create/card-to-wallet', () => {
  it('answers the pending card_to_wallet transaction with merchant false and microsecond created_at (quirks on)', async () => {
    const { call, card } = await withCard()
    const res = await call('POST', CARD_TO_WALLET, {
      amount: 2500,
      card_reference: card,
      reference: 'payout-77',
      phone: PHONE,
      network: 'orange-money-sn',
    })
    expect(res.status, JSON.stringify(res.body)).toBe(200)
    expect(res.body).toEqual({
      message: 'Transaction initiated successfully',
      statusCode: 200,
      data: {
        transaction: {
          slug: expect.stringMatching(UUID),
          card_reference: card,
          reference: 'payout-77',
          status: 'pending',
          kind: 'card_to_wallet',
          merchant: false,
          amount: 2500,
          phone: PHONE,
          network: 'orange-money-sn',
          created_at: START_MICROS,
        },
      },
    })
  })

  it('answers merchant null and millisecond created_at with quirks off', async () => {
    const { call, card } = await withCard({ quirks: false })
    const res = await call('POST', CARD_TO_WALLET, {
      amount: 2500,
      card_reference: card,
      reference: 'payout-77',
      phone: PHONE,
      network: 'orange-money-sn',
    })
    expect(res.status, JSON.stringify(res.body)).toBe(200)
    expect(res.body).toEqual({
      message: 'Transaction initiated successfully',
      statusCode: 200,
      data: {
        transaction: {
          slug: expect.stringMatching(UUID),
          card_reference: card,
          reference: 'payout-77',
          status: 'pending',
          kind: 'card_to_wallet',
          merchant: null,
          amount: 2500,
          phone: PHONE,
          network: 'orange-money-sn',
          created_at: START_MILLIS,
        },
      },
    })
  })

  it('generates a UUID reference when the client sends none', async () => {
    const { call, card } = await withCard()
    const res = await call('POST', CARD_TO_WALLET, VALID_BODIES[CARD_TO_WALLET](card))
    expect(res.status, JSON.stringify(res.body)).toBe(200)
    expect(res.body.data.transaction.reference).toMatch(UUID)
  })

  it('refuses a network outside the enum with a 422 naming network', async () => {
    const { call, card } = await withCard()
    const res = await call('POST', CARD_TO_WALLET, {
      ...VALID_BODIES[CARD_TO_WALLET](card),
      network: 'paypal',
    })
    expect(res.status, JSON.stringify(res.body)).toBe(422)
    expect(Object.keys(res.body.errors)).toEqual(['network'])
    expect(res.body.errors.network[0]).toContain('The selected network is invalid.')
  })

  it('names every missing required field in one 422: amount, card_reference, phone, network', async () => {
    const { call } = newSandbox()
    const res = await call('POST', CARD_TO_WALLET, {})
    expect(res.status, JSON.stringify(res.body)).toBe(422)
    expect(res.body).toEqual({
      message: 'The amount field is required. (and 3 more errors)',
      statusCode: 422,
      errors: {
        amount: ['The amount field is required.'],
        card_reference: ['The card reference field is required.'],
        phone: ['The phone field is required.'],
        network: ['The network field is required.'],
      },
    })
  })
})

describe('POST /v1/transactions/create/wallet-to-card', () => {
  it('answers kind card_to_wallet like the spec example, merchant false, microsecond created_at (quirks on)', async () => {
    const { call, card } = await withCard()
    const res = await call('POST', WALLET_TO_CARD, {
      amount: 5000,
      card_reference: card,
      reference: 'topup-9',
      phone: PHONE,
      network: 'wave-sn',
    })
    expect(res.status, JSON.stringify(res.body)).toBe(200)
    expect(res.body).toEqual({
      message: 'Transaction initiated successfully',
      statusCode: 200,
      data: {
        transaction: {
          slug: expect.stringMatching(UUID),
          card_reference: card,
          reference: 'topup-9',
          status: 'pending',
          kind: 'card_to_wallet',
          merchant: false,
          amount: 5000,
          phone: PHONE,
          network: 'wave-sn',
          created_at: START_MICROS,
        },
      },
    })
  })

  it('answers the real kind wallet_to_card, merchant null and millisecond created_at with quirks off', async () => {
    const { call, card } = await withCard({ quirks: false })
    const res = await call('POST', WALLET_TO_CARD, {
      amount: 5000,
      card_reference: card,
      reference: 'topup-9',
      phone: PHONE,
      network: 'wave-sn',
    })
    expect(res.status, JSON.stringify(res.body)).toBe(200)
    expect(res.body).toEqual({
      message: 'Transaction initiated successfully',
      statusCode: 200,
      data: {
        transaction: {
          slug: expect.stringMatching(UUID),
          card_reference: card,
          reference: 'topup-9',
          status: 'pending',
          kind: 'wallet_to_card',
          merchant: null,
          amount: 5000,
          phone: PHONE,
          network: 'wave-sn',
          created_at: START_MILLIS,
        },
      },
    })
  })

  it('records the transaction as wallet_to_card even though the quirks-on response says card_to_wallet', async () => {
    // No funding: the card's list holds only this transfer.
    const { call, card } = await withEmptyCard()
    const created = await call('POST', WALLET_TO_CARD, VALID_BODIES[WALLET_TO_CARD](card))
    expect(created.status, JSON.stringify(created.body)).toBe(200)
    const list = await call('GET', `/v1/transactions?card_reference=${card}`)
    expect(list.status, JSON.stringify(list.body)).toBe(200)
    expect(list.body.data.transaction).toHaveLength(1)
    expect(list.body.data.transaction[0].slug).toBe(created.body.data.transaction.slug)
    expect(list.body.data.transaction[0].kind).toBe('wallet_to_card')
  })

  it('generates a UUID reference when the client sends none', async () => {
    const { call, card } = await withCard()
    const res = await call('POST', WALLET_TO_CARD, VALID_BODIES[WALLET_TO_CARD](card))
    expect(res.status, JSON.stringify(res.body)).toBe(200)
    expect(res.body.data.transaction.reference).toMatch(UUID)
  })

  it.each(['orange-money-sn', 'orange-money-ci'])(
    'requires code for %s with a 422 naming code',
    async (network) => {
      const { call, card } = await withCard()
      const res = await call('POST', WALLET_TO_CARD, {
        ...VALID_BODIES[WALLET_TO_CARD](card),
        network,
      })
      expect(res.status, JSON.stringify(res.body)).toBe(422)
      expect(res.body).toEqual({
        message: `The code field is required when network is ${network}.`,
        statusCode: 422,
        errors: { code: [`The code field is required when network is ${network}.`] },
      })
    },
  )

  it.each(['wave-sn', 'wave-ci', 'mtn-ci'])('does not require code for %s', async (network) => {
    const { call, card } = await withCard()
    const res = await call('POST', WALLET_TO_CARD, {
      ...VALID_BODIES[WALLET_TO_CARD](card),
      network,
    })
    expect(res.status, JSON.stringify(res.body)).toBe(200)
    expect(res.body.data.transaction.network).toBe(network)
  })

  it('names a missing code together with the other bad fields (PRODUCT §4: every bad field)', async () => {
    const { call } = newSandbox()
    const res = await call('POST', WALLET_TO_CARD, { amount: 0, network: 'orange-money-ci' })
    expect(res.status, JSON.stringify(res.body)).toBe(422)
    expect(Object.keys(res.body.errors).sort()).toEqual([
      'amount',
      'card_reference',
      'code',
      'phone',
    ])
  })

  it('refuses an orange-money-sn code the sandbox never issued with a 422 naming code (PRODUCT §4, §5)', async () => {
    const { call, card } = await withCard()
    const res = await call('POST', WALLET_TO_CARD, {
      ...VALID_BODIES[WALLET_TO_CARD](card),
      network: 'orange-money-sn',
      code: '000000',
    })
    expect(res.status, JSON.stringify(res.body)).toBe(422)
    expect(Object.keys(res.body.errors ?? {})).toEqual(['code'])
  })

  it.each(['moov-bj', 't-money-togo', 'paypal'])(
    'refuses %s, which is not a wallet-to-card network, with a 422 naming network',
    async (network) => {
      const { call, card } = await withCard()
      const res = await call('POST', WALLET_TO_CARD, {
        ...VALID_BODIES[WALLET_TO_CARD](card),
        network,
      })
      expect(res.status, JSON.stringify(res.body)).toBe(422)
      expect(res.body).toEqual({
        message:
          'The selected network is invalid. Allowed: mtn-ci, orange-money-ci, wave-ci, orange-money-sn, wave-sn.',
        statusCode: 422,
        errors: {
          network: [
            'The selected network is invalid. Allowed: mtn-ci, orange-money-ci, wave-ci, orange-money-sn, wave-sn.',
          ],
        },
      })
    },
  )

  it('names every missing required field in one 422: amount, card_reference, phone, network', async () => {
    const { call } = newSandbox()
    const res = await call('POST', WALLET_TO_CARD, {})
    expect(res.status, JSON.stringify(res.body)).toBe(422)
    expect(Object.keys(res.body.errors).sort()).toEqual([
      'amount',
      'card_reference',
      'network',
      'phone',
    ])
  })
})

describe.each(ENDPOINTS)('POST %s: amount validation (PRODUCT §10: positive integers)', (path) => {
  const cases: [string, unknown, string][] = [
    ['a missing amount', undefined, 'The amount field is required.'],
    ['amount null', null, 'The amount field is required.'],
    ['amount 1.5', 1.5, 'The amount field must be an integer.'],
    ['the string "100"', '100', 'The amount field must be an integer.'],
    ['an amount above 10^12', 1e12 + 1, 'The amount field must not be greater than 1000000000000.'],
  ]

  it.each(cases)('refuses %s with a 422 naming amount', async (_label, amount, message) => {
    const { call, card } = await withCard()
    const res = await call('POST', path, { ...VALID_BODIES[path](card), amount })
    expect(res.status, JSON.stringify(res.body)).toBe(422)
    expect(res.body).toEqual({ message, statusCode: 422, errors: { amount: [message] } })
  })

  it.each([0, -5])('refuses amount %s with a 422 naming amount', async (amount) => {
    const { call, card } = await withCard()
    const res = await call('POST', path, { ...VALID_BODIES[path](card), amount })
    expect(res.status, JSON.stringify(res.body)).toBe(422)
    expect(Object.keys(res.body.errors)).toEqual(['amount'])
  })

  it('names card_reference when it is not a UUID, and every other bad field with it', async () => {
    const { call } = newSandbox()
    const res = await call('POST', path, { ...VALID_BODIES[path]('not-a-uuid'), amount: -1 })
    expect(res.status, JSON.stringify(res.body)).toBe(422)
    expect(Object.keys(res.body.errors).sort()).toEqual(['amount', 'card_reference'])
    expect(res.body.errors.card_reference).toEqual([
      'The card reference field must be a valid UUID.',
    ])
  })
})

describe.each(ENDPOINTS)('POST %s: card rules (PRODUCT §4, §5, §10)', (path) => {
  it('answers 404 naming card_reference for a card that does not exist', async () => {
    const { call } = newSandbox()
    const res = await call('POST', path, VALID_BODIES[path](UNKNOWN_UUID))
    expect(res.status, JSON.stringify(res.body)).toBe(404)
    const message = `No card found for card_reference "${UNKNOWN_UUID}".`
    expect(res.body).toEqual({ message, statusCode: 404, errors: { card_reference: [message] } })
  })

  it("answers 404 naming card_reference for another tenant's card", async () => {
    const { call, fundedCard } = newSandbox()
    const { reference } = await fundedCard('visa', 'other')
    const res = await call('POST', path, VALID_BODIES[path](reference))
    expect(res.status, JSON.stringify(res.body)).toBe(404)
    expect(Object.keys(res.body.errors)).toEqual(['card_reference'])
    // The owner can use it.
    const own = await call('POST', path, VALID_BODIES[path](reference), { token: 'other' })
    expect(own.status, JSON.stringify(own.body)).toBe(200)
  })

  it('answers 422 naming card_reference for a frozen card, and accepts again once unfrozen', async () => {
    const { call, card } = await withCard()
    const frozen = await call('POST', '/v1/cards/freeze', { reference: card })
    expect(frozen.status, JSON.stringify(frozen.body)).toBe(200)
    const res = await call('POST', path, VALID_BODIES[path](card))
    expect(res.status, JSON.stringify(res.body)).toBe(422)
    expect(res.body).toEqual({
      message: expect.stringContaining('frozen'),
      statusCode: 422,
      errors: { card_reference: [expect.stringContaining('frozen')] },
    })
    const unfrozen = await call('POST', '/v1/cards/unfreeze', { reference: card })
    expect(unfrozen.status, JSON.stringify(unfrozen.body)).toBe(200)
    const again = await call('POST', path, VALID_BODIES[path](card))
    expect(again.status, JSON.stringify(again.body)).toBe(200)
  })

  it('answers 422 naming card_reference for a card still issuing', async () => {
    const sandbox = newSandbox()
    const card = await issuingCard(sandbox)
    const res = await sandbox.call('POST', path, VALID_BODIES[path](card))
    expect(res.status, JSON.stringify(res.body)).toBe(422)
    expect(res.body).toEqual({
      message: expect.stringContaining('issuing'),
      statusCode: 422,
      errors: { card_reference: [expect.stringContaining('issuing')] },
    })
  })

  it('answers 422 naming card_reference for a card whose issuing failed', async () => {
    const sandbox = newSandbox()
    const card = await issuingCard(sandbox)
    const failed = await sandbox.call('POST', `/__sandbox/cards/${card}/transition`, {
      to: 'failed',
    })
    expect(failed.status, JSON.stringify(failed.body)).toBe(200)
    const res = await sandbox.call('POST', path, VALID_BODIES[path](card))
    expect(res.status, JSON.stringify(res.body)).toBe(422)
    expect(Object.keys(res.body.errors)).toEqual(['card_reference'])
  })

  it('creates nothing when it refuses', async () => {
    const { call, card } = await withEmptyCard()
    // Funded with exactly the transfer's amount: only the frozen card and the bad amount refuse.
    const recharge = await fund(call, card, 15000)
    const frozen = await call('POST', '/v1/cards/freeze', { reference: card })
    expect(frozen.status, JSON.stringify(frozen.body)).toBe(200)
    const onFrozen = await call('POST', path, VALID_BODIES[path](card))
    expect(onFrozen.status, JSON.stringify(onFrozen.body)).toBe(422)
    const zero = await call('POST', path, { ...VALID_BODIES[path](card), amount: 0 })
    expect(zero.status, JSON.stringify(zero.body)).toBe(422)
    // The funding's recharge is the only row: the refused transfers left none.
    const list = await call('GET', '/v1/transactions')
    expect(list.status, JSON.stringify(list.body)).toBe(200)
    expect(list.body.data.transaction.map((t: any) => [t.slug, t.kind, t.status])).toEqual([
      [recharge.slug, 'recharge', 'success'],
    ])
    expect(list.body.meta.total).toBe(1)
    // ...and held nothing: the balance is still the funded amount.
    const cards = await call('GET', '/v1/cards')
    expect(cards.status, JSON.stringify(cards.body)).toBe(200)
    expect(cards.body.data.map((c: any) => [c.reference, c.balance])).toEqual([[card, 15000]])
  })
})

describe('GET /v1/transactions', () => {
  it('lists the tenant transactions newest first with the pagination meta (quirks on)', async () => {
    const { call, card } = await withEmptyCard()
    const recharge = await fund(call, card, 100)
    const first = await call('POST', CARD_TO_WALLET, {
      amount: 100,
      card_reference: card,
      reference: 'first',
      phone: PHONE,
      network: 'wave-sn',
    })
    // Less than the 5 s settlement delay: distinct timestamps, both transfers still pending.
    const advanced = await call('POST', '/__sandbox/clock/advance', { by: 1000 })
    expect(advanced.status, JSON.stringify(advanced.body)).toBe(200)
    const second = await call('POST', WALLET_TO_CARD, {
      amount: 200,
      card_reference: card,
      reference: 'second',
      phone: PHONE,
      network: 'mtn-ci',
    })
    expect(first.status, JSON.stringify(first.body)).toBe(200)
    expect(second.status, JSON.stringify(second.body)).toBe(200)

    const res = await call('GET', '/v1/transactions')
    expect(res.status, JSON.stringify(res.body)).toBe(200)
    expect(res.body).toEqual({
      message: 'Transactions fetched successfully',
      statusCode: 200,
      data: {
        transaction: [
          {
            slug: second.body.data.transaction.slug,
            card_reference: card,
            reference: 'second',
            status: 'pending',
            kind: 'wallet_to_card',
            merchant: false,
            amount: 200,
            phone: PHONE,
            network: 'mtn-ci',
            created_at: '2026-01-01T00:00:01.000000Z',
          },
          {
            slug: first.body.data.transaction.slug,
            card_reference: card,
            reference: 'first',
            status: 'pending',
            kind: 'card_to_wallet',
            merchant: false,
            amount: 100,
            phone: PHONE,
            network: 'wave-sn',
            created_at: START_MICROS,
          },
          {
            slug: recharge.slug,
            card_reference: card,
            reference: recharge.reference,
            status: 'success',
            kind: 'recharge',
            merchant: false,
            amount: 100,
            created_at: START_MICROS,
          },
        ],
      },
      meta: { current_page: 1, from: 1, last_page: 1, per_page: 20, to: 3, total: 3 },
    })
    expect(recharge.reference).toMatch(UUID)
  })

  it('lists a card_to_bank transaction with merchant false, the bank kept for its own answers (quirks on)', async () => {
    const { call, card } = await withCard()
    const sent = await call('POST', CARD_TO_BANK, VALID_BODIES[CARD_TO_BANK](card))
    expect(sent.body.data.transaction.merchant, JSON.stringify(sent.body)).toBe('BICICI')
    const res = await call('GET', '/v1/transactions')
    expect(res.status, JSON.stringify(res.body)).toBe(200)
    const listed = res.body.data.transaction.find((t: any) => t.kind === 'card_to_bank')
    expect(listed).toMatchObject({ slug: sent.body.data.transaction.slug, merchant: false })
  })

  it('lists with merchant null and millisecond created_at with quirks off', async () => {
    const { call, card } = await withEmptyCard({ quirks: false })
    const recharge = await fund(call, card, 100)
    const created = await call('POST', CARD_TO_WALLET, {
      amount: 100,
      card_reference: card,
      reference: 'first',
      phone: PHONE,
      network: 'wave-sn',
    })
    expect(created.status, JSON.stringify(created.body)).toBe(200)
    const res = await call('GET', '/v1/transactions')
    expect(res.status, JSON.stringify(res.body)).toBe(200)
    expect(res.body).toEqual({
      message: 'Transactions fetched successfully',
      statusCode: 200,
      data: {
        transaction: [
          {
            slug: created.body.data.transaction.slug,
            card_reference: card,
            reference: 'first',
            status: 'pending',
            kind: 'card_to_wallet',
            merchant: null,
            amount: 100,
            phone: PHONE,
            network: 'wave-sn',
            created_at: START_MILLIS,
          },
          {
            slug: recharge.slug,
            card_reference: card,
            reference: recharge.reference,
            status: 'success',
            kind: 'recharge',
            merchant: null,
            amount: 100,
            created_at: START_MILLIS,
          },
        ],
      },
      meta: { current_page: 1, from: 1, last_page: 1, per_page: 20, to: 2, total: 2 },
    })
  })

  it('shows the status the transaction has now', async () => {
    const { call, card } = await withEmptyCard()
    const recharge = await fund(call, card, 30000)
    const toBank = await call('POST', CARD_TO_BANK, VALID_BODIES[CARD_TO_BANK](card))
    expect(toBank.status, JSON.stringify(toBank.body)).toBe(200)
    const toWallet = await call('POST', CARD_TO_WALLET, VALID_BODIES[CARD_TO_WALLET](card))
    expect(toWallet.status, JSON.stringify(toWallet.body)).toBe(200)
    const bank = toBank.body.data.transaction.slug
    const wallet = toWallet.body.data.transaction.slug
    const statuses = async () => {
      const res = await call('GET', '/v1/transactions')
      expect(res.status, JSON.stringify(res.body)).toBe(200)
      return res.body.data.transaction.map((t: any) => [t.slug, t.status])
    }

    // Moved by the control plane.
    const moved = await call('POST', `/__sandbox/transactions/${bank}/transition`, {
      to: 'success',
    })
    expect(moved.status, JSON.stringify(moved.body)).toBe(200)
    expect(await statuses()).toEqual([
      [wallet, 'pending'],
      [bank, 'success'],
      [recharge.slug, 'success'],
    ])

    // Settled by the scheduler 5 s after creation on the sandbox clock.
    const advanced = await call('POST', '/__sandbox/clock/advance', { by: 5000 })
    expect(advanced.status, JSON.stringify(advanced.body)).toBe(200)
    expect(await statuses()).toEqual([
      [wallet, 'success'],
      [bank, 'success'],
      [recharge.slug, 'success'],
    ])
  })

  it('answers an empty list with Laravel null bounds when the tenant has no transactions', async () => {
    const { call } = newSandbox()
    const res = await call('GET', '/v1/transactions')
    expect(res.status, JSON.stringify(res.body)).toBe(200)
    expect(res.body).toEqual({
      message: 'Transactions fetched successfully',
      statusCode: 200,
      data: { transaction: [] },
      meta: { current_page: 1, from: null, last_page: 1, per_page: 20, to: null, total: 0 },
    })
  })

  it('filters by card_reference', async () => {
    const sandbox = newSandbox()
    const { call } = sandbox
    const a = (await sandbox.issuedCard('visa')).reference
    const b = (await sandbox.issuedCard('mastercard')).reference
    const rechargeA = await fund(call, a, 15000)
    const rechargeB = await fund(call, b, 15000)
    const onA1 = await call('POST', CARD_TO_BANK, VALID_BODIES[CARD_TO_BANK](a))
    const onB = await call('POST', CARD_TO_WALLET, VALID_BODIES[CARD_TO_WALLET](b))
    const onA2 = await call('POST', WALLET_TO_CARD, VALID_BODIES[WALLET_TO_CARD](a))
    for (const created of [onA1, onB, onA2])
      expect(created.status, JSON.stringify(created.body)).toBe(200)

    const resA = await call('GET', `/v1/transactions?card_reference=${a}`)
    expect(resA.status, JSON.stringify(resA.body)).toBe(200)
    expect(resA.body.data.transaction.map((t: any) => t.slug)).toEqual([
      onA2.body.data.transaction.slug,
      onA1.body.data.transaction.slug,
      rechargeA.slug,
    ])
    expect(resA.body.data.transaction.every((t: any) => t.card_reference === a)).toBe(true)
    expect(resA.body.meta).toEqual({
      current_page: 1,
      from: 1,
      last_page: 1,
      per_page: 20,
      to: 3,
      total: 3,
    })

    const resB = await call('GET', `/v1/transactions?card_reference=${b}`)
    expect(resB.status, JSON.stringify(resB.body)).toBe(200)
    expect(resB.body.data.transaction.map((t: any) => t.slug)).toEqual([
      onB.body.data.transaction.slug,
      rechargeB.slug,
    ])
    expect(resB.body.meta.total).toBe(2)
  })

  it('answers an empty page for a card of the tenant without transactions', async () => {
    const { call, card } = await withEmptyCard()
    const res = await call('GET', `/v1/transactions?card_reference=${card}`)
    expect(res.status, JSON.stringify(res.body)).toBe(200)
    expect(res.body.data).toEqual({ transaction: [] })
    expect(res.body.meta).toEqual({
      current_page: 1,
      from: null,
      last_page: 1,
      per_page: 20,
      to: null,
      total: 0,
    })
  })

  it('paginates with page and per_page', async () => {
    // Wallet-to-card needs no funding, so the list holds exactly these five.
    const { call, card } = await withEmptyCard()
    const slugs: string[] = []
    for (let i = 1; i <= 5; i++) {
      const res = await call('POST', WALLET_TO_CARD, {
        ...VALID_BODIES[WALLET_TO_CARD](card),
        amount: i,
      })
      expect(res.status, JSON.stringify(res.body)).toBe(200)
      slugs.push(res.body.data.transaction.slug)
    }
    const newestFirst = [...slugs].reverse()

    const page1 = await call('GET', '/v1/transactions?per_page=2')
    expect(page1.status, JSON.stringify(page1.body)).toBe(200)
    expect(page1.body.data.transaction.map((t: any) => t.slug)).toEqual(newestFirst.slice(0, 2))
    expect(page1.body.meta).toEqual({
      current_page: 1,
      from: 1,
      last_page: 3,
      per_page: 2,
      to: 2,
      total: 5,
    })

    const page2 = await call('GET', `/v1/transactions?card_reference=${card}&page=2&per_page=2`)
    expect(page2.status, JSON.stringify(page2.body)).toBe(200)
    expect(page2.body.data.transaction.map((t: any) => t.slug)).toEqual(newestFirst.slice(2, 4))
    expect(page2.body.meta).toEqual({
      current_page: 2,
      from: 3,
      last_page: 3,
      per_page: 2,
      to: 4,
      total: 5,
    })

    const page3 = await call('GET', '/v1/transactions?page=3&per_page=2')
    expect(page3.status, JSON.stringify(page3.body)).toBe(200)
    expect(page3.body.data.transaction.map((t: any) => t.slug)).toEqual(newestFirst.slice(4))
    expect(page3.body.meta).toEqual({
      current_page: 3,
      from: 5,
      last_page: 3,
      per_page: 2,
      to: 5,
      total: 5,
    })
  })

  it('answers an empty page with null bounds past the last page', async () => {
    const { call, card } = await withEmptyCard()
    const created = await call('POST', WALLET_TO_CARD, VALID_BODIES[WALLET_TO_CARD](card))
    expect(created.status, JSON.stringify(created.body)).toBe(200)
    const res = await call('GET', '/v1/transactions?page=4')
    expect(res.status, JSON.stringify(res.body)).toBe(200)
    expect(res.body.data.transaction).toEqual([])
    expect(res.body.meta).toEqual({
      current_page: 4,
      from: null,
      last_page: 1,
      per_page: 20,
      to: null,
      total: 1,
    })
  })

  it.each([
    ['page=0', ['page']],
    ['per_page=0', ['per_page']],
    ['per_page=101', ['per_page']],
    ['page=abc&per_page=1.5', ['page', 'per_page']],
  ])('refuses %s with a 422 naming the bad query fields', async (query, fields) => {
    const { call } = newSandbox()
    const res = await call('GET', `/v1/transactions?${query}`)
    expect(res.status, JSON.stringify(res.body)).toBe(422)
    expect(Object.keys(res.body.errors).sort()).toEqual(fields)
  })

  it('answers 404 naming card_reference for an unknown card', async () => {
    const { call } = newSandbox()
    const res = await call('GET', `/v1/transactions?card_reference=${UNKNOWN_UUID}`)
    expect(res.status, JSON.stringify(res.body)).toBe(404)
    const message = `No card found for card_reference "${UNKNOWN_UUID}".`
    expect(res.body).toEqual({ message, statusCode: 404, errors: { card_reference: [message] } })
  })

  it('answers 422 naming card_reference when it is not a UUID', async () => {
    const { call } = newSandbox()
    const res = await call('GET', '/v1/transactions?card_reference=not-a-uuid')
    expect(res.status, JSON.stringify(res.body)).toBe(422)
    expect(res.body).toEqual({
      message: 'The card reference field must be a valid UUID.',
      statusCode: 422,
      errors: { card_reference: ['The card reference field must be a valid UUID.'] },
    })
  })

  it("never shows another tenant's transactions and answers 404 for another tenant's card", async () => {
    const { call, issuedCard } = newSandbox()
    const theirs = (await issuedCard('visa', 'other')).reference
    const recharge = await fund(call, theirs, 15000, 'other')
    const created = await call('POST', CARD_TO_WALLET, VALID_BODIES[CARD_TO_WALLET](theirs), {
      token: 'other',
    })
    expect(created.status, JSON.stringify(created.body)).toBe(200)

    const mine = await call('GET', '/v1/transactions')
    expect(mine.status, JSON.stringify(mine.body)).toBe(200)
    expect(mine.body.data.transaction).toEqual([])
    expect(mine.body.meta.total).toBe(0)

    const filtered = await call('GET', `/v1/transactions?card_reference=${theirs}`)
    expect(filtered.status, JSON.stringify(filtered.body)).toBe(404)
    expect(Object.keys(filtered.body.errors)).toEqual(['card_reference'])

    const theirList = await call('GET', '/v1/transactions', undefined, { token: 'other' })
    expect(theirList.body.data.transaction.map((t: any) => t.slug)).toEqual([
      created.body.data.transaction.slug,
      recharge.slug,
    ])
  })
})

describe('idempotency', () => {
  it('refuses a transfer repeating a reference on the same card with 422, debiting once', async () => {
    const s = newSandbox()
    const { reference: card } = await s.issuedCard()
    await s.call('POST', `/__sandbox/cards/${card}/fund`, { amount: 1_000 })
    const body = {
      amount: 300,
      card_reference: card,
      reference: 'invoice-9',
      bank_id: 'B',
      bank_name: 'BICICI',
    }
    expect((await s.call('POST', CARD_TO_BANK, body)).status).toBe(200)
    const again = await s.call('POST', CARD_TO_BANK, body)
    expect(again.status).toBe(422)
    expect(again.body.errors).toEqual({
      reference: [expect.stringMatching(/^The reference has already been used on this card/)],
    })
    const wallet = await s.call('POST', CARD_TO_WALLET, {
      amount: 1,
      card_reference: card,
      reference: 'invoice-9',
      phone: PHONE,
      network: 'mtn-ci',
    })
    expect(wallet.status).toBe(422)
    expect((await s.call('GET', '/v1/cards')).body.data[0].balance).toBe(700)
    // the same reference on another card is another transfer
    const { reference: other } = await s.fundedCard()
    expect((await s.call('POST', CARD_TO_BANK, { ...body, card_reference: other })).status).toBe(
      200,
    )
  })
})

describe('GET /v1/transactions/{slug or reference}', () => {
  const send = (call: ReturnType<typeof newSandbox>['call'], card: string, reference: string) =>
    call('POST', CARD_TO_WALLET, { ...VALID_BODIES[CARD_TO_WALLET](card), reference })

  it('answers the transaction by slug with `transaction` beside `message`, as the docs show (quirks on)', async () => {
    const { call, card } = await withCard()
    const sent = await send(call, card, 'order-1')
    const slug: string = sent.body.data.transaction.slug
    const res = await call('GET', `/v1/transactions/${slug}`)
    expect(res.status).toBe(200)
    expect(res.body).toEqual({
      message: 'OK',
      statusCode: 200,
      transaction: {
        slug,
        card_reference: card,
        reference: 'order-1',
        status: 'pending',
        kind: 'card_to_wallet',
        merchant: false,
        amount: 15000,
        phone: PHONE,
        network: 'wave-sn',
        created_at: START_MICROS,
      },
    })
  })

  it('shows a card_to_bank transaction with the bank as merchant, as its creation answered (quirks on)', async () => {
    const { call, card } = await withCard()
    const sent = await call('POST', CARD_TO_BANK, VALID_BODIES[CARD_TO_BANK](card))
    expect(sent.status, JSON.stringify(sent.body)).toBe(200)
    const res = await call('GET', `/v1/transactions/${sent.body.data.transaction.slug}`)
    expect(res.status, JSON.stringify(res.body)).toBe(200)
    expect(res.body.transaction).toEqual(sent.body.data.transaction)
    expect(res.body.transaction.merchant).toBe('BICICI')
  })

  it('answers under data.transaction with quirks off', async () => {
    const { call, card } = await withCard({ quirks: false })
    const sent = await send(call, card, 'order-1')
    const res = await call('GET', `/v1/transactions/${sent.body.data.transaction.slug}`)
    expect(res.body).toEqual({
      message: 'OK',
      statusCode: 200,
      data: { transaction: { ...sent.body.data.transaction, created_at: START_MILLIS } },
    })
  })

  it('finds the newest transaction made with a client reference that is no UUID', async () => {
    const sb = newSandbox()
    const first = (await sb.fundedCard('visa')).reference
    const second = (await sb.fundedCard('mastercard')).reference
    await send(sb.call, first, 'order 7/a')
    await sb.call('POST', '/__sandbox/clock/advance', { by: '1s' })
    const newer = await send(sb.call, second, 'order 7/a')
    const res = await sb.call('GET', `/v1/transactions/${encodeURIComponent('order 7/a')}`)
    expect(res.status).toBe(200)
    expect(res.body.transaction.slug).toBe(newer.body.data.transaction.slug)
    expect(res.body.transaction.card_reference).toBe(second)
  })

  it('adds data.transaction beside the top-level one with --sdk-compat', async () => {
    const { call, card } = await withCard({ sdkCompat: true })
    const sent = await send(call, card, 'order-1')
    const res = await call('GET', '/v1/transactions/order-1')
    expect(res.body.data).toEqual({ transaction: res.body.transaction })
    expect(res.body.transaction.slug).toBe(sent.body.data.transaction.slug)
  })

  it("answers 404 for an unknown slug or reference and for another tenant's", async () => {
    const { call, card } = await withCard()
    const sent = await send(call, card, 'order-1')
    const unknown = await call('GET', `/v1/transactions/${UNKNOWN_UUID}`)
    expect(unknown.status).toBe(404)
    expect(unknown.body.statusCode).toBe(404)
    expect(unknown.body.errors).toHaveProperty('reference')
    for (const x of [sent.body.data.transaction.slug, 'order-1']) {
      const foreign = await call('GET', `/v1/transactions/${x}`, undefined, { token: 'other' })
      expect(foreign.status).toBe(404)
    }
  })

  it('never takes a literal path for a reference', async () => {
    const { call } = await withCard()
    const create = await call('GET', '/v1/transactions/create')
    expect(create.status).toBe(405)
    expect(create.headers.get('Allow')).toBe('POST')
    expect((await call('GET', '/v1/transactions/create/card-to-bank')).status).toBe(405)
  })
})
