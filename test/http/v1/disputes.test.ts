/**
 * Disputes (SPEC §2.8, §4.5; PRODUCT §5, §8, §10): opened on a transaction through the control
 * plane, submitted by POST /v1/disputes/update/{reference}, resolved won | lost.
 */
import { describe, expect, it } from 'vitest'
import { disputeByReference } from '../../../src/store/disputes.js'
import { TOKEN, UUID, newSandbox } from '../../helpers.js'

const PHONE = '+221770000001'
const UNKNOWN_UUID = '3f2504e0-4f89-41d3-9a0c-0305e82c3301'
const REASONS = [
  'duplicate',
  'not_received',
  'fraudulent',
  'product_not_as_described',
  'service_not_as_described',
  'canceled',
  'other',
]

type Sandbox = ReturnType<typeof newSandbox>

/** A card-to-wallet transaction on a fresh issued card; returns its slug. */
async function transactionOf(sandbox: Sandbox, token?: string) {
  const { reference } = await sandbox.fundedCard('visa', token)
  const res = await sandbox.call(
    'POST',
    '/v1/transactions/create/card-to-wallet',
    { amount: 1000, card_reference: reference, phone: PHONE, network: 'wave-sn' },
    { token },
  )
  expect(res.status, JSON.stringify(res.body)).toBe(200)
  return res.body.data.transaction.slug as string
}

/** Opens a dispute through the control plane; returns its reference. */
async function openDispute(
  sandbox: Sandbox,
  transactionSlug: string,
  reason = 'duplicate',
  token?: string,
) {
  const res = await sandbox.call(
    'POST',
    '/__sandbox/disputes',
    { transaction_slug: transactionSlug, reason },
    { token },
  )
  expect(res.status, JSON.stringify(res.body)).toBe(200)
  return res.body.data.reference as string
}

/** A fresh sandbox with one transaction and an open dispute on it. */
async function withOpenDispute(options: Parameters<typeof newSandbox>[0] = {}) {
  const sandbox = newSandbox(options)
  const slug = await transactionOf(sandbox)
  const dispute = await openDispute(sandbox, slug)
  return { ...sandbox, slug, dispute }
}

/** The dispute's row as stored, read through the store (either database) as its tenant's. */
async function storedDispute(sandbox: Sandbox, reference: string, token = TOKEN) {
  const tenant = (await sandbox.deps.tenants.forToken(token))!
  return await disputeByReference(sandbox.deps.db, tenant.id, reference)
}

const update = (sandbox: Sandbox, reference: string, body: unknown, token?: string) =>
  sandbox.call('POST', `/v1/disputes/update/${reference}`, body, { token })

