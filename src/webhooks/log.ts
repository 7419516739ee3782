/**
 * The webhook log's read side (PRODUCT §7, §8): a page of a tenant's events, newest first, each
 * with its delivery attempts, masked for reading (PRODUCT §11). The control plane
 * (`GET /__sandbox/webhooks`) and the dashboard both show this; the outbox keeps the exact bytes
 * that were sent, and only what is read here is masked.
 */
import type { WEBHOOK_EVENT_STATUSES, WebhookAttempt, WebhookEvent } from '../db/schema.js'
import type { DomainContext } from '../domain/context.js'
import { maskJsonSecrets, maskUrlPassword } from '../lib/masking.js'
import type { Page, PageOf } from '../store/rows.js'
import { attemptsOf, eventPages, eventPagesByStatus } from '../store/webhooks.js'

export type WebhookLogQuery = Page & { status?: (typeof WEBHOOK_EVENT_STATUSES)[number] }

/** One event as the log shows it: JSON-ready, in the control plane's snake_case. */
export type WebhookLogEntry = ReturnType<typeof toLogEntry>

export async function webhookLog(
  ctx: DomainContext,
  query: WebhookLogQuery,
): Promise<PageOf<WebhookLogEntry>> {
  const page = query.status
    ? await eventPagesByStatus(ctx.db, ctx.tenant.id, query, query.status)
    : await eventPages(ctx.db, ctx.tenant.id, query)
  const attempts = await attemptsOf(
    ctx.db,
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
      url: maskUrlPassword(a.url),
      request_headers: a.requestHeaders,
      status_code: a.statusCode,
      latency_ms: a.latencyMs,
      response: a.response === null ? null : maskJsonSecrets(a.response),
      error: a.error,
    })),
  }
}
