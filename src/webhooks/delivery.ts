/**
 * Webhook delivery (PRODUCT §7): sends what the outbox holds, after the request that caused
 * it has answered. At least once, with the same event id on every attempt; each attempt times
 * out, and a timeout, connection error or non-2xx is retried on the tenant's sandbox clock
 * (RETRY_DELAYS_MS), then the event is failed. Every attempt is logged. Attempts run
 * concurrently, so a slow or dead receiver holds up nobody else: a tenant has at most
 * MAX_IN_FLIGHT_PER_TENANT of the MAX_IN_FLIGHT slots, due events are picked tenant by tenant
 * (never "the oldest N", which one tenant's backlog could fill) in turns, each pass sharing the
 * slots free at its start evenly between the tenants, and at most RESPONSE_READ_BYTES (attempt.ts) of an
 * answer are read before its connection is dropped. Due events are
 * started by the sandbox's one ticker (deliverDue) and right after a request that wrote to the
 * outbox (kick); every instant logged is on the tenant's sandbox clock. Each attempt is also a
 * line on the console (`webhook`: event, URL, status or error, next retry). With replicas on
 * PostgreSQL the outbox is shared and the slots are each replica's: an event is leased to the
 * replica attempting it (claimDueEvents), so each attempt is made by one.
 */
import type { Db } from '../store/driver.js'
import type { Tenant, WebhookEvent } from '../db/schema.js'
import type { TenantDirectory } from '../domain/tenants.js'
import { announcedOf, announcesWrites } from '../store/announced.js'
import { claimDueEvents, eventWakeups, nextTenantWithPendingEvents } from '../store/webhooks.js'
import { eventsWritten } from '../domain/outbox.js'
import { attemptEvent, type AttemptContext, type DeliveryOptions } from './attempt.js'

/** How many attempts may be in flight at once; more due events wait for a free slot. */
export const MAX_IN_FLIGHT = 200
/** How many of those slots one tenant may hold: a receiver that never answers blocks only these. */
export const MAX_IN_FLIGHT_PER_TENANT = 20
/**
 * With replicas: how long past an attempt's timeout its event stays leased to the replica making
 * it (the attempt is logged within it); then another replica may attempt it.
 */
const LEASE_MARGIN_MS = 10_000

export type Deliverer = ReturnType<typeof createDeliverer>

