import { describe, expect, it } from 'vitest'
import { EVENT_LOG_LIMIT, enqueueEvent } from '../../src/domain/outbox.js'
import { newSandbox, sqlRows } from '../helpers.js'

describe('the webhook event log', () => {
  it('keeps the newest settled events only, and never drops a pending one', async () => {
    const s = newSandbox()
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
    const rows = (await sqlRows(s.deps.db, 'SELECT type, status FROM webhook_events')) as {
      type: string
      status: string
    }[]
    expect(rows.length).toBe(EVENT_LOG_LIMIT + 1)
    expect(rows.some((r) => r.type === 'first' && r.status === 'pending')).toBe(true)
    expect(rows.some((r) => r.type === 'e0')).toBe(false)
    expect(rows.some((r) => r.type === `e${EVENT_LOG_LIMIT + 49}`)).toBe(true)
    s.close()
  })
})
