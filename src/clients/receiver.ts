/**
 * The webhook receiver `card-sandbox/testing` exports and `card-sandbox listen` runs on: a local
 * HTTP server a tenant's webhooks are pointed at, which checks each delivery's signature and
 * waits for an event.
 */
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http'
import type { AddressInfo } from 'node:net'
import type { WebhookEventName, WebhookEvents, WebhookPayload } from '../domain/webhook-payloads.js'
import { SIGNATURE_HEADER, verifySignature } from '../webhooks/sign.js'
import type { SandboxClient } from './client.js'

/**
 * A verified delivery the receiver got: signed with the tenant's secret, so one of the events
 * the sandbox sends, typed by its name (`Delivery<'card_creation.successful'>`); the default, a
 * union of every event's, narrows on `event`.
 */
export type Delivery<E extends WebhookEventName = WebhookEventName> = {
  [Name in E]: {
    /** The event type (`card_creation.successful`). */
    event: Name
    /** The event's `data`. */
    data: WebhookEvents[Name]
    /** The whole parsed body. */
    body: WebhookPayload<Name>
    /** The body's exact bytes, as text. */
    rawBody: string
    /** The request's headers, lowercased (`x-alal-event-id`, `x-alal-delivery-attempt`, …). */
    headers: Record<string, string>
    /** Its signature matched the secret. */
    verified: true
  }
}[E]

/**
 * A delivery whose signature did not match (answered 401): nothing in it is vouched for, so its
 * event and data are as they came (`""` and null when the body is not the JSON of an event).
 */
export type UnverifiedDelivery = {
  event: string
  data: unknown
  body: unknown
  rawBody: string
  headers: Record<string, string>
  verified: false
}

export type WebhookReceiverOptions = {
  /**
   * What signs the tenant's webhooks while the receiver listens (set on the tenant with the
   * URL). Default: the client's token, the sandbox's own default.
   */
  secret?: string
  /**
   * The status to answer a verified delivery with (default 200): a test of retries answers
   * 500 for the first attempts; `card-sandbox listen --forward-to` answers what the handler it
   * forwards to answered.
   */
  respond?: (delivery: Delivery) => number | Promise<number>
}

export type WebhookReceiver = {
  /** Where the tenant's webhooks now go. */
  url: string
  /**
   * Every delivery so far, oldest first, verified or not: `d.verified && d.event === 'x'`
   * narrows one to `Delivery<'x'>`, its `data` typed.
   */
  deliveries: (Delivery | UnverifiedDelivery)[]
  /**
   * The first verified delivery of `event` (past or to come) that `predicate` accepts, its
   * `data` typed by the event's name; rejects after `timeout` ms (default 5000) naming what did
   * arrive.
   */
  waitFor<E extends WebhookEventName>(
    event: E,
    predicate?: (delivery: Delivery<E>) => boolean,
    options?: { timeout?: number },
  ): Promise<Delivery<E>>
  /** Stops listening and takes the tenant's webhook URL back off (to the sandbox's default). */
  close(): Promise<void>
}

/** The largest body the receiver reads (the sandbox's own events are a few KiB). */
const MAX_BODY_BYTES = 1024 * 1024

/**
 * Starts a receiver for the client's tenant: a local HTTP server on 127.0.0.1, a free port; the
 * tenant's webhook URL (and secret) set to it.
 */
export async function webhookReceiver(
  client: Pick<SandboxClient, 'token' | 'setWebhook'>,
  options: WebhookReceiverOptions = {},
): Promise<WebhookReceiver> {
  const secret = options.secret ?? client.token
  const deliveries: (Delivery | UnverifiedDelivery)[] = []
  const waiters = new Set<() => void>()

  async function receive(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const chunks: Buffer[] = []
    let size = 0
    for await (const chunk of req as AsyncIterable<Buffer>) {
      size += chunk.length
      if (size > MAX_BODY_BYTES) {
        res.writeHead(413).end()
        return
      }
      chunks.push(chunk)
    }
    const rawBody = Buffer.concat(chunks).toString('utf8')
    const headers: Record<string, string> = {}
    for (const [name, value] of Object.entries(req.headers))
      if (typeof value === 'string') headers[name] = value
    let body: unknown = null
    try {
      body = JSON.parse(rawBody)
    } catch {
      // kept as rawBody; event and data stay empty
    }
    const parsed = (body ?? {}) as { event?: unknown; data?: unknown }
    const received = {
      event: typeof parsed.event === 'string' ? parsed.event : '',
      data: parsed.data ?? null,
      body,
      rawBody,
      headers,
      verified: verifySignature(rawBody, headers[SIGNATURE_HEADER], secret),
    }
    // signed with the tenant's secret: an event the sandbox sent, as WebhookEvents types it
    const delivery = received as Delivery | UnverifiedDelivery
    deliveries.push(delivery)
    for (const wake of waiters) wake()
    const status = delivery.verified ? ((await options.respond?.(delivery)) ?? 200) : 401
    res.writeHead(status, { 'content-type': 'application/json' }).end('{}')
  }

  const server = createServer((req, res) => {
    receive(req, res).catch(() => res.writeHead(400).end())
  })
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject)
    server.listen(0, '127.0.0.1', resolve)
  })
  const { port } = server.address() as AddressInfo
  const url = `http://127.0.0.1:${port}/webhooks`
  try {
    await client.setWebhook({ url, secret })
  } catch (error) {
    server.close()
    throw error
  }

  function waitFor<E extends WebhookEventName>(
    event: E,
    predicate: (delivery: Delivery<E>) => boolean = () => true,
    { timeout = 5_000 }: { timeout?: number } = {},
  ): Promise<Delivery<E>> {
    const found = () => {
      for (const d of deliveries)
        if (d.verified && d.event === event && predicate(d as Delivery<E>)) return d as Delivery<E>
    }
    return new Promise((resolve, reject) => {
      const check = () => {
        const delivery = found()
        if (!delivery) return
        cleanup()
        resolve(delivery)
      }
      const timer = setTimeout(() => {
        cleanup()
        const seen = deliveries.map(
          (d) => `${d.event || '?'}${d.verified ? '' : ' (bad signature)'}`,
        )
        reject(
          new Error(
            `no verified ${event} delivery within ${timeout} ms` +
              ` (received: ${seen.length ? seen.join(', ') : 'nothing'})`,
          ),
        )
      }, timeout)
      const cleanup = () => {
        clearTimeout(timer)
        waiters.delete(check)
      }
      waiters.add(check)
      check()
    })
  }

  return {
    url,
    deliveries,
    waitFor,
    async close() {
      await new Promise<void>((resolve) => {
        server.close(() => resolve())
        server.closeAllConnections()
      })
      await client.setWebhook({ url: null, secret: null }).catch(() => {})
    },
  }
}
