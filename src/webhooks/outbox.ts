/**
 * The durable outbox (PRODUCT §7): `enqueueEvent` writes the event inside the transaction of the
 * change that causes it, so no event is lost and none is sent for a change that rolled back.
 * The first attempt is due at once; delivery.ts sends it after the request has answered.
 */
import { and, desc, eq, inArray, lt, ne, sql } from 'drizzle-orm'
import { webhookAttempts, webhookEvents } from '../db/schema.js'
import { insertRow, prepared, type DomainContext } from '../domain/context.js'
import type { EventPayload } from './events.js'

/** PRODUCT §10: after a failed attempt, the next one waits this long on the sandbox clock. */
export const RETRY_DELAYS_MS = [10_000, 60_000, 300_000, 1_800_000, 7_200_000, 21_600_000] as const

/** How many settled events (delivered, failed, skipped) a tenant's log keeps: the newest. */
export const EVENT_LOG_LIMIT = 1_000

const eventsWrittenByDb = new WeakMap<object, number>()

/** How many events were ever written to this database's outbox: a cheap "anything new?". */
export function eventsWritten(db: object): number {
  return eventsWrittenByDb.get(db) ?? 0
}

export function enqueueEvent(
  ctx: DomainContext,
  payload: EventPayload,
  options: { extension?: boolean } = {},
) {
  const extension = options.extension ?? false
  if (extension && !ctx.webhookExtensions) return
  insertRow(ctx.db, webhookEvents, {
    id: ctx.ids.internal('evt'),
    tenantId: ctx.tenant.id,
    type: payload.event,
    extension,
    body: JSON.stringify(payload),
    status: 'pending',
    attempts: 0,
    nextAttemptAt: ctx.now,
    createdAt: ctx.now,
  })
  eventsWrittenByDb.set(ctx.db, eventsWritten(ctx.db) + 1)
  pruneEventLog(ctx)
}

/** Keeps the event log bounded; pending events are never dropped. */
function pruneEventLog(ctx: DomainContext): void {
  const oldestKept = prepared(ctx.db, 'oldest-kept-event', () =>
    ctx.db
      .select({ seq: webhookEvents.seq })
      .from(webhookEvents)
      .where(eq(webhookEvents.tenantId, sql.placeholder('tenant')))
      .orderBy(desc(webhookEvents.seq))
      .limit(1)
      .offset(EVENT_LOG_LIMIT - 1)
      .prepare(),
  ).get({ tenant: ctx.tenant.id })
  if (!oldestKept) return
  const old = and(
    eq(webhookEvents.tenantId, ctx.tenant.id),
    lt(webhookEvents.seq, oldestKept.seq),
    ne(webhookEvents.status, 'pending'),
  )
  const ids = ctx.db
    .select({ id: webhookEvents.id })
    .from(webhookEvents)
    .where(old)
    .all()
    .map((row) => row.id)
  if (ids.length === 0) return
  ctx.db.delete(webhookAttempts).where(inArray(webhookAttempts.eventId, ids)).run()
  ctx.db.delete(webhookEvents).where(old).run()
}