export function createDeliverer(db: Db, tenants: TenantDirectory, options: DeliveryOptions) {
  const inFlight = new Map<string, Promise<void>>()
  const inFlightByTenant = new Map<string, number>()
  let closed = false
  const attempts: AttemptContext = { db, tenants, options, isClosed: () => closed }

  /** Whether the last kick left due events waiting for a slot. */
  let backlog = false
  let kickScheduled = false
  /**
   * The last tenant given a pass's odd slot (its share one above the others'): the next pass
   * starts after it, so a full house rotates.
   */
  let lastServed = ''
  /** Attempts settled so far: slots freed during a pass are the next pass's to give. */
  let settlements = 0
  /** Tokens whose events wait (a fixture being applied, which may yet be undone). */
  const held = new Set<string>()

  let kicking: Promise<void> | undefined
  let kickAgain = false
  /** Kicks asked for and not yet finished (idle() waits for them: they may start attempts). */
  let kicksWaiting = 0

  /**
   * Starts what is due, one pass at a time: a kick while one runs makes it run once more (two
   * passes at once would both count the same free slots).
   */
  function kick(): Promise<void> {
    kickScheduled = false
    if (kicking) {
      kickAgain = true
      return kicking
    }
    kicking = (async () => {
      do {
        kickAgain = false
        const settledBefore = settlements
        await startWhatIsDue()
        // a slot freed while backlog was still unknown (false) scheduled no kick of its own
        if (backlog && settlements !== settledBefore) kickAgain = true
      } while (kickAgain && !closed)
    })().finally(() => (kicking = undefined))
    return kicking
  }

  /** Kicks on the next turn of the event loop; an error is logged, not thrown (none expected). */
  function kickSoon(): void {
    kicksWaiting++
    setImmediate(
      () =>
        void kick()
          .finally(() => kicksWaiting--)
          .catch((error: Error) => {
            if (!closed)
              options.logger.log({
                event: 'webhook',
                level: 'error',
                text: `webhook delivery failed: ${error.stack ?? error}`,
                fields: { error: String(error) },
              })
          }),
    )
  }

  async function startWhatIsDue(): Promise<void> {
    if (closed) return
    backlog = false
    const pending: string[] = []
    for (let next = await nextTenantWithPendingEvents(db, ''); next !== undefined;) {
      pending.push(next)
      next = await nextTenantWithPendingEvents(db, next)
    }
    const first = pending.findIndex((id) => id > lastServed)
    const order = first <= 0 ? pending : [...pending.slice(first), ...pending.slice(0, first)]
    const contenders = order.filter(
      (id) => (inFlightByTenant.get(id) ?? 0) < MAX_IN_FLIGHT_PER_TENANT,
    )
    if (contenders.length < order.length) backlog = true // a tenant at its share waits
    // The slots free now are this pass's, shared out evenly in turn order (a share its tenant
    // leaves unused goes on to the next ones). Slots freed during the pass are the next pass's:
    // on PostgreSQL a claim takes round trips, and if they went to the tenant claiming next, the
    // one whose turn comes second in every pass would take most of them.
    let budget = MAX_IN_FLIGHT - inFlight.size
    for (const [i, tenantId] of contenders.entries()) {
      if (budget <= 0) {
        backlog = true
        return
      }
      const left = contenders.length - i
      if (budget % left !== 0) lastServed = tenantId
      budget -= await startDue(tenantId, Math.ceil(budget / left))
    }
  }

  /**
   * Starts the tenant's due events, as many as its free slots and `share` (its part of the
   * pass's) allow; returns how many.
   */
  async function startDue(tenantId: string, share: number): Promise<number> {
    const busy = inFlightByTenant.get(tenantId) ?? 0
    const free = Math.min(MAX_IN_FLIGHT_PER_TENANT - busy, share)
    if (free <= 0) {
      backlog = true
      return 0
    }
    const tenant = await tenants.byId(tenantId)
    if (!tenant) return 0 // a reset tenant's old id: its rows are swept in the background
    if (held.has(tenant.token)) return 0
    const { events, more } = await claimDueEvents(db, tenantId, tenants.now(tenant), {
      free,
      busy,
      leaseMs: options.timeoutMs + LEASE_MARGIN_MS,
    })
    if (more) backlog = true
    let started = 0
    for (const event of events) {
      if (started === free) break
      if (inFlight.has(event.id)) continue
      started++
      // read again, not `busy + started`: on PostgreSQL the tenant's attempts may have settled
      // during the two awaits above, and a count taken before them would undo those settlements
      inFlightByTenant.set(tenantId, (inFlightByTenant.get(tenantId) ?? 0) + 1)
      const attempt = send(event, tenant)
        .catch((error: Error) =>
          options.logger.log({
            event: 'webhook',
            level: 'error',
            tenant: tenant.token,
            text: `webhook ${event.type} ${event.id}: delivery failed: ${error.stack ?? error}`,
            fields: { type: event.type, id: event.id, error: String(error) },
          }),
        )
        .finally(() => settled(event))
      inFlight.set(event.id, attempt)
    }
    return started
  }

  /** With a backlog, slots are refilled as attempts finish, not on the next tick. */
  function settled(event: WebhookEvent): void {
    settlements++
    inFlight.delete(event.id)
    const left = inFlightByTenant.get(event.tenantId)! - 1
    if (left === 0) inFlightByTenant.delete(event.tenantId)
    else inFlightByTenant.set(event.tenantId, left)
    if (backlog) scheduleKick()
  }

  function scheduleKick(): void {
    if (kickScheduled) return
    kickScheduled = true
    kickSoon()
  }

  async function send(event: WebhookEvent, tenant: Tenant): Promise<void> {
    const status = await attemptEvent(attempts, event, tenant)
    if (status === 'pending') wakeups = undefined // its retry, read with the others
  }

  /**
   * With replicas: each tenant's earliest event to attempt and its clock, as last read (undefined:
   * to be read again). Read again when this process wrote events or scheduled a retry (the events
   * a replica writes are its to send), when a clock moved, and at the slow poll, which finds those
   * of a replica that died (store/announced.ts).
   */
  let wakeups: Awaited<ReturnType<typeof eventWakeups>> | undefined
  let writtenSeen = eventsWritten(db)

  /** The tick's part; with replicas, only when an event is due by the wake-ups (or a backlog waits). */
  async function deliverDue(): Promise<void> {
    if (announcesWrites(db) && !(await dueByWakeups())) return
    await kick()
  }

  async function dueByWakeups(): Promise<boolean> {
    const announced = announcedOf(db)
    const written = eventsWritten(db)
    if (announced.webhooks || written !== writtenSeen || !wakeups) {
      announced.webhooks = false
      writtenSeen = written
      wakeups = await eventWakeups(db)
    }
    if (!backlog && !wakeups.some(({ dueAt, clock }) => dueAt <= tenants.now(clock))) return false
    wakeups = undefined // what the pass claims is leased: read again after it
    return true
  }

  return {
    /** The tick's part: starts the attempts now due (retries come due on the tenants' clocks). */
    deliverDue,
    /** Sends what is due now, without waiting; call after anything that may have enqueued. */
    kick: kickSoon,
    /**
     * Sends none of the tenant's events until the returned release is called (then at once): a
     * fixture's events wait until it has applied whole, and are never sent if it is undone.
     */
    hold(token: string): () => void {
      held.add(token)
      return () => {
        held.delete(token)
        kickSoon()
      }
    },
    /** Resolves when no kick is pending and no attempt is in flight (tests, shutdown). */
    async idle(): Promise<void> {
      for (;;) {
        if (kicksWaiting > 0 || kicking) await new Promise((resolve) => setImmediate(resolve))
        else if (inFlight.size > 0) await Promise.allSettled([...inFlight.values()])
        else return
      }
    },
    /** Stops sending; attempts in flight finish (each is bounded by the timeout) but log nothing. */
    async close(): Promise<void> {
      closed = true
      await Promise.allSettled([...inFlight.values()])
    },
  }
}
