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

  it('trims a log tens of thousands of events past its limit, and their attempts', async () => {
    const s = newSandbox({ ticking: false })
    await fullLog(s)
    // more than SQLite binds in one statement (32,766): a tick starved under load leaves as many
    await sqlRows(
      s.deps.db,
      `WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < 40000)
       INSERT INTO webhook_events (id, tenant_id, type, extension, body, status, attempts,
         next_attempt_at, created_at)
       SELECT 'old' || i, tenant_id, 'old', extension, '{}', 'delivered', 1, 0, 0
       FROM n, (SELECT tenant_id, extension FROM webhook_events LIMIT 1) AS first`,
    )
    await sqlRows(
      s.deps.db,
      `INSERT INTO webhook_attempts (event_id, tenant_id, attempt, url, at, latency_ms)
       SELECT id, tenant_id, 1, 'http://127.0.0.1:1/', 0, 1 FROM webhook_events`,
    )
    await trimEventLogs(s.deps.db)
    const rows = await events(s)
    expect(rows.length).toBe(EVENT_LOG_LIMIT + 1)
    expect(rows.some((r) => r.type === 'first')).toBe(true)
    expect(rows.filter((r) => r.type === 'old')).toHaveLength(EVENT_LOG_LIMIT) // the newest
    const [{ n }] = (await sqlRows(s.deps.db, 'SELECT count(*) AS n FROM webhook_attempts')) as {
      n: number
    }[]
    expect(Number(n)).toBe(EVENT_LOG_LIMIT + 1) // the kept events' own
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
