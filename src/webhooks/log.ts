/**
 * The webhook log's read side (PRODUCT §7, §8): a page of a tenant's events, newest first, each
 * with its delivery attempts, masked for reading (PRODUCT §11). The control plane
 * (`GET /__sandbox/webhooks`) and the dashboard both show this; the outbox keeps the exact bytes
 * that were sent, and only what is read here is masked.
 */
import { inArray } from 'drizzle-orm'
import {
  webhookAttempts,
  webhookEvents,
  type WEBHOOK_EVENT_STATUSES,
  type WebhookAttempt,
  type WebhookEvent,
} from '../db/schema.js'
import { listPage, type DomainContext, type Page, type PageOf } from '../domain/context.js'
import { maskJsonSecrets } from '../masking.js'

export type WebhookLogQuery = Page & { status?: (typeof WEBHOOK_EVENT_STATUSES)[number] }

/** One event as the log shows it: JSON-ready, in the control plane's snake_case. */
export type WebhookLogEntry = ReturnType<typeof toLogEntry>

export function webhookLog(ctx: DomainContext, query: WebhookLogQuery): PageOf<WebhookLogEntry> {
  const page = listPage(
    ctx,
    webhookEvents,
    query,
    query.status && { column: webhookEvents.status, value: query.status },
  )
  const attempts = attemptsOf(
    ctx,
    page.rows.map((event) => event.id),
  )
  return {
    ...page,
    rows: page.rows.map((event) =>
      toLogEntry(
        event,
        attempts.filter((a) => a.eventId === event.id),
      ),
    ),
  }
}

/** The attempts at delivering these events, first attempt first. */
function attemptsOf(ctx: DomainContext, eventIds: string[]): WebhookAttempt[] {
  if (!eventIds.length) return []
  return ctx.db
    .select()
    .from(webhookAttempts)
    .where(inArray(webhookAttempts.eventId, eventIds))
    .orderBy(webhookAttempts.attempt)
    .all()
}

const iso = (ms: number) => new Date(ms).toISOString()

function toLogEntry(event: WebhookEvent, attempts: WebhookAttempt[]) {
  return {
    id: event.id,
    type: event.type,
    extension: event.extension,
    status: event.status,
    created_at: iso(event.createdAt),
    next_attempt_at: event.status === 'pending' ? iso(event.nextAttemptAt) : null,
    body: maskJsonSecrets(event.body),
    attempts: attempts.map((a) => ({
      attempt: a.attempt,
      at: iso(a.at),
      url: a.url,
      status_code: a.statusCode,
      latency_ms: a.latencyMs,
      response: a.response === null ? null : maskJsonSecrets(a.response),
      error: a.error,
    })),
  }
}