describe('POST /v1/disputes/update/{reference}', () => {
  it('submits an open dispute and answers data as an array with slug {reference: null} (quirks on)', async () => {
    const sandbox = await withOpenDispute()
    const res = await update(sandbox, sandbox.dispute, {
      transaction_slug: sandbox.slug,
      explanation: 'The customer was charged twice for the same order.',
    })
    expect(res.status, JSON.stringify(res.body)).toBe(200)
    expect(res.body).toEqual({
      message: 'Dispute updated successfully',
      statusCode: 200,
      data: [
        {
          transaction_slug: sandbox.slug,
          slug: { reference: null },
          status: 'submitted',
          reason: 'duplicate',
          explanation: 'The customer was charged twice for the same order.',
        },
      ],
    })
  })

  it('carries the dispute reference in slug.reference with quirks off', async () => {
    const sandbox = await withOpenDispute({ quirks: false })
    const res = await update(sandbox, sandbox.dispute, {
      transaction_slug: sandbox.slug,
      explanation: 'The customer was charged twice for the same order.',
    })
    expect(res.status, JSON.stringify(res.body)).toBe(200)
    expect(res.body).toEqual({
      message: 'Dispute updated successfully',
      statusCode: 200,
      data: [
        {
          transaction_slug: sandbox.slug,
          slug: { reference: sandbox.dispute },
          status: 'submitted',
          reason: 'duplicate',
          explanation: 'The customer was charged twice for the same order.',
        },
      ],
    })
    expect(res.body.data[0].slug.reference).toMatch(UUID)
  })

  it('stores the explanation and the submitted status', async () => {
    const sandbox = await withOpenDispute()
    const res = await update(sandbox, sandbox.dispute, {
      transaction_slug: sandbox.slug,
      explanation: 'Charged twice.',
    })
    expect(res.status, JSON.stringify(res.body)).toBe(200)
    expect(await storedDispute(sandbox, sandbox.dispute)).toMatchObject({
      status: 'submitted',
      explanation: 'Charged twice.',
      transactionSlug: sandbox.slug,
    })
    // The control plane sees it submitted: won is now a legal move from there.
    const won = await sandbox.call('POST', `/__sandbox/disputes/${sandbox.dispute}/transition`, {
      to: 'won',
    })
    expect(won.status, JSON.stringify(won.body)).toBe(200)
    expect(won.body.data).toMatchObject({ from: 'submitted', to: 'won' })
  })

  it('keeps the reason the dispute was opened with', async () => {
    const sandbox = newSandbox()
    const slug = await transactionOf(sandbox)
    const dispute = await openDispute(sandbox, slug, 'fraudulent')
    const res = await update(sandbox, dispute, {
      transaction_slug: slug,
      explanation: 'Card was stolen.',
    })
    expect(res.status, JSON.stringify(res.body)).toBe(200)
    expect(res.body.data[0].reason).toBe('fraudulent')
  })

  it('lets a submitted dispute be updated again, replacing the explanation', async () => {
    const sandbox = await withOpenDispute()
    const first = await update(sandbox, sandbox.dispute, {
      transaction_slug: sandbox.slug,
      explanation: 'First try.',
    })
    expect(first.status, JSON.stringify(first.body)).toBe(200)
    const second = await update(sandbox, sandbox.dispute, {
      transaction_slug: sandbox.slug,
      explanation: 'With the receipt attached.',
    })
    expect(second.status, JSON.stringify(second.body)).toBe(200)
    expect(second.body.data).toEqual([
      {
        transaction_slug: sandbox.slug,
        slug: { reference: null },
        status: 'submitted',
        reason: 'duplicate',
        explanation: 'With the receipt attached.',
      },
    ])
    expect((await storedDispute(sandbox, sandbox.dispute))?.explanation).toBe(
      'With the receipt attached.',
    )
  })

  it.each(['won', 'lost'])(
    'refuses to update a dispute resolved %s through the control plane with 409 and no allowed states',
    async (outcome) => {
      const sandbox = await withOpenDispute()
      await update(sandbox, sandbox.dispute, {
        transaction_slug: sandbox.slug,
        explanation: 'Charged twice.',
      })
      const resolved = await sandbox.call(
        'POST',
        `/__sandbox/disputes/${sandbox.dispute}/transition`,
        { to: outcome },
      )
      expect(resolved.status, JSON.stringify(resolved.body)).toBe(200)

      const res = await update(sandbox, sandbox.dispute, {
        transaction_slug: sandbox.slug,
        explanation: 'Late.',
      })
      expect(res.status, JSON.stringify(res.body)).toBe(409)
      expect(res.body).toEqual({
        message: expect.any(String),
        statusCode: 409,
        from: outcome,
        to: 'submitted',
        allowed: [],
      })
      expect(await storedDispute(sandbox, sandbox.dispute)).toMatchObject({
        status: outcome,
        explanation: 'Charged twice.',
      })
    },
  )

  it('answers 404 naming reference for an unknown dispute', async () => {
    const sandbox = newSandbox()
    const slug = await transactionOf(sandbox)
    const res = await update(sandbox, UNKNOWN_UUID, {
      transaction_slug: slug,
      explanation: 'Charged twice.',
    })
    expect(res.status, JSON.stringify(res.body)).toBe(404)
    const message = `No dispute found for reference "${UNKNOWN_UUID}".`
    expect(res.body).toEqual({ message, statusCode: 404, errors: { reference: [message] } })
  })

  it("answers 404 for another tenant's dispute and leaves it open", async () => {
    const sandbox = newSandbox()
    const slug = await transactionOf(sandbox, 'other')
    const dispute = await openDispute(sandbox, slug, 'duplicate', 'other')
    const res = await update(sandbox, dispute, { transaction_slug: slug, explanation: 'Not mine.' })
    expect(res.status, JSON.stringify(res.body)).toBe(404)
    expect(await storedDispute(sandbox, dispute, 'other')).toMatchObject({
      status: 'open',
      explanation: null,
    })
  })

  it('answers 404 when the path reference is not a UUID', async () => {
    const sandbox = await withOpenDispute()
    const res = await update(sandbox, 'not-a-uuid', {
      transaction_slug: sandbox.slug,
      explanation: 'Charged twice.',
    })
    expect(res.status, JSON.stringify(res.body)).toBe(404)
    expect(res.body).toEqual({ message: expect.any(String), statusCode: 404 })
  })

  it("answers 422 naming transaction_slug for a transaction that is not the dispute's, and changes nothing", async () => {
    const sandbox = await withOpenDispute()
    const otherSlug = await transactionOf(sandbox)
    const res = await update(sandbox, sandbox.dispute, {
      transaction_slug: otherSlug,
      explanation: 'Charged twice.',
    })
    expect(res.status, JSON.stringify(res.body)).toBe(422)
    const notThis = 'The dispute was not opened on this transaction.'
    expect(res.body).toEqual({
      message: notThis,
      statusCode: 422,
      errors: { transaction_slug: [notThis] },
    })
    expect(await storedDispute(sandbox, sandbox.dispute)).toMatchObject({
      status: 'open',
      explanation: null,
    })
  })

  it('answers 404 naming transaction_slug for an unknown transaction', async () => {
    const sandbox = await withOpenDispute()
    const res = await update(sandbox, sandbox.dispute, {
      transaction_slug: UNKNOWN_UUID,
      explanation: 'Charged twice.',
    })
    expect(res.status, JSON.stringify(res.body)).toBe(404)
    const message = `No transaction found for transaction_slug "${UNKNOWN_UUID}".`
    expect(res.body).toEqual({ message, statusCode: 404, errors: { transaction_slug: [message] } })
  })

  it('answers 422 naming explanation when it is missing', async () => {
    const sandbox = await withOpenDispute()
    const res = await update(sandbox, sandbox.dispute, { transaction_slug: sandbox.slug })
    expect(res.status, JSON.stringify(res.body)).toBe(422)
    expect(res.body).toEqual({
      message: 'The explanation field is required.',
      statusCode: 422,
      errors: { explanation: ['The explanation field is required.'] },
    })
    expect(await storedDispute(sandbox, sandbox.dispute)).toMatchObject({
      status: 'open',
      explanation: null,
    })
  })

  it('answers 422 naming explanation when it is blank', async () => {
    const sandbox = await withOpenDispute()
    const res = await update(sandbox, sandbox.dispute, {
      transaction_slug: sandbox.slug,
      explanation: '   ',
    })
    expect(res.status, JSON.stringify(res.body)).toBe(422)
    expect(Object.keys(res.body.errors)).toEqual(['explanation'])
  })

  it('names every bad field in one 422: a non-UUID transaction_slug and a missing explanation', async () => {
    const sandbox = await withOpenDispute()
    const res = await update(sandbox, sandbox.dispute, { transaction_slug: 'abc' })
    expect(res.status, JSON.stringify(res.body)).toBe(422)
    expect(res.body).toEqual({
      message: 'The transaction slug field must be a valid UUID. (and 1 more error)',
      statusCode: 422,
      errors: {
        transaction_slug: ['The transaction slug field must be a valid UUID.'],
        explanation: ['The explanation field is required.'],
      },
    })
  })
})

