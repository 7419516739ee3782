/**
 * A card's creation writes the card and its issuing job together (store/jobs.ts insertWithJob:
 * one statement on PostgreSQL, two on SQLite): the job names the card by reference and by row.
 * Its refusals word for word, and its details: what issuing (or a linked card's first unfreeze)
 * gave is kept through freezes and a linked card's delayed fill.
 */
import { describe, expect, it } from 'vitest'
import { DEFAULT_DELAYS_MS } from '../../src/domain/schedule.js'
import { newSandbox, sqlRows } from '../helpers.js'

async function createdCard(s: ReturnType<typeof newSandbox>) {
  const user = await s.verifiedUser()
  const created = await s.call('POST', '/v1/cards/create', {
    card_user_reference: user,
    card_brand: 'visa',
    card_type: 'virtual',
  })
  expect(created.status).toBe(200)
  return created.body.data.card.reference as string
}

/** A card linked by identifier for a verified user: issued, its details still to come. */
async function linkedCard(s: ReturnType<typeof newSandbox>) {
  const user = await s.verifiedUser()
  const linked = await s.call('POST', '/v1/cards/link', {
    identifier: 9,
    card_user_reference: user,
  })
  expect(linked.status).toBe(200)
  return linked.body.data.card.reference as string
}

describe('creating a card', () => {
  it('writes its issuing job with it, naming the card by reference and by row, due after the delay', async () => {
    const s = newSandbox()
    const now = (await s.call('GET', '/__sandbox/clock')).body.data.now_ms
    await createdCard(s) // the second card's row is not the first
    const reference = await createdCard(s)
    const [card] = (await sqlRows(
      s.deps.db,
      'SELECT seq, tenant_id FROM cards WHERE reference = ?',
      reference,
    )) as { seq: number; tenant_id: string }[]
    const jobs = (await sqlRows(
      s.deps.db,
      'SELECT tenant_id, resource, key, action, due_at, resource_seq FROM jobs WHERE key = ?',
      reference,
    )) as Record<string, unknown>[]
    expect(
      jobs.map((job) => ({
        ...job,
        due_at: Number(job.due_at),
        resource_seq: Number(job.resource_seq),
      })),
    ).toEqual([
      {
        tenant_id: card.tenant_id,
        resource: 'cards',
        key: reference,
        action: 'issued',
        due_at: now + DEFAULT_DELAYS_MS.card_issuing,
        resource_seq: Number(card.seq),
      },
    ])
  })
})

const UNKNOWN = '0b6b1c1e-2f7a-4c1e-9d3b-3f2a1e4c5d6e'

describe("a card's refusals, word for word", () => {
  it('names the card user it did not find, and the status of one not verified', async () => {
    const s = newSandbox()
    const unknown = await s.call('POST', '/v1/cards/create', {
      card_user_reference: UNKNOWN,
      card_brand: 'visa',
      card_type: 'virtual',
    })
    expect(unknown.body.errors).toEqual({
      card_user_reference: [`No card user found for card_user_reference "${UNKNOWN}".`],
    })
    const pending = await s.call('POST', '/v1/card-users/create', { phone: '+221770000009' })
    const refused = await s.call('POST', '/v1/cards/link', {
      identifier: 7,
      card_user_reference: pending.body.userCard.reference,
    })
    expect(refused.body.errors).toEqual({
      card_user_reference: [
        'The card user has not passed identity verification (status: pending).',
      ],
    })
  })

  it('names the identifier already linked', async () => {
    const s = newSandbox()
    const user = await s.verifiedUser()
    await s.call('POST', '/v1/cards/link', { identifier: 42, card_user_reference: user })
    const again = await s.call('POST', '/v1/cards/link', {
      identifier: 42,
      card_user_reference: user,
    })
    expect(again.status).toBe(422)
    expect(again.body.errors).toEqual({
      identifier: ['A card with this identifier is already linked.'],
    })
  })

  it('names the status of a card unfrozen while not frozen', async () => {
    const s = newSandbox()
    const { reference } = await s.issuedCard()
    const res = await s.call('POST', '/v1/cards/unfreeze', { reference })
    expect(res.status).toBe(409)
    expect(res.body.message).toBe('Only a frozen card can be unfrozen (status: issued).')
  })
})

describe("a card's number, cvv2 and expiry", () => {
  const detailsOf = async (s: ReturnType<typeof newSandbox>, reference: string) => {
    const { card_number, cvv2, expiry } = (await s.call('GET', `/v1/cards/${reference}`)).body.data
      .card
    return { card_number, cvv2, expiry }
  }

  it('stay those issuing gave through a freeze and an unfreeze', async () => {
    const s = newSandbox()
    const { reference } = await s.issuedCard()
    const issued = await detailsOf(s, reference)
    expect(issued.card_number).toMatch(/^\d{16}$/)
    await s.call('POST', '/v1/cards/freeze', { reference })
    expect(await detailsOf(s, reference)).toEqual(issued)
    await s.call('POST', '/v1/cards/unfreeze', { reference })
    expect(await detailsOf(s, reference)).toEqual(issued)
  })

  it('of a linked card arrive after its delay, not a millisecond before', async () => {
    const s = newSandbox()
    const reference = await linkedCard(s)
    const delay = DEFAULT_DELAYS_MS.card_link_details
    await s.call('POST', '/__sandbox/clock/advance', { by: `${delay - 1}ms` })
    expect((await detailsOf(s, reference)).card_number).toBeNull()
    await s.call('POST', '/__sandbox/clock/advance', { by: '1ms' })
    expect((await detailsOf(s, reference)).card_number).toMatch(/^\d{16}$/)
  })

  it("of a linked card unfrozen before they arrive are the unfreeze's: the delayed fill changes nothing", async () => {
    const s = newSandbox()
    const reference = await linkedCard(s)
    await s.call('POST', '/v1/cards/freeze', { reference })
    await s.call('POST', '/v1/cards/unfreeze', { reference })
    const unfrozen = await detailsOf(s, reference)
    expect(unfrozen.card_number).toMatch(/^\d{16}$/)
    await s.call('POST', '/__sandbox/clock/advance', {
      by: `${DEFAULT_DELAYS_MS.card_link_details}ms`,
    })
    expect(await detailsOf(s, reference)).toEqual(unfrozen)
  })
})
