import { describe, expect, it, vi } from 'vitest'
import { EVENT_LOG_LIMIT, enqueueEvent, trimEventLogs } from '../../src/domain/outbox.js'
import { newSandbox, sqlRows } from '../helpers.js'

/** A tenant's context, and EVENT_LOG_LIMIT + 50 events written and delivered after one pending. */
async function fullLog(s: ReturnType<typeof newSandbox>) {
  await s.call('GET', '/v1/cards') // creates the tenant
  const tenant = (await s.deps.tenants.forToken('test-token'))!
  const ctx = { db: s.deps.db, ids: s.deps.ids, tenant, now: 0 }
  s.deps.deliverer.hold('test-token') // no delivery marks the first event skipped meanwhile
  await enqueueEvent(ctx, { event: 'first', data: {} }) // stays pending: no endpoint is ever tried here
  for (let i = 0; i < EVENT_LOG_LIMIT + 50; i++) {
    await enqueueEvent(ctx, { event: `e${i}`, data: {} })
    await sqlRows(
      s.deps.db,
      "UPDATE webhook_events SET status = 'delivered' WHERE type = ?",
      `e${i}`,
    )
  }
}

const events = async (s: ReturnType<typeof newSandbox>) =>
  (await sqlRows(s.deps.db, 'SELECT type, status FROM webhook_events')) as {
    type: string
    status: string
  }[]

describe('the webhook event log', () => {
  it('keeps the newest settled events only, and never drops a pending one', async () => {
    const s = newSandbox({ ticking: false })
    await fullLog(s)
    expect(await events(s)).toHaveLength(EVENT_LOG_LIMIT + 51) // not trimmed on each event
    await trimEventLogs(s.deps.db)
    const rows = await events(s)
    expect(rows.length).toBe(EVENT_LOG_LIMIT + 1)
    expect(rows.some((r) => r.type === 'first' && r.status === 'pending')).toBe(true)
    expect(rows.some((r) => r.type === 'e0')).toBe(false)
    expect(rows.some((r) => r.type === `e${EVENT_LOG_LIMIT + 49}`)).toBe(true)
    s.close()
  })

  it('is trimmed by the tick', async () => {
    const s = newSandbox()
    await fullLog(s)
    await vi.waitFor(async () => expect(await events(s)).toHaveLength(EVENT_LOG_LIMIT + 1), {
      timeout: 2_000,
    })
    s.close()
  })
})
