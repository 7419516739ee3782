/**
 * The due index's reads on PostgreSQL (store/jobs.ts): each tenant's earliest due instant, with
 * its clock, so that the tick tells from memory whether a tenant has work due. Per tenant, one
 * probe of the jobs' (tenant_id, due_at) index: what a read costs grows with the tenants, never
 * with the jobs pending.
 */
import type { PgStore } from './open.js'
import type { Tenant } from '../../db/schema.js'
import type { EarliestDue } from '../driver.js'

/**
 * The earliest due instant of every tenant on a real clock that has a job (a manual clock never
 * falls due by itself: an advance runs its jobs).
 */
export const EARLIEST_DUE_ON_REAL_CLOCKS = `
  SELECT t.id, t.clock_mode, t.clock_anchor_ms, t.clock_wall_ms, j.due_at
  FROM tenants t CROSS JOIN LATERAL
    (SELECT due_at FROM jobs WHERE jobs.tenant_id = t.id ORDER BY due_at LIMIT 1) j
  WHERE t.clock_mode = 'real'`

const EARLIEST_DUE_OF = `
  SELECT t.id, t.clock_mode, t.clock_anchor_ms, t.clock_wall_ms,
    (SELECT due_at FROM jobs WHERE jobs.tenant_id = t.id ORDER BY due_at LIMIT 1) AS due_at
  FROM tenants t WHERE t.id = ANY($1)`

type Row = {
  id: string
  clock_mode: Tenant['clockMode']
  clock_anchor_ms: number
  clock_wall_ms: number
  due_at: number | null
}

async function read(pg: PgStore, text: string, values: unknown[] = []): Promise<EarliestDue[]> {
  await pg.ready
  const { rows } = await pg.queryable.query(text, values)
  return (rows as Row[]).map((row) => ({
    tenantId: row.id,
    dueAt: row.due_at === null ? null : Number(row.due_at),
    clock: {
      clockMode: row.clock_mode,
      clockAnchorMs: Number(row.clock_anchor_ms),
      clockWallMs: Number(row.clock_wall_ms),
    },
  }))
}

export function earliestDueOnRealClocks(pg: PgStore): Promise<EarliestDue[]> {
  return read(pg, EARLIEST_DUE_ON_REAL_CLOCKS)
}

/** The tenants `ids` that exist, with their clocks and earliest due instants (null: no job). */
export function earliestDueOf(pg: PgStore, ids: readonly string[]): Promise<EarliestDue[]> {
  return read(pg, EARLIEST_DUE_OF, [ids])
}

/**
 * Every tenant's earliest pending webhook event that no replica holds (its lease, on the
 * database's clock, not running), with its clock: when webhook delivery has work, from memory.
 */
const EARLIEST_EVENT_TO_ATTEMPT = `
  SELECT t.id, t.clock_mode, t.clock_anchor_ms, t.clock_wall_ms, e.next_attempt_at AS due_at
  FROM tenants t CROSS JOIN LATERAL
    (SELECT next_attempt_at FROM webhook_events
     WHERE status = 'pending' AND tenant_id = t.id
       AND (lease_until IS NULL
         OR lease_until < (extract(epoch from clock_timestamp()) * 1000)::bigint)
     ORDER BY next_attempt_at LIMIT 1) e`

export function earliestEventToAttempt(pg: PgStore): Promise<EarliestDue[]> {
  return read(pg, EARLIEST_EVENT_TO_ATTEMPT)
}
