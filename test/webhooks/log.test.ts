import { describe, expect, it } from 'vitest'
import { insertAttempt } from '../../src/store/webhooks.js'
import { webhookLog } from '../../src/webhooks/log.js'
import { enqueueEvent } from '../../src/domain/outbox.js'
import { newSandbox, sqlRows } from '../helpers.js'

async function tenantContext(s: ReturnType<typeof newSandbox>, token: string, now: number) {
  await s.call('GET', '/v1/cards', undefined, { token }) // creates the tenant
  const tenant = (await s.deps.tenants.forToken(token))!
  return { db: s.deps.db, ids: s.deps.ids, tenant, now }
}

async function attempt(
  s: ReturnType<typeof newSandbox>,
  eventId: string,
  tenantId: string,
  n: number,
  response: string | null,
) {
  await insertAttempt(s.deps.db, {
    eventId,
    tenantId,
    attempt: n,
    url: 'http://127.0.0.1:1/hook',
    at: 60_000 * n,
    statusCode: response === null ? null : 500,
    latencyMs: 7 * n,
    response,
    error: response === null ? 'ECONNREFUSED' : null,
  })
}

describe('the webhook log read side', () => {
  it("pages a tenant's events newest first, each with its own attempts in order, masked", async () => {
    const s = newSandbox()
    const ctx = await tenantContext(s, 'test-token', 1_000)
    // no delivery marks the pending events skipped meanwhile (no webhook URL is set)
    s.deps.deliverer.hold('test-token')
    const other = await tenantContext(s, 'other-token', 1_000)
    await s.deps.deliverer.idle()

    // three events of this tenant, one of another
    await enqueueEvent(ctx, {
      event: 'card_creation.successful',
      data: { card_number: '4111111111111111', cvv2: '123' },
    })
    await enqueueEvent({ ...ctx, now: 2_000 }, { event: 'second', data: {} })
    await enqueueEvent({ ...ctx, now: 3_000 }, { event: 'third', data: {} })
    await enqueueEvent(other, { event: 'not-ours', data: {} })
    const [first, second] = (await sqlRows(
      s.deps.db,
      'SELECT id, body FROM webhook_events WHERE tenant_id = ? ORDER BY seq',
      ctx.tenant.id,
    )) as { id: string; body: string }[]

    // the first event failed twice (attempts written out of order), the second once
    await attempt(s, first.id, ctx.tenant.id, 2, '{"cvv2":"999","echo":"ok"}')
    await attempt(s, first.id, ctx.tenant.id, 1, null)
    await attempt(s, second.id, ctx.tenant.id, 1, 'busy')
    await sqlRows(s.deps.db, "UPDATE webhook_events SET status = 'failed' WHERE id = ?", first.id)

    const newest = await webhookLog(ctx, { page: 1, perPage: 2 })
    expect(newest.total).toBe(3)
    expect(newest.rows.map((e) => e.type)).toEqual(['third', 'second'])
    expect(newest.rows[0]).toMatchObject({
      status: 'pending',
      created_at: '1970-01-01T00:00:03.000Z',
      next_attempt_at: '1970-01-01T00:00:03.000Z',
      attempts: [],
    })
    expect(newest.rows[1].attempts).toEqual([
      {
        attempt: 1,
        at: '1970-01-01T00:01:00.000Z',
        url: 'http://127.0.0.1:1/hook',
        request_headers: null,
        status_code: 500,
        latency_ms: 7,
        response: 'busy',
        error: null,
      },
    ])

    const [failed] = (await webhookLog(ctx, { page: 2, perPage: 2 })).rows
    expect(failed).toMatchObject({ id: first.id, status: 'failed', next_attempt_at: null })
    expect(JSON.parse(failed.body)).toEqual({
      event: 'card_creation.successful',
      data: { card_number: '************1111', cvv2: '***' },
    })
    expect(failed.attempts.map((a) => [a.attempt, a.error, a.response])).toEqual([
      [1, 'ECONNREFUSED', null],
      [2, null, '{"cvv2":"***","echo":"ok"}'],
    ])
    // what was sent stays exact in the outbox
    expect(first.body).toContain('4111111111111111')
    s.close()
  })

  it('filters by status', async () => {
    const s = newSandbox()
    const ctx = await tenantContext(s, 'test-token', 0)
    await enqueueEvent(ctx, { event: 'kept', data: {} })
    await enqueueEvent(ctx, { event: 'delivered', data: {} })
    await sqlRows(
      s.deps.db,
      "UPDATE webhook_events SET status = 'delivered' WHERE type = 'delivered'",
    )
    const delivered = await webhookLog(ctx, { page: 1, perPage: 20, status: 'delivered' })
    expect(delivered.rows.map((e) => e.type)).toEqual(['delivered'])
    expect(delivered.total).toBe(1)
    expect((await webhookLog(ctx, { page: 1, perPage: 20 })).total).toBe(2)
    s.close()
  })
})
