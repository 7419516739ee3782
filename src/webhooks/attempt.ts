/**
 * One attempt of one webhook event (PRODUCT §7): where it goes and what signs it, the POST
 * (post.ts), then the event's new status and the attempt's row written in one transaction, and
 * the attempt's line on the console. The deliverer (delivery.ts) decides which events get a slot
 * and when.
 */
import type { Tenant, WebhookEvent } from '../db/schema.js'
import { RETRY_DELAYS_MS } from '../domain/outbox.js'
import type { TenantDirectory } from '../domain/tenants.js'
import type { Logger } from '../lib/logger.js'
import { maskUrlPassword } from '../lib/masking.js'
import type { Db } from '../store/driver.js'
import { atomically } from '../store/statements.js'
import { attemptCount, insertAttempt, updateEvent } from '../store/webhooks.js'
import { postWebhook } from './post.js'
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

/**
 * How much of a response is read at most: a short answer is read whole (its connection can be
 * reused); a longer one is cut there and its connection dropped, whatever the receiver streams.
 */
const RESPONSE_READ_BYTES = 4 * 1024
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

export type AttemptContext = {
  db: Db
  tenants: TenantDirectory
  options: DeliveryOptions
  /** The sandbox stopped while the POST was out: nothing is recorded. */
  isClosed: () => boolean
}

/**
 * Makes one attempt of `event` and records it; the event's status after it (`skipped`: no URL;
 * undefined: the sandbox stopped meanwhile, nothing recorded).
 */
export async function attemptEvent(
  context: AttemptContext,
  event: WebhookEvent,
  tenant: Tenant,
): Promise<'delivered' | 'failed' | 'pending' | 'skipped' | undefined> {
  const { db, tenants, options } = context
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
    return 'skipped'
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
  const { statusCode, response, error } = await postWebhook(url, headers, event.body, {
    timeoutMs: options.timeoutMs,
    readBytes: RESPONSE_READ_BYTES,
  })
  if (context.isClosed()) return undefined
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
  return status
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