describe('POST /__sandbox/disputes', () => {
  it('opens a dispute on a transaction of the tenant, status open', async () => {
    const sandbox = newSandbox()
    const slug = await transactionOf(sandbox)
    const res = await sandbox.call('POST', '/__sandbox/disputes', {
      transaction_slug: slug,
      reason: 'not_received',
    })
    expect(res.status, JSON.stringify(res.body)).toBe(200)
    expect(res.body).toEqual({
      message: 'Dispute opened',
      statusCode: 200,
      data: {
        reference: expect.stringMatching(UUID),
        transaction_slug: slug,
        reason: 'not_received',
        status: 'open',
      },
    })
  })

  it.each(REASONS)('accepts the reason %s', async (reason) => {
    const sandbox = newSandbox()
    const slug = await transactionOf(sandbox)
    const res = await sandbox.call('POST', '/__sandbox/disputes', {
      transaction_slug: slug,
      reason,
    })
    expect(res.status, JSON.stringify(res.body)).toBe(200)
    expect(res.body.data.reason).toBe(reason)
  })

  it('refuses a reason outside the list with a 422 naming reason', async () => {
    const sandbox = newSandbox()
    const slug = await transactionOf(sandbox)
    const res = await sandbox.call('POST', '/__sandbox/disputes', {
      transaction_slug: slug,
      reason: 'changed_my_mind',
    })
    expect(res.status, JSON.stringify(res.body)).toBe(422)
    const message = `The selected reason is invalid. Allowed: ${REASONS.join(', ')}.`
    expect(res.body).toEqual({ message, statusCode: 422, errors: { reason: [message] } })
  })

  it('names both fields when the body is empty', async () => {
    const { call } = newSandbox()
    const res = await call('POST', '/__sandbox/disputes', {})
    expect(res.status, JSON.stringify(res.body)).toBe(422)
    expect(Object.keys(res.body.errors).sort()).toEqual(['reason', 'transaction_slug'])
  })

  it('answers 404 naming transaction_slug for an unknown transaction', async () => {
    const { call } = newSandbox()
    const res = await call('POST', '/__sandbox/disputes', {
      transaction_slug: UNKNOWN_UUID,
      reason: 'duplicate',
    })
    expect(res.status, JSON.stringify(res.body)).toBe(404)
    expect(Object.keys(res.body.errors)).toEqual(['transaction_slug'])
  })

  it("answers 404 for another tenant's transaction", async () => {
    const sandbox = newSandbox()
    const slug = await transactionOf(sandbox, 'other')
    const res = await sandbox.call('POST', '/__sandbox/disputes', {
      transaction_slug: slug,
      reason: 'duplicate',
    })
    expect(res.status, JSON.stringify(res.body)).toBe(404)
    expect(Object.keys(res.body.errors)).toEqual(['transaction_slug'])
  })
})

