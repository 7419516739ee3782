/**
 * The webhook outbox (PRODUCT §7): `webhook_events`, written in the transaction of the change
 * that causes each, and `webhook_attempts`, one row per delivery attempt.
 */
import { and, asc, desc, eq, gt, inArray, lt, lte, ne, sql } from 'drizzle-orm'
import type { Db } from '../db/open.js'
import {
  webhookAttempts,
  webhookEvents,
  type WebhookAttempt,
  type WebhookEvent,
} from '../db/schema.js'
import { insertRow, pagesOf, updateBySeq } from './rows.js'
import { statement } from './statements.js'

export function insertEvent(db: Db, values: typeof webhookEvents.$inferInsert): void {
  insertRow(db, webhookEvents, values)
}

/** Updates the event `seq`; 0 when it is gone (its tenant was reset and swept). */
export function updateEvent(db: Db, seq: number, changes: Partial<WebhookEvent>): number {
  return updateBySeq(db, webhookEvents, seq, changes)
}

export function insertAttempt(db: Db, values: typeof webhookAttempts.$inferInsert): void {
  insertRow(db, webhookAttempts, values)
}

const oldestKept = statement((db) =>
  db
    .select({ seq: webhookEvents.seq })
    .from(webhookEvents)
    .where(eq(webhookEvents.tenantId, sql.placeholder('tenant')))
    .orderBy(desc(webhookEvents.seq))
    .limit(1)
    .offset(sql.placeholder('keep'))
    .prepare(),
)

/** Keeps the tenant's newest `keep` events (and their attempts); pending events are never dropped. */
export function pruneEvents(db: Db, tenantId: string, keep: number): void {
  const oldest = oldestKept(db).get({ tenant: tenantId, keep: keep - 1 })
  if (!oldest) return
  const old = and(
    eq(webhookEvents.tenantId, tenantId),
    lt(webhookEvents.seq, oldest.seq),
    ne(webhookEvents.status, 'pending'),
  )
  const ids = db
    .select({ id: webhookEvents.id })
    .from(webhookEvents)
    .where(old)
    .all()
    .map((row) => row.id)
  if (ids.length === 0) return
  db.delete(webhookAttempts).where(inArray(webhookAttempts.eventId, ids)).run()
  db.delete(webhookEvents).where(old).run()
}

const nextPending = statement((db) =>
  db
    .select({ id: webhookEvents.tenantId })
    .from(webhookEvents)
    .where(
      and(
        eq(webhookEvents.status, 'pending'),
        gt(webhookEvents.tenantId, sql.placeholder('after')),
      ),
    )
    .orderBy(asc(webhookEvents.tenantId))
    .limit(1)
    .prepare(),
)

/**
 * The first tenant after `after` (in id order) with a pending event: one probe of the
 * (status, tenant_id, next_attempt_at) index, so walking the tenants with pending events
 * costs one probe each, however many events each has.
 */
export function nextTenantWithPendingEvents(db: Db, after: string): string | undefined {
  return nextPending(db).get({ after })?.id
}

const dueOf = statement((db) =>
  db
    .select()
    .from(webhookEvents)
    .where(
      and(
        eq(webhookEvents.status, 'pending'),
        eq(webhookEvents.tenantId, sql.placeholder('tenant')),
        lte(webhookEvents.nextAttemptAt, sql.placeholder('now')),
      ),
    )
    .orderBy(asc(webhookEvents.nextAttemptAt), asc(webhookEvents.seq))
    .limit(sql.placeholder('limit'))
    .prepare(),
)

/** A tenant's pending events due by `now` on its clock, oldest first (a range of that index). */
export function dueEvents(db: Db, tenantId: string, now: number, limit: number): WebhookEvent[] {
  return dueOf(db).all({ tenant: tenantId, now, limit })
}

const countAttempts = statement((db) =>
  db
    .select({ n: sql<number>`count(*)` })
    .from(webhookAttempts)
    .where(eq(webhookAttempts.eventId, sql.placeholder('eventId')))
    .prepare(),
)

/** How many attempts of the event were logged. */
export function attemptCount(db: Db, eventId: string): number {
  return countAttempts(db).get({ eventId })?.n ?? 0
}

const replay = statement((db) =>
  db
    .update(webhookEvents)
    .set({ status: 'pending', attempts: 0, nextAttemptAt: sql`${sql.placeholder('now')}` })
    .where(
      and(
        eq(webhookEvents.id, sql.placeholder('id')),
        eq(webhookEvents.tenantId, sql.placeholder('tenant')),
      ),
    )
    .returning()
    .prepare(),
)

/** Puts the tenant's event `id` back in the queue, due at `now`; undefined when it has none. */
export function requeueEvent(
  db: Db,
  tenantId: string,
  id: string,
  now: number,
): WebhookEvent | undefined {
  return replay(db).get({ tenant: tenantId, id, now })
}

export const eventPages = pagesOf(webhookEvents)
export const eventPagesByStatus = pagesOf(webhookEvents, webhookEvents.status)

/** The attempts of these events, in attempt order. */
export function attemptsOf(db: Db, eventIds: string[]): WebhookAttempt[] {
  if (eventIds.length === 0) return []
  return db
    .select()
    .from(webhookAttempts)
    .where(inArray(webhookAttempts.eventId, eventIds))
    .orderBy(webhookAttempts.attempt)
    .all()
}
