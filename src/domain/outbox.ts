/**
 * The durable outbox (PRODUCT §7): `enqueueEvent` writes the event inside the transaction of the
 * change that causes it, so no event is lost and none is sent for a change that rolled back.
 * The first attempt is due at once; delivery.ts sends it after the request has answered.
 */
import type { DomainContext } from './context.js'
import type { Db } from '../db/open.js'
import { connectionOf } from '../store/statements.js'
import { insertEvent, pruneEvents } from '../store/webhooks.js'
import type { EventPayload } from './webhook-events.js'

/** PRODUCT §10: after a failed attempt, the next one waits this long on the sandbox clock. */
export const RETRY_DELAYS_MS = [10_000, 60_000, 300_000, 1_800_000, 7_200_000, 21_600_000] as const

/** How many settled events (delivered, failed, skipped) a tenant's log keeps: the newest. */
export const EVENT_LOG_LIMIT = 1_000

const eventsWrittenByConnection = new WeakMap<object, number>()

/** How many events were ever written to this database's outbox: a cheap "anything new?". */
export function eventsWritten(db: Db): number {
  return eventsWrittenByConnection.get(connectionOf(db)) ?? 0
}

export async function enqueueEvent(
  ctx: DomainContext,
  payload: EventPayload,
  options: { extension?: boolean } = {},
) {
  const extension = options.extension ?? false
  if (extension && !ctx.webhookExtensions) return
  await insertEvent(ctx.db, {
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
  eventsWrittenByConnection.set(connectionOf(ctx.db), eventsWritten(ctx.db) + 1)
  await pruneEvents(ctx.db, ctx.tenant.id, EVENT_LOG_LIMIT)
}