describe('POST /__sandbox/disputes/{reference}/transition', () => {
  it.each(['won', 'lost'])('refuses open → %s with 409 listing allowed [submitted]', async (to) => {
    const sandbox = await withOpenDispute()
    const res = await sandbox.call('POST', `/__sandbox/disputes/${sandbox.dispute}/transition`, {
      to,
    })
    expect(res.status, JSON.stringify(res.body)).toBe(409)
    expect(res.body).toEqual({
      message: `A dispute cannot move from open to ${to}.`,
      statusCode: 409,
      from: 'open',
      to,
      allowed: ['submitted'],
    })
    expect((await storedDispute(sandbox, sandbox.dispute))?.status).toBe('open')
  })

  it('refuses submitted → open with 409 listing allowed [won, lost]', async () => {
    const sandbox = await withOpenDispute()
    await update(sandbox, sandbox.dispute, {
      transaction_slug: sandbox.slug,
      explanation: 'Charged twice.',
    })
    const res = await sandbox.call('POST', `/__sandbox/disputes/${sandbox.dispute}/transition`, {
      to: 'open',
    })
    expect(res.status, JSON.stringify(res.body)).toBe(409)
    expect(res.body).toMatchObject({
      statusCode: 409,
      from: 'submitted',
      to: 'open',
      allowed: ['won', 'lost'],
    })
  })

  it('refuses won → lost with 409 and no allowed states', async () => {
    const sandbox = await withOpenDispute()
    await update(sandbox, sandbox.dispute, {
      transaction_slug: sandbox.slug,
      explanation: 'Charged twice.',
    })
    await sandbox.call('POST', `/__sandbox/disputes/${sandbox.dispute}/transition`, { to: 'won' })
    const res = await sandbox.call('POST', `/__sandbox/disputes/${sandbox.dispute}/transition`, {
      to: 'lost',
    })
    expect(res.status, JSON.stringify(res.body)).toBe(409)
    expect(res.body).toMatchObject({ statusCode: 409, from: 'won', to: 'lost', allowed: [] })
  })

  it('resolves a submitted dispute as lost', async () => {
    const sandbox = await withOpenDispute()
    await update(sandbox, sandbox.dispute, {
      transaction_slug: sandbox.slug,
      explanation: 'Charged twice.',
    })
    const res = await sandbox.call('POST', `/__sandbox/disputes/${sandbox.dispute}/transition`, {
      to: 'lost',
    })
    expect(res.status, JSON.stringify(res.body)).toBe(200)
    expect(res.body).toEqual({
      message: 'Moved dispute to lost',
      statusCode: 200,
      data: { resource: 'dispute', reference: sandbox.dispute, from: 'submitted', to: 'lost' },
    })
  })

  it('answers 404 for an unknown dispute', async () => {
    const { call } = newSandbox()
    const res = await call('POST', `/__sandbox/disputes/${UNKNOWN_UUID}/transition`, {
      to: 'submitted',
    })
    expect(res.status, JSON.stringify(res.body)).toBe(404)
  })
})

