/**
 * The webhook outbox (PRODUCT §7): `webhook_events`, written in the transaction of the change
 * that causes each, and `webhook_attempts`, one row per delivery attempt.
 */
import { and, asc, count, desc, eq, gt, inArray, isNull, lt, lte, ne, or, sql } from 'drizzle-orm'
import type { Db } from './driver.js'
import {
  webhookAttempts,
  webhookEvents,
  type WebhookAttempt,
  type WebhookEvent,
} from '../db/schema.js'
import type { EarliestDue } from './driver.js'
import { insertRow, pagesOf, updateBySeq } from './rows.js'
import { query, statement, storeIsShared, type Tables } from './statements.js'

export async function insertEvent(
  db: Db,
  values: typeof webhookEvents.$inferInsert,
): Promise<void> {
  await insertRow(db, webhookEvents, values)
}

/** Updates the event `seq`; 0 when it is gone (its tenant was reset and swept). */
export function updateEvent(db: Db, seq: number, changes: Partial<WebhookEvent>): Promise<number> {
  return updateBySeq(db, webhookEvents, seq, changes)
}

export async function insertAttempt(
  db: Db,
  values: typeof webhookAttempts.$inferInsert,
): Promise<void> {
  await insertRow(db, webhookAttempts, values)
}

const oldestKept = statement((db, t) =>
  db
    .select({ seq: t.webhookEvents.seq })
    .from(t.webhookEvents)
    .where(eq(t.webhookEvents.tenantId, sql.placeholder('tenant')))
    .orderBy(desc(t.webhookEvents.seq))
    .limit(1)
    .offset(sql.placeholder('keep'))
    .prepare(),
)

/** Keeps the tenant's newest `keep` events (and their attempts); pending events are never dropped. */
export async function pruneEvents(db: Db, tenantId: string, keep: number): Promise<void> {
  const oldest = await oldestKept(db).get({ tenant: tenantId, keep: keep - 1 })
  if (!oldest) return
  const old = (t: Tables) =>
    and(
      eq(t.webhookEvents.tenantId, tenantId),
      lt(t.webhookEvents.seq, oldest.seq),
      ne(t.webhookEvents.status, 'pending'),
    )
  // by a subquery, not a list of ids: a log far past `keep` (a tick starved under load) would
  // bind more values than SQLite takes in one statement
  await query(db, 'run', (db, t) =>
    db
      .delete(t.webhookAttempts)
      .where(
        inArray(
          t.webhookAttempts.eventId,
          db.select({ id: t.webhookEvents.id }).from(t.webhookEvents).where(old(t)),
        ),
      ),
  )
  await query(db, 'run', (db, t) => db.delete(t.webhookEvents).where(old(t)))
}

const nextPending = statement((db, t) =>
  db
    .select({ id: t.webhookEvents.tenantId })
    .from(t.webhookEvents)
    .where(
      and(
        eq(t.webhookEvents.status, 'pending'),
        gt(t.webhookEvents.tenantId, sql.placeholder('after')),
      ),
    )
    .orderBy(asc(t.webhookEvents.tenantId))
    .limit(1)
    .prepare(),
)

/**
 * The first tenant after `after` (in id order) with a pending event: one probe of the
 * (status, tenant_id, next_attempt_at) index, so walking the tenants with pending events
 * costs one probe each, however many events each has.
 */
export async function nextTenantWithPendingEvents(
  db: Db,
  after: string,
): Promise<string | undefined> {
  return (await nextPending(db).get({ after }))?.id
}

const dueOf = statement((db, t) =>
  db
    .select()
    .from(t.webhookEvents)
    .where(
      and(
        eq(t.webhookEvents.status, 'pending'),
        eq(t.webhookEvents.tenantId, sql.placeholder('tenant')),
        lte(t.webhookEvents.nextAttemptAt, sql.placeholder('now')),
      ),
    )
    .orderBy(asc(t.webhookEvents.nextAttemptAt), asc(t.webhookEvents.seq))
    .limit(sql.placeholder('limit'))
    .prepare(),
)

