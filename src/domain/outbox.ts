/**
 * The durable outbox (PRODUCT §7): `enqueueEvent` writes the event inside the transaction of the
 * change that causes it, so no event is lost and none is sent for a change that rolled back.
 * The first attempt is due at once; delivery.ts sends it after the request has answered.
 */
import type { DomainContext } from './context.js'
import type { Db } from '../store/driver.js'
import { perConnection } from '../store/statements.js'
import { insertEvents } from '../store/due-sets.js'
import { insertEvent, pruneEvents } from '../store/webhooks.js'
import type { webhookEvents } from '../db/schema.js'
import type { EventPayload } from './webhook-events.js'

/** PRODUCT §10: after a failed attempt, the next one waits this long on the sandbox clock. */
export const RETRY_DELAYS_MS = [10_000, 60_000, 300_000, 1_800_000, 7_200_000, 21_600_000] as const

/** How many settled events (delivered, failed, skipped) a tenant's log keeps: the newest. */
export const EVENT_LOG_LIMIT = 1_000

/**
 * Per connection: how many events were ever written, and the tenants that wrote some since their
 * logs were last trimmed.
 */
const outboxOf = perConnection(() => ({ written: 0, untrimmed: new Set<string>() }))

/** How many events were ever written to this database's outbox: a cheap "anything new?". */
export function eventsWritten(db: Db): number {
  return outboxOf(db).written
}

export async function enqueueEvent(
  ctx: DomainContext,
  payload: EventPayload,
  options: { extension?: boolean } = {},
) {
  const row = outboxRow(ctx, payload, options)
  if (row) await enqueueRows(ctx, [row])
}

type OutboxRow = typeof webhookEvents.$inferInsert

/**
 * The outbox row of an event at the context's now, its id drawn; none for an extension event
 * when extensions are off (nothing drawn then).
 */
export function outboxRow(
  ctx: DomainContext,
  payload: EventPayload,
  options: { extension?: boolean } = {},
): OutboxRow | undefined {
  const extension = options.extension ?? false
  if (extension && !ctx.webhookExtensions) return undefined
  return {
    id: ctx.ids.internal('evt'),
    tenantId: ctx.tenant.id,
    type: payload.event,
    extension,
    body: JSON.stringify(payload),
    status: 'pending',
    attempts: 0,
    nextAttemptAt: ctx.now,
    createdAt: ctx.now,
  }
}

/** Writes outbox rows (outboxRow), one statement for several: a run of due jobs' events. */
export async function enqueueRows(ctx: Pick<DomainContext, 'db' | 'tenant'>, rows: OutboxRow[]) {
  if (rows.length === 0) return
  if (rows.length === 1) await insertEvent(ctx.db, rows[0])
  else await insertEvents(ctx.db, rows)
  const outbox = outboxOf(ctx.db)
  outbox.written += rows.length
  outbox.untrimmed.add(ctx.tenant.id)
}

/**
 * Trims the logs of the tenants that wrote events since the last trim to EVENT_LOG_LIMIT, once
 * a tick (sandbox.ts): trimmed on every event, a clock advance that fired 5,000 jobs spent most
 * of its time reading the older events still pending, again for each new one.
 */
export async function trimEventLogs(db: Db): Promise<void> {
  const { untrimmed } = outboxOf(db)
  for (const tenantId of [...untrimmed]) {
    // taken off first: events it writes during the trim are trimmed on the next tick
    untrimmed.delete(tenantId)
    await pruneEvents(db, tenantId, EVENT_LOG_LIMIT)
  }
}