describe('POST /v1/disputes/create (docs "create dispute")', () => {
  it('opens a dispute in state open, answered as the docs show with quirks on', async () => {
    const sb = newSandbox()
    const slug = await transactionOf(sb)
    const res = await sb.call('POST', '/v1/disputes/create', {
      transaction_slug: slug,
      reason: 'duplicate',
      explanation: 'Charged twice',
    })
    expect(res.status, JSON.stringify(res.body)).toBe(200)
    expect(res.body).toEqual({
      message: 'dispute successfully created!',
      statusCode: 200,
      data: [
        {
          transaction_slug: slug,
          slug: expect.stringMatching(UUID),
          status: 'open',
          reason: 'duplicate',
          explanation: 'Charged twice',
        },
      ],
    })
    const shown = await sb.call('GET', `/v1/disputes/${res.body.data[0].slug}`)
    expect(shown.body.data.dispute.status).toBe('open')
  })

  it('carries slug as {reference} with quirks off', async () => {
    const sb = newSandbox({ quirks: false })
    const slug = await transactionOf(sb)
    const res = await sb.call('POST', '/v1/disputes/create', {
      transaction_slug: slug,
      reason: 'other',
    })
    expect(res.body.data[0]).toEqual({
      transaction_slug: slug,
      slug: { reference: expect.stringMatching(UUID) },
      status: 'open',
      reason: 'other',
      explanation: null,
    })
  })

  it('takes transaction_reference: a slug, or the client reference the transaction was made with', async () => {
    const sb = newSandbox()
    const { reference: card } = await sb.fundedCard('visa')
    const made = await sb.call('POST', '/v1/transactions/create/card-to-wallet', {
      amount: 1000,
      card_reference: card,
      phone: PHONE,
      network: 'wave-sn',
      reference: 'order-42',
    })
    const slug = made.body.data.transaction.slug
    const byReference = await sb.call('POST', '/v1/disputes/create', {
      transaction_reference: 'order-42',
      reason: 'fraudulent',
    })
    expect(byReference.status).toBe(200)
    expect(byReference.body.data[0].transaction_slug).toBe(slug)
  })

  it('refuses a second dispute on a transaction while one is open or submitted: 409, here and on the control plane', async () => {
    const sb = newSandbox()
    const slug = await transactionOf(sb)
    const first = await sb.call('POST', '/v1/disputes/create', {
      transaction_slug: slug,
      reason: 'duplicate',
    })
    const again = await sb.call('POST', '/v1/disputes/create', {
      transaction_slug: slug,
      reason: 'other',
    })
    expect(again.status).toBe(409)
    const open = `The transaction already has an open dispute (${first.body.data[0].slug}).`
    expect(again.body.errors).toEqual({ transaction_slug: [open] })
    const control = await sb.call('POST', '/__sandbox/disputes', {
      transaction_slug: slug,
      reason: 'other',
    })
    expect(control.status).toBe(409)
    const reference = first.body.data[0].slug
    await sb.call('POST', `/v1/disputes/update/${reference}`, {
      transaction_slug: slug,
      explanation: 'x',
    })
    const whileSubmitted = await sb.call('POST', '/v1/disputes/create', {
      transaction_slug: slug,
      reason: 'other',
    })
    expect(whileSubmitted.status).toBe(409)
    await sb.call('POST', `/__sandbox/disputes/${reference}/transition`, { to: 'won' })
    const afterResolved = await sb.call('POST', '/v1/disputes/create', {
      transaction_slug: slug,
      reason: 'other',
    })
    expect(afterResolved.status, JSON.stringify(afterResolved.body)).toBe(200)
  })

  it('names each bad field (422) and answers 404 for a transaction of nobody or of another tenant', async () => {
    const sb = newSandbox()
    const missing = await sb.call('POST', '/v1/disputes/create', { reason: 'nope' })
    expect(missing.status).toBe(422)
    expect(Object.keys(missing.body.errors).sort()).toEqual(['reason', 'transaction_slug'])
    const unknown = await sb.call('POST', '/v1/disputes/create', {
      transaction_slug: UNKNOWN_UUID,
      reason: 'duplicate',
    })
    expect(unknown.status).toBe(404)
    expect(unknown.body.errors).toHaveProperty('transaction_slug')
    const foreign = await transactionOf(sb, 'other-tenant')
    const res = await sb.call('POST', '/v1/disputes/create', {
      transaction_reference: foreign,
      reason: 'duplicate',
    })
    expect(res.status).toBe(404)
    expect(res.body.errors).toHaveProperty('transaction_reference')
  })

  it('asks for transaction_slug in its own words when neither name of the transaction is sent', async () => {
    const sb = newSandbox()
    const res = await sb.call('POST', '/v1/disputes/create', { reason: 'duplicate' })
    const message =
      'The transaction slug field is required when transaction reference is not present.'
    expect(res.status, JSON.stringify(res.body)).toBe(422)
    expect(res.body).toEqual({ message, statusCode: 422, errors: { transaction_slug: [message] } })
  })

  it('keeps GET /v1/disputes/create a 405: a literal path is never taken for a reference', async () => {
    const sb = newSandbox()
    const res = await sb.call('GET', '/v1/disputes/create')
    expect(res.status).toBe(405)
  })
})