/**
 * Up to `free` of a tenant's pending events due by `now` on its clock, oldest first, to attempt
 * now; `more`: others may be due. `busy` of its events are in flight in this process: on
 * a store of one process they are still pending and read past. With replicas (a shared store) each
 * event returned is leased to this replica for `leaseMs` (the database's clock): no other replica
 * takes it meanwhile, and one that was leased by a replica that died is taken once it expires.
 */
export async function claimDueEvents(
  db: Db,
  tenantId: string,
  now: number,
  { free, busy, leaseMs }: { free: number; busy: number; leaseMs: number },
): Promise<{ events: WebhookEvent[]; more: boolean }> {
  if (!storeIsShared(db)) {
    const events = await dueOf(db).all({ tenant: tenantId, now, limit: busy + free })
    return { events, more: events.length === busy + free }
  }
  const events = await query<WebhookEvent[]>(db, 'all', (db, t, d) => {
    const e = t.webhookEvents
    const dbNow = d.nowMs
    const due = d.forUpdate(
      db
        .select({ seq: e.seq })
        .from(e)
        .where(
          and(
            eq(e.status, 'pending'),
            eq(e.tenantId, tenantId),
            lte(e.nextAttemptAt, now),
            or(isNull(e.leaseUntil), lt(e.leaseUntil, dbNow)),
          ),
        )
        .orderBy(asc(e.nextAttemptAt), asc(e.seq))
        .limit(free),
      { skipLocked: true },
    )
    return db
      .update(e)
      .set({ leaseUntil: sql`${dbNow} + ${leaseMs}` })
      .where(inArray(e.seq, due))
      .returning()
  })
  events.sort((a, b) => a.nextAttemptAt - b.nextAttemptAt || a.seq - b.seq)
  return { events, more: events.length === free }
}

const countAttempts = statement((db, t) =>
  db
    .select({ n: count() })
    .from(t.webhookAttempts)
    .where(eq(t.webhookAttempts.eventId, sql.placeholder('eventId')))
    .prepare(),
)

/** How many attempts of the event were logged. */
export async function attemptCount(db: Db, eventId: string): Promise<number> {
  return (await countAttempts(db).get({ eventId }))?.n ?? 0
}

const replay = statement((db, t) =>
  db
    .update(t.webhookEvents)
    .set({
      status: 'pending',
      attempts: 0,
      nextAttemptAt: sql`${sql.placeholder('now')}`,
      leaseUntil: null,
    })
    .where(
      and(
        eq(t.webhookEvents.id, sql.placeholder('id')),
        eq(t.webhookEvents.tenantId, sql.placeholder('tenant')),
      ),
    )
    .returning()
    .prepare(),
)

/** Puts the tenant's event `id` back in the queue, due at `now`; undefined when it has none. */
export async function requeueEvent(
  db: Db,
  tenantId: string,
  id: string,
  now: number,
): Promise<WebhookEvent | undefined> {
  return await replay(db).get({ tenant: tenantId, id, now })
}

export const eventPages = pagesOf(webhookEvents)
export const eventPagesByStatus = pagesOf(webhookEvents, webhookEvents.status)

/** The attempts of these events, in attempt order. */
export async function attemptsOf(db: Db, eventIds: string[]): Promise<WebhookAttempt[]> {
  if (eventIds.length === 0) return []
  return await query(db, 'all', (db, t) =>
    db
      .select()
      .from(t.webhookAttempts)
      .where(inArray(t.webhookAttempts.eventId, eventIds))
      .orderBy(t.webhookAttempts.attempt),
  )
}

/**
 * With replicas: each tenant's earliest pending event that no replica holds, and the tenant's
 * clock, so that the tick knows from memory when delivery has work (webhooks/delivery.ts). One
 * statement, whatever the number of events.
 */
export async function eventWakeups(
  db: Db,
): Promise<{ tenantId: string; dueAt: number; clock: EarliestDue['clock'] }[]> {
  const events = (await db.driver.replicas?.earliestEventToAttempt(db)) ?? []
  return events.map((row) => ({ ...row, dueAt: row.dueAt! }))
}
