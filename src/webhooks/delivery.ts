/**
 * Webhook delivery (PRODUCT §7): sends what the outbox holds, after the request that caused
 * it has answered. At least once, with the same event id on every attempt; each attempt times
 * out, and a timeout, connection error or non-2xx is retried on the tenant's sandbox clock
 * (RETRY_DELAYS_MS), then the event is failed. Every attempt is logged. Attempts run
 * concurrently, so a slow or dead receiver holds up nobody else: a tenant has at most
 * MAX_IN_FLIGHT_PER_TENANT of the MAX_IN_FLIGHT slots, due events are picked tenant by tenant
 * (never "the oldest N", which one tenant's backlog could fill) in turns, each pass sharing the
 * slots free at its start evenly between the tenants, and at most RESPONSE_READ_BYTES of an
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
import type { Logger } from '../lib/logger.js'
import { maskUrlPassword } from '../lib/masking.js'
import { announcedOf, announcesWrites } from '../store/announced.js'
import { atomically } from '../store/statements.js'
import {
  attemptCount,
  claimDueEvents,
  eventWakeups,
  insertAttempt,
  nextTenantWithPendingEvents,
  updateEvent,
} from '../store/webhooks.js'
import { eventsWritten, RETRY_DELAYS_MS } from '../domain/outbox.js'
import {
  ATTEMPT_HEADER,
  EVENT_ID_HEADER,
  EXTENSION_HEADER,
  SIGNATURE_HEADER,
  sign,
} from './sign.js'

export type DeliveryOptions = {
  webhookUrl?: string
  webhookSecret?: string
  /** How long one attempt may take, response included. */
  timeoutMs: number
  logger: Logger
}

/** How much of a response (or error) the attempt log keeps. */
const RESPONSE_PREFIX_BYTES = 512
/**
 * How much of a response is read at most: a short answer is read whole (its connection can be
 * reused); a longer one is cut there and its connection dropped, whatever the receiver streams.
 */
const RESPONSE_READ_BYTES = 4 * 1024
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

/** Where a tenant's events go and what signs them: its own settings, else the flags, else its token. */
export function webhookTarget(
  tenant: Tenant,
  options: Pick<DeliveryOptions, 'webhookUrl' | 'webhookSecret'>,
) {
  return {
    url: tenant.webhookUrl ?? options.webhookUrl ?? null,
    secret: tenant.webhookSecret ?? options.webhookSecret ?? tenant.token,
  }
}

/**
 * Where the tenant's webhook URL and secret come from: set on the tenant (`PUT /webhook`), the
 * server's default (`--webhook-url`, `--webhook-secret`), or neither (no URL; the bearer token
 * signs). A default is not the tenant's: putting it back is setting null, not its value.
 */
export function webhookSources(
  tenant: Tenant,
  options: Pick<DeliveryOptions, 'webhookUrl' | 'webhookSecret'>,
) {
  return {
    url_source: tenant.webhookUrl !== null ? 'tenant' : options.webhookUrl ? 'flag' : 'none',
    secret_source:
      tenant.webhookSecret !== null ? 'tenant' : options.webhookSecret ? 'flag' : 'token',
  } as const
}

