/**
 * A client team's backend, as small as it gets: it registers card users and issues their
 * cards through the card-issuing API (`fetch` against its `/v1` base URL: the real service in
 * production, card-sandbox in tests), and receives its webhooks on `POST /webhooks/alal`,
 * checking `x-alal-signature` (hex HMAC-SHA512 of the raw body, keyed with the API key) before
 * it records what happened to each card user and card. Nothing here knows about the sandbox.
 */
import { createHmac, timingSafeEqual } from 'node:crypto'
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http'
import type { AddressInfo } from 'node:net'

export type BackendConfig = {
  /** The API's base URL, `/v1` included: `http://127.0.0.1:4010/v1` against the sandbox. */
  apiUrl: string
  /** The business's API key: the bearer token, and what signs the webhooks. */
  apiKey: string
  /** What signs the webhooks when it is not the API key. */
  webhookSecret?: string
}

/** What the backend knows about a card user: filled in by the verification webhook. */
export type CardUserRecord = { reference: string; status: 'pending' | 'passed' | 'failed' }
export type CardRecord = { reference: string; status: string; cardNumber?: string }

/** The backend's configuration from the environment: `CARD_SANDBOX_URL`, `ALAL_API_KEY`. */
export function configFromEnv(env: NodeJS.ProcessEnv = process.env): BackendConfig {
  const apiUrl = env.CARD_SANDBOX_URL
  const apiKey = env.ALAL_API_KEY
  if (!apiUrl || !apiKey) throw new Error('set CARD_SANDBOX_URL (the /v1 base) and ALAL_API_KEY')
  return { apiUrl, apiKey }
}

/** An error answer of the API. */
export class ApiError extends Error {
  constructor(
    readonly status: number,
    readonly body: unknown,
  ) {
    super(`the card API answered ${status}`)
  }
}

export function createWalletBackend(config: BackendConfig) {
  const users = new Map<string, CardUserRecord>()
  const cards = new Map<string, CardRecord>()
  const secret = config.webhookSecret ?? config.apiKey

  /** POSTs JSON to the API; the parsed answer, or an ApiError. */
  async function post(path: string, body: unknown): Promise<any> {
    const res = await fetch(`${config.apiUrl}${path}`, {
      method: 'POST',
      headers: {
        Authorization: `Bearer ${config.apiKey}`,
        'Content-Type': 'application/json',
        Accept: 'application/json',
      },
      body: JSON.stringify(body),
    })
    const answer = await res.json().catch(() => null)
    if (!res.ok) throw new ApiError(res.status, answer)
    return answer
  }

  /**
   * Registers a card user for the hosted verification widget (phone, maybe email): pending
   * until the verification webhook says otherwise. The widget flow answers `userCard` at the
   * top level; the full-data flow under `data`.
   */
  async function registerCardUser(input: { phone: string; email?: string }): Promise<string> {
    const answer = await post('/card-users/create', input)
    const reference: string = (answer.userCard ?? answer.data.userCard).reference
    users.set(reference, { reference, status: 'pending' })
    return reference
  }

  /** Orders a virtual visa card for a verified user; it is `issuing` until the API issues it. */
  async function issueCard(cardUserReference: string): Promise<CardRecord> {
    const answer = await post('/cards/create', {
      card_user_reference: cardUserReference,
      card_brand: 'visa',
      card_type: 'virtual',
    })
    // the API's examples put `card` under `data`; its schema beside `message`
    const card = answer.data?.card ?? answer.card
    const record = { reference: card.reference, status: card.status }
    cards.set(record.reference, record)
    return record
  }

  /** Whether `signature` is the hex HMAC-SHA512 of the raw body, compared in constant time. */
  function signedBy(rawBody: string, signature: string): boolean {
    const expected = createHmac('sha512', secret).update(rawBody).digest('hex')
    return (
      signature.length === expected.length &&
      timingSafeEqual(Buffer.from(signature), Buffer.from(expected))
    )
  }

  /** Records what an event says about a card user or a card. */
  function record(event: string, data: Record<string, string>): void {
    if (event.startsWith('card_user_verification.')) {
      users.set(data.reference, {
        reference: data.reference,
        status: data.status as CardUserRecord['status'],
      })
    } else if (event.startsWith('card_creation.')) {
      cards.set(data.reference, {
        reference: data.reference,
        status: data.status ?? (event.endsWith('.failed') ? 'failed' : 'issued'),
        cardNumber: data.card_number,
      })
    }
  }

  /** `POST /webhooks/alal`: 401 unless signed, then recorded and answered 200. */
  async function handleWebhook(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const chunks: Buffer[] = []
    for await (const chunk of req) chunks.push(chunk as Buffer)
    const rawBody = Buffer.concat(chunks).toString('utf8')
    if (!signedBy(rawBody, String(req.headers['x-alal-signature'] ?? ''))) {
      res.writeHead(401).end()
      return
    }
    const { event, data } = JSON.parse(rawBody) as { event: string; data: Record<string, string> }
    record(event, data)
    res.writeHead(200, { 'Content-Type': 'text/plain' }).end('ok')
  }

  /** Serves the webhook endpoint; `port` 0 picks a free one. */
  async function listen(port = 0, host = '127.0.0.1') {
    const server = createServer((req, res) => {
      if (req.method === 'POST' && req.url === '/webhooks/alal') {
        handleWebhook(req, res).catch(() => res.writeHead(400).end())
      } else {
        res.writeHead(404).end()
      }
    })
    await new Promise<void>((resolve) => server.listen(port, host, resolve))
    const { port: bound } = server.address() as AddressInfo
    return {
      /** Where the API should send webhooks. */
      webhookUrl: `http://${host}:${bound}/webhooks/alal`,
      close: () =>
        new Promise<void>((resolve) => {
          server.close(() => resolve())
          server.closeAllConnections()
        }),
    }
  }

  return {
    registerCardUser,
    issueCard,
    listen,
    /** What the backend knows about a card user, from the API and its webhooks. */
    cardUser: (reference: string) => users.get(reference),
    card: (reference: string) => cards.get(reference),
  }
}

export type WalletBackend = ReturnType<typeof createWalletBackend>
