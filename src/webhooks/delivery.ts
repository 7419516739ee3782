/**
 * Webhook delivery (PRODUCT §7): sends what the outbox holds, after the request that caused
 * it has answered. At least once, with the same event id on every attempt; each attempt times
 * out, and a timeout, connection error or non-2xx is retried on the tenant's sandbox clock
 * (RETRY_DELAYS_MS), then the event is failed. Every attempt is logged. Attempts run
 * concurrently, so a slow or dead receiver holds up nobody else.
 */
import { and, asc, eq, lte, sql } from 'drizzle-orm'
import type { Db } from '../db/open.js'
import {
  tenants as tenantsTable,
  webhookAttempts,
  webhookEvents,
  type Tenant,
  type WebhookEvent,
} from '../db/schema.js'
import { atomically, insertRow, updateBySeq } from '../domain/context.js'
import { tenantNowSql, type TenantDirectory } from '../domain/tenants.js'
import { RETRY_DELAYS_MS } from './outbox.js'
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
  speed: number
}

/** How much of a response (or error) the attempt log keeps. */
const RESPONSE_PREFIX_BYTES = 512
const TICK_MS = 100
/** How many attempts may be in flight at once; more due events wait for a free slot. */
const MAX_IN_FLIGHT = 200

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

export function createDeliverer(db: Db, tenants: TenantDirectory, options: DeliveryOptions) {
  const inFlight = new Map<string, Promise<void>>()
  let closed = false

  /** Pending events whose next attempt is due on their tenant's clock, oldest first. */
  const dueEvents = db
    .select({ event: webhookEvents })
    .from(webhookEvents)
    .innerJoin(tenantsTable, eq(tenantsTable.id, webhookEvents.tenantId))
    .where(
      and(
        eq(webhookEvents.status, 'pending'),
        lte(webhookEvents.nextAttemptAt, tenantNowSql(sql.placeholder('wallNow'), options.speed)),
      ),
    )
    .orderBy(asc(webhookEvents.nextAttemptAt), asc(webhookEvents.seq))
    .limit(sql.placeholder('limit'))
    .prepare()

  /** Whether the last read found more due events than there were free slots. */
  let backlog = false
  let kickScheduled = false

  function kick(): void {
    kickScheduled = false
    if (closed) return
    const free = MAX_IN_FLIGHT - inFlight.size
    if (free <= 0) return
    // events in flight are still pending: read past them
    const limit = free + inFlight.size
    const due = dueEvents.all({ wallNow: Date.now(), limit }).map((row) => row.event)
    backlog = due.length === limit
    let started = 0
    for (const event of due) {
      if (started === free) break
      if (inFlight.has(event.id)) continue
      started++
      const attempt = send(event)
        .catch((error) => console.error('card-sandbox: webhook delivery failed', error))
        .finally(() => settled(event.id))
      inFlight.set(event.id, attempt)
    }
  }

  /** With a backlog, slots are refilled as attempts finish, not on the next tick. */
  function settled(eventId: string): void {
    inFlight.delete(eventId)
    if (backlog && inFlight.size <= MAX_IN_FLIGHT / 2) scheduleKick()
  }

  function scheduleKick(): void {
    if (kickScheduled) return
    kickScheduled = true
    setImmediate(kick)
  }

  async function send(event: WebhookEvent): Promise<void> {
    const tenant = tenants.byId(event.tenantId)
    if (!tenant) return
    const { url, secret } = webhookTarget(tenant, options)
    if (!url) {
      updateBySeq(db, webhookEvents, event.seq, { status: 'skipped' })
      return
    }
    const number = attemptsLogged(event.id) + 1
    const at = tenants.now(tenant)
    const started = performance.now()
    let statusCode: number | null = null
    let response: string | null = null
    let error: string | null = null
    try {
      const res = await fetch(url, {
        method: 'POST',
        headers: {
          'Content-Type': 'application/json',
          [SIGNATURE_HEADER]: sign(event.body, secret),
          [EVENT_ID_HEADER]: event.id,
          [ATTEMPT_HEADER]: String(number),
          ...(event.extension && { [EXTENSION_HEADER]: 'true' }),
        },
        body: event.body,
        redirect: 'manual',
        signal: AbortSignal.timeout(options.timeoutMs),
      })
      statusCode = res.status
      response = (await res.text()).slice(0, RESPONSE_PREFIX_BYTES)
    } catch (cause) {
      error = describe(cause, options.timeoutMs)
    }
    if (closed) return
    const delivered = statusCode !== null && statusCode >= 200 && statusCode < 300
    const cycle = event.attempts + 1
    const retryIn = RETRY_DELAYS_MS[cycle - 1]
    atomically(db, () => {
      const changed = updateBySeq(db, webhookEvents, event.seq, {
        attempts: cycle,
        status: delivered ? 'delivered' : retryIn === undefined ? 'failed' : 'pending',
        nextAttemptAt: delivered || retryIn === undefined ? event.nextAttemptAt : at + retryIn,
      })
      if (changed === 0) return // the tenant was reset meanwhile
      insertRow(db, webhookAttempts, {
        eventId: event.id,
        tenantId: event.tenantId,
        attempt: number,
        url,
        at,
        statusCode,
        latencyMs: Math.round(performance.now() - started),
        response,
        error,
      })
    })
  }

  const countAttempts = db
    .select({ n: sql<number>`count(*)` })
    .from(webhookAttempts)
    .where(eq(webhookAttempts.eventId, sql.placeholder('eventId')))
    .prepare()

  function attemptsLogged(eventId: string): number {
    return countAttempts.get({ eventId })?.n ?? 0
  }

  const timer = setInterval(() => {
    try {
      kick()
    } catch (error) {
      console.error('card-sandbox: webhook tick failed', error)
    }
  }, TICK_MS)
  timer.unref()

  return {
    /** Sends what is due now, without waiting; call after anything that may have enqueued. */
    kick: () => setImmediate(() => kick()),
    /** Resolves when no attempt is in flight (tests, shutdown). */
    async idle(): Promise<void> {
      while (inFlight.size > 0) await Promise.allSettled([...inFlight.values()])
    },
    /** Stops sending; attempts in flight finish (each is bounded by the timeout) but log nothing. */
    async close(): Promise<void> {
      clearInterval(timer)
      closed = true
      await Promise.allSettled([...inFlight.values()])
    },
  }
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
