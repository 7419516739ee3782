/**
 * Webhook commands against a running sandbox, after the Stripe CLI's:
 * `trigger <event>` creates what the event needs and makes it fire; `listen [--forward-to URL]`
 * points the tenant's webhooks at itself and prints each delivery live with its signature check,
 * or forwards each to your handler (answering the sandbox what the handler answered, so retries
 * behave as they would), until Ctrl-C (or until npm, which started it, has gone). `listen`
 * leaves the secret that signs as it found it (the handler verifies with the secret it knows)
 * and on exit puts the URL and secret back as they were: the tenant's own, or null where they
 * were a default.
 */
import type { SandboxClient, WebhookEndpoint } from '../../clients/client.js'
import { RETRY_DELAYS_MS } from '../../domain/outbox.js'
import { webhookReceiver, type Delivery, type UnverifiedDelivery } from '../../clients/receiver.js'
import { maskToken, maskUrlPassword } from '../../lib/masking.js'
import { postWebhook } from '../../webhooks/post.js'
import { ATTEMPT_HEADER, EVENT_ID_HEADER } from '../../webhooks/sign.js'
import { helpRow } from '../help.js'
import { expectArgs, remoteCommand, untilStopped, UsageError } from './remote.js'

/** A full-identity card user: verified by itself, so the triggers need no widget. */
function identity() {
  const digits = String(Math.floor(Math.random() * 10_000_000)).padStart(7, '0')
  return {
    first_name: 'Awa',
    last_name: 'Diop',
    address: '12 Rue Carnot, Dakar',
    phone: `+22177${digits}`,
    email: 'awa.diop@example.com',
    id_no: '1234567890123',
    selfie_image: 'https://img.example.com/selfie.jpg',
    id_image: 'https://img.example.com/id-front.jpg',
    back_id_image: 'https://img.example.com/id-back.jpg',
  }
}

async function newUser(client: SandboxClient): Promise<string> {
  const created = await client.v1.cardUsers.create(identity())
  return ('data' in created ? created.data : created).userCard.reference
}

async function verifiedUser(client: SandboxClient): Promise<string> {
  const user = await newUser(client)
  await client.transition('card-users', user, 'passed')
  return user
}

async function newCard(client: SandboxClient, to: 'issued' | 'failed'): Promise<string> {
  const user = await verifiedUser(client)
  const order = await client.v1.cards.create({
    card_user_reference: user,
    card_brand: 'visa',
    card_type: 'virtual',
  })
  await client.transition('cards', order.data.card.reference, to)
  return order.data.card.reference
}

/** Each event `trigger` can make fire: what it creates, and the reference it prints. */
const TRIGGERS: Record<string, (client: SandboxClient) => Promise<string>> = {
  'card_user_verification.successful': verifiedUser,
  'card_user_verification.failed': async (client) => {
    const user = await newUser(client)
    await client.transition('card-users', user, 'failed')
    return user
  },
  'card_creation.successful': (client) => newCard(client, 'issued'),
  'card_creation.failed': (client) => newCard(client, 'failed'),
}

export const triggerCommand = remoteCommand(
  {
    name: 'trigger',
    usage: 'trigger <event>',
    summary: `create what an event needs and make it fire (${Object.keys(TRIGGERS).join(', ')})`,
  },
  async ({ client, positionals, out }) => {
    const [event] = expectArgs(positionals, ['event'])
    const trigger = TRIGGERS[event]
    if (!trigger)
      throw new UsageError(`no trigger for ${event} (events: ${Object.keys(TRIGGERS).join(', ')})`)
    const reference = await trigger(client)
    const { url } = await client.webhook()
    out(
      `triggered ${event} (${reference}); ` +
        (url ? `sent to ${url}` : "no webhook URL is set: run 'card-sandbox listen' to see it"),
    )
  },
)

export const listenCommand = remoteCommand(
  {
    name: 'listen',
    usage: 'listen [--forward-to <url>]',
    summary: "receive the tenant's webhooks here, printing each (and forwarding), until Ctrl-C",
    help: [
      helpRow(
        '--forward-to <url>',
        'also post each delivery, bytes and headers as sent, to your handler; the sandbox gets its answer',
      ),
    ],
    options: { 'forward-to': { type: 'string' } },
  },
  async ({ client, positionals, values, out, env }) => {
    expectArgs(positionals, [])
    const forwardTo = values['forward-to'] as string | undefined
    if (forwardTo !== undefined && !/^https?:\/\/\S+$/.test(forwardTo))
      throw new UsageError(`--forward-to must be an http(s) URL (got "${forwardTo}")`)
    const found = await client.webhook()
    // PUT /webhook sets URL and secret together: the tenant's own secret is sent again with the
    // receiver's URL, and a default (--webhook-url, --webhook-secret, the token) stays null on the
    // tenant, so that it goes on following the server's flags during and after.
    const ownSecret = isDefault(found.secret_source) ? null : found.secret
    const ownUrl = isDefault(found.url_source) ? null : found.url
    const receiver = await webhookReceiver(
      {
        token: client.token,
        // the receiver's close() asks for url null: nothing here, `finally` puts back what was
        setWebhook: (endpoint) =>
          endpoint.url === null
            ? Promise.resolve(found)
            : client.setWebhook({ url: endpoint.url, secret: ownSecret }),
      },
      {
        secret: found.secret,
        respond: async (delivery) => {
          const status = forwardTo ? await forward(delivery, forwardTo) : 200
          const failed = typeof status !== 'number' || status < 200 || status > 299
          if (!failed) out(deliveryLine(delivery, status, forwardTo))
          // the sandbox logs the attempt (and its retry) once it has this answer
          else
            void retryNote(client, delivery).then((note) =>
              out(deliveryLine(delivery, status, forwardTo) + note),
            )
          return typeof status === 'number' ? status : 502
        },
      },
    )
    const printUnverified = setInterval(() => {
      for (const delivery of receiver.deliveries.splice(0))
        if (!delivery.verified) out(deliveryLine(delivery, 401, undefined))
    }, 200)
    let stoppedBy: string | undefined
    try {
      out(
        `listening: the tenant's webhooks now go to ${receiver.url}` +
          (forwardTo ? `, forwarded to ${forwardTo}` : '') +
          `; signed with ${secretName(found)} ${maskToken(found.secret)}, as before. ` +
          'Ctrl-C stops (and puts the webhook URL back).',
      )
      stoppedBy = await untilStopped(env)
    } finally {
      clearInterval(printUnverified)
      await receiver.close()
      await client.setWebhook({ url: ownUrl, secret: ownSecret })
    }
    out(`listening: stopped${stoppedBy ? ` (${stoppedBy})` : ''}; ${urlBack(found)}`)
  },
)