describe('GET /v1/disputes and /v1/disputes/{reference}', () => {
  it('shows one dispute under data.dispute, and 404 for an unknown or foreign reference', async () => {
    const sb = newSandbox()
    const slug = await transactionOf(sb)
    const reference = await openDispute(sb, slug, 'canceled')
    const res = await sb.call('GET', `/v1/disputes/${reference}`)
    expect(res.body).toEqual({
      message: 'OK',
      statusCode: 200,
      data: {
        dispute: {
          transaction_slug: slug,
          slug: { reference: null },
          status: 'open',
          reason: 'canceled',
          explanation: null,
        },
      },
    })
    expect((await sb.call('GET', `/v1/disputes/${UNKNOWN_UUID}`)).status).toBe(404)
    const foreign = await sb.call('GET', `/v1/disputes/${reference}`, undefined, { token: 'other' })
    expect(foreign.status).toBe(404)
  })

  it('adds reference and transaction_reference with --sdk-compat', async () => {
    const sb = newSandbox({ sdkCompat: true })
    const { reference: card } = await sb.fundedCard('visa')
    const made = await sb.call('POST', '/v1/transactions/create/card-to-wallet', {
      amount: 1000,
      card_reference: card,
      phone: PHONE,
      network: 'wave-sn',
      reference: 'order-9',
    })
    const reference = await openDispute(sb, made.body.data.transaction.slug)
    const res = await sb.call('GET', `/v1/disputes/${reference}`)
    expect(res.body.data.dispute).toMatchObject({ reference, transaction_reference: 'order-9' })
  })

  it('lists the tenant’s disputes newest first, paginated', async () => {
    const sb = newSandbox()
    const refs = []
    for (let i = 0; i < 3; i++) refs.push(await openDispute(sb, await transactionOf(sb)))
    await openDispute(sb, await transactionOf(sb, 'other-tenant'), 'duplicate', 'other-tenant')
    const page = await sb.call('GET', '/v1/disputes?per_page=2')
    expect(page.body.message).toBe('Disputes fetched successfully')
    expect(page.body.meta).toMatchObject({ current_page: 1, per_page: 2, total: 3, last_page: 2 })
    const second = await sb.call('GET', '/v1/disputes?per_page=2&page=2')
    const slugsOf = async (r: string) =>
      (await sb.call('GET', `/v1/disputes/${r}`)).body.data.dispute.transaction_slug
    expect(page.body.data.map((d: any) => d.transaction_slug)).toEqual([
      await slugsOf(refs[2]),
      await slugsOf(refs[1]),
    ])
    expect(second.body.data.map((d: any) => d.transaction_slug)).toEqual([await slugsOf(refs[0])])
  })
})

describe('POST /v1/disputes/update/{reference}, older body', () => {
  it('takes transaction_reference for transaction_slug and an optional new reason', async () => {
    const sb = newSandbox()
    const slug = await transactionOf(sb)
    const reference = await openDispute(sb, slug, 'duplicate')
    const res = await sb.call('POST', `/v1/disputes/update/${reference}`, {
      transaction_reference: slug,
      explanation: 'Never arrived',
      reason: 'not_received',
    })
    expect(res.status, JSON.stringify(res.body)).toBe(200)
    expect(res.body.data[0]).toMatchObject({
      transaction_slug: slug,
      status: 'submitted',
      reason: 'not_received',
      explanation: 'Never arrived',
    })
  })
})