export function createDeliverer(db: Db, tenants: TenantDirectory, options: DeliveryOptions) {
  const inFlight = new Map<string, Promise<void>>()
  const inFlightByTenant = new Map<string, number>()
  let closed = false

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
    const { url, secret } = webhookTarget(tenant, options)
    if (!url) {
      await updateEvent(db, event.seq, { status: 'skipped' })
      options.logger.log({
        event: 'webhook',
        tenant: tenant.token,
        text: `webhook ${event.type} not sent: no webhook URL (PUT /__sandbox/webhook or --webhook-url)`,
        fields: { type: event.type, id: event.id, status: 'skipped' },
        sandboxTime: tenants.now(tenant),
      })
      return
    }
    const number = (await attemptCount(db, event.id)) + 1
    const at = tenants.now(tenant)
    const headers: Record<string, string> = {
      'content-type': 'application/json',
      [SIGNATURE_HEADER]: sign(event.body, secret),
      [EVENT_ID_HEADER]: event.id,
      [ATTEMPT_HEADER]: String(number),
      ...(event.extension && { [EXTENSION_HEADER]: 'true' }),
    }
    const started = performance.now()
    let statusCode: number | null = null
    let response: string | null = null
    let error: string | null = null
    // one controller for the timeout and the cut-off: AbortSignal.any holds its sources weakly,
    // and a collected AbortSignal.timeout never fires (seen here under load)
    const abort = new AbortController()
    const timer = setTimeout(
      () => abort.abort(new DOMException('timed out', 'TimeoutError')),
      options.timeoutMs,
    )
    try {
      const res = await fetch(url, {
        method: 'POST',
        headers,
        body: event.body,
        redirect: 'manual',
        signal: abort.signal,
      })
      statusCode = res.status
      const { text, whole } = await readAtMost(res, RESPONSE_READ_BYTES)
      if (!whole) abort.abort() // drops the connection: nothing more is received
      response = text.slice(0, RESPONSE_PREFIX_BYTES)
    } catch (cause) {
      error = describe(cause, options.timeoutMs)
    } finally {
      clearTimeout(timer)
    }
    if (closed) return
    const delivered = statusCode !== null && statusCode >= 200 && statusCode < 300
    const cycle = event.attempts + 1
    const retryIn = RETRY_DELAYS_MS[cycle - 1]
    const status = delivered ? 'delivered' : retryIn === undefined ? 'failed' : 'pending'
    const nextAttemptAt = status === 'pending' ? at + retryIn : event.nextAttemptAt
    const logged = await atomically(db, async (db) => {
      const changed = await updateEvent(db, event.seq, {
        attempts: cycle,
        status,
        nextAttemptAt,
        leaseUntil: null,
      })
      if (changed === 0) return false // the tenant was reset meanwhile
      await insertAttempt(db, {
        eventId: event.id,
        tenantId: event.tenantId,
        attempt: number,
        url,
        at,
        statusCode,
        latencyMs: Math.round(performance.now() - started),
        response,
        error,
        requestHeaders: headers,
      })
      return true
    })
    if (status === 'pending') wakeups = undefined // its retry, read with the others
    if (logged)
      logAttempt(options.logger, tenant, event, {
        url,
        number,
        at,
        statusCode,
        error,
        status,
        nextAttemptAt,
      })
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

type Attempt = {
  url: string
  number: number
  at: number
  statusCode: number | null
  error: string | null
  /** The event's status after the attempt: `pending` waits for its retry at nextAttemptAt. */
  status: 'delivered' | 'failed' | 'pending'
  nextAttemptAt: number
}

function logAttempt(logger: Logger, tenant: Tenant, event: WebhookEvent, attempt: Attempt): void {
  const { number, at, statusCode, error, status } = attempt
  const url = maskUrlPassword(attempt.url)
  const outcome = error ?? `HTTP ${statusCode}`
  const retryAt = status === 'pending' ? new Date(attempt.nextAttemptAt).toISOString() : undefined
  const next =
    status === 'delivered'
      ? 'delivered'
      : retryAt === undefined
        ? 'failed, no retry left'
        : `retry at ${retryAt} (sandbox time)`
  logger.log({
    event: 'webhook',
    level: status === 'delivered' ? 'info' : 'warn',
    tenant: tenant.token,
    text: `webhook ${event.type} → ${url} attempt ${number}: ${outcome}, ${next}`,
    fields: {
      type: event.type,
      id: event.id,
      url,
      attempt: number,
      status_code: statusCode,
      ...(error !== null && { error }),
      outcome: status === 'pending' ? 'retrying' : status,
      ...(retryAt !== undefined && { next_attempt_at: retryAt }),
    },
    sandboxTime: at,
  })
}

/** The first `limit` bytes of a body (as text), and whether that was all of it. */
async function readAtMost(res: Response, limit: number): Promise<{ text: string; whole: boolean }> {
  if (!res.body) return { text: '', whole: true }
  const reader = res.body.getReader()
  const chunks: Uint8Array[] = []
  let size = 0
  while (size <= limit) {
    const { done, value } = await reader.read()
    if (done) return { text: Buffer.concat(chunks).toString('utf8'), whole: true }
    chunks.push(value)
    size += value.length
  }
  return { text: Buffer.concat(chunks).subarray(0, limit).toString('utf8'), whole: false }
}

function describe(cause: unknown, timeoutMs: number): string {
  if (cause instanceof Error && (cause.name === 'TimeoutError' || cause.name === 'AbortError')) {
    return `timed out after ${timeoutMs} ms`
  }
  const error = cause as Error & { cause?: { code?: string; message?: string } }
  const detail = error.cause?.code ?? error.cause?.message
  return (detail ? `${error.message}: ${detail}` : String(error.message ?? cause)).slice(
    0,
    RESPONSE_PREFIX_BYTES,
  )
}
