/**
 * A card's creation writes the card and its issuing job together (store/jobs.ts insertWithJob:
 * one statement on PostgreSQL, two on SQLite): the job names the card by reference and by row.
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
