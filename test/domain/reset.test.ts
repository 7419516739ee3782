/**
 * A reset empties the tenant at once by giving it a new id; the rows left under the old id are
 * swept by the tick, a batch at a time, and no other tenant's rows are touched.
 */
import { sql } from 'drizzle-orm'
import { describe, expect, it } from 'vitest'
import { nextTenantId } from '../../src/domain/tenants.js'
import { sweepRetiredTenants } from '../../src/domain/reset.js'
import { newSandbox } from '../helpers.js'

function rowsOf(s: ReturnType<typeof newSandbox>, tenantId: string): number {
  const tables = ['card_users', 'cards', 'transactions', 'payments', 'jobs', 'postings', 'accounts']
  return tables.reduce(
    (sum, table) =>
      sum +
      s.deps.db.get<{ n: number }>(
        sql.raw(`SELECT COUNT(*) AS n FROM ${table} WHERE tenant_id = '${tenantId}'`),
      ).n,
    0,
  )
}

describe('reset', () => {
  it('empties the tenant at once, then sweeps its old rows in batches, and only its own', async () => {
    const s = newSandbox()
    await s.fundedCard('visa', 'other')
    const card = await s.fundedCard()
    await s.call('POST', '/v1/transactions/create/card-to-wallet', {
      amount: 1000,
      card_reference: card.reference,
      phone: '+221770000001',
      network: 'wave-sn',
    })
    const before = s.deps.tenants.forToken('test-token')!
    const other = s.deps.tenants.forToken('other')!
    const otherRows = rowsOf(s, other.id)
    const oldRows = rowsOf(s, before.id)
    expect(oldRows).toBeGreaterThan(5)

    // the reset itself deletes nothing (checked synchronously, before any tick can sweep)
    const fresh = s.deps.tenants.reset(before)
    expect(fresh.id).toBe(nextTenantId(before.id))
    expect(rowsOf(s, before.id)).toBe(oldRows)
    expect((await s.call('GET', '/v1/cards')).body.data).toEqual([])

    const left = rowsOf(s, before.id)
    expect(sweepRetiredTenants(s.deps.db, 3)).toBe(Math.min(3, left))
    expect(rowsOf(s, before.id)).toBe(Math.max(0, left - 3))
    while (sweepRetiredTenants(s.deps.db, 3) > 0);
    expect(rowsOf(s, before.id)).toBe(0)
    expect(rowsOf(s, other.id)).toBe(otherRows)
    expect(s.deps.db.get<{ n: number }>(sql`SELECT COUNT(*) AS n FROM retired_tenants`).n).toBe(0)

    const again = await s.call('POST', '/__sandbox/reset')
    expect(again.body.data.tenant).toBe(nextTenantId(fresh.id))
  })

  it('derives the new id from the old one, so a seeded run keeps its randomness', () => {
    expect(nextTenantId('ten_abc')).toBe('ten_abc.1')
    expect(nextTenantId('ten_abc.1')).toBe('ten_abc.2')
  })
})
