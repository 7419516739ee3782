import { eq } from 'drizzle-orm'
import { describe, expect, it } from 'vitest'
import { webhookEvents } from '../../src/db/schema.js'
import { EVENT_LOG_LIMIT, enqueueEvent } from '../../src/domain/outbox.js'
import { newSandbox } from '../helpers.js'

describe('the webhook event log', () => {
  it('keeps the newest settled events only, and never drops a pending one', async () => {
    const s = newSandbox()
    await s.call('GET', '/v1/cards') // creates the tenant
    const tenant = (await s.deps.tenants.forToken('test-token'))!
    const ctx = { db: s.deps.db, ids: s.deps.ids, tenant, now: 0 }
    await enqueueEvent(ctx, { event: 'first', data: {} }) // stays pending: no endpoint is ever tried here
    for (let i = 0; i < EVENT_LOG_LIMIT + 50; i++) {
      await enqueueEvent(ctx, { event: `e${i}`, data: {} })
      s.deps.db
        .update(webhookEvents)
        .set({ status: 'delivered' })
        .where(eqType(`e${i}`))
        .run()
    }
    const rows = s.deps.db.select().from(webhookEvents).all()
    expect(rows.length).toBe(EVENT_LOG_LIMIT + 1)
    expect(rows.some((r) => r.type === 'first' && r.status === 'pending')).toBe(true)
    expect(rows.some((r) => r.type === 'e0')).toBe(false)
    expect(rows.some((r) => r.type === `e${EVENT_LOG_LIMIT + 49}`)).toBe(true)
    s.close()
  })
})

const eqType = (type: string) => eq(webhookEvents.type, type)