const isDefault = (source: string | undefined) =>
  source === 'none' || source === 'flag' || source === 'token'

function secretName(endpoint: WebhookEndpoint): string {
  if (endpoint.secret_source === 'flag') return 'the --webhook-secret default'
  if (endpoint.secret_source === 'token') return 'the bearer token (the default secret)'
  return "the tenant's own secret"
}

function urlBack(endpoint: WebhookEndpoint): string {
  if (endpoint.url_source === 'none') return 'the webhook URL is unset again'
  const url = maskUrlPassword(endpoint.url ?? '')
  if (endpoint.url_source === 'flag')
    return `the webhook URL is the --webhook-url default again (${url})`
  return `the webhook URL is the tenant's own again (${url})`
}

/** Posts the delivery's exact bytes and headers to the handler; its status, or why it failed. */
async function forward(delivery: Delivery, url: string): Promise<number | string> {
  const headers = Object.fromEntries(
    Object.entries(delivery.headers).filter(
      ([name]) => name.startsWith('x-') || name === 'content-type',
    ),
  )
  const { statusCode, timedOut, code, error } = await postWebhook(url, headers, delivery.rawBody, {
    timeoutMs: FORWARD_TIMEOUT_MS,
    readBytes: 0,
  })
  if (timedOut) return 'TIMEOUT'
  return statusCode ?? code ?? error ?? 'no answer'
}

/** How long the handler may take to answer a forwarded delivery. */
const FORWARD_TIMEOUT_MS = 10_000

/** How long the sandbox waits, and for which attempt, after a failed one: from its webhook log. */
async function retryNote(client: SandboxClient, delivery: Delivery): Promise<string> {
  const id = delivery.headers[EVENT_ID_HEADER]
  const number = Number(delivery.headers[ATTEMPT_HEADER])
  const deadline = performance.now() + 5_000
  while (id && performance.now() < deadline) {
    const event = (await client.webhooks({ per_page: 100 }).catch(() => undefined))?.data.find(
      (e) => e.id === id,
    )
    const attempt = event?.attempts.find((a) => a.attempt === number)
    if (event && attempt) {
      if (event.status === 'failed') return `; no retry left: the sandbox marks the event failed`
      if (event.status !== 'pending' || event.next_attempt_at === null) return ''
      const delay = Date.parse(event.next_attempt_at) - Date.parse(attempt.at)
      // the event's round of attempts (a replay starts a new one) is where its delay falls
      const round = RETRY_DELAYS_MS.indexOf(delay as (typeof RETRY_DELAYS_MS)[number]) + 1
      const of = round ? ` of ${number + 1 + RETRY_DELAYS_MS.length - round}` : ''
      return (
        `; the sandbox retries in ${duration(delay)} of sandbox time, at ${event.next_attempt_at}` +
        ` (attempt ${number + 1}${of})`
      )
    }
    await new Promise((resolve) => setTimeout(resolve, 50))
  }
  return '; the sandbox retries it later (its webhook log says when)'
}

/** 10_000 → `10 s`, 300_000 → `5 min`, 7_200_000 → `2 h`. */
function duration(ms: number): string {
  if (ms % 3_600_000 === 0) return `${ms / 3_600_000} h`
  if (ms % 60_000 === 0) return `${ms / 60_000} min`
  return `${ms / 1000} s`
}

function deliveryLine(
  delivery: Delivery | UnverifiedDelivery,
  status: number | string,
  forwardTo?: string,
): string {
  const id = delivery.headers[EVENT_ID_HEADER] ?? '?'
  const attempt = delivery.headers[ATTEMPT_HEADER] ?? '?'
  const signature = delivery.verified ? 'signature ok' : 'BAD SIGNATURE'
  const answer = forwardTo ? `${forwardTo} ${answered(status)}` : answered(status)
  return `${delivery.event || '(not JSON)'} ${id} attempt ${attempt}: ${signature}, ${answer}`
}

/** What the handler did: `answered 500`, `refused the connection (ECONNREFUSED)`, … */
function answered(status: number | string): string {
  if (typeof status === 'number') return `answered ${status}`
  if (status === 'TIMEOUT') return `did not answer within ${FORWARD_TIMEOUT_MS / 1000} s`
  if (status === 'ECONNREFUSED') return 'refused the connection (ECONNREFUSED)'
  if (/^E[A-Z]+$/.test(status)) return `could not be reached (${status})`
  return `failed (${status})`
}
