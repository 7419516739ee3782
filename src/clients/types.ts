/**
 * The types of the control-plane client (client.ts): its options, the error body, and what each
 * control-plane route answers (src/http/control). Types only: no code runs from this file.
 */

export type {
  CardUserIdentityBody,
  CreatedCardUser,
  FullDataCardUserBody,
  TypedV1,
  V1PageQuery,
  WidgetCardUserBody,
} from './v1.js'
export type { WebhookEventName, WebhookEvents, WebhookPayload } from '../domain/webhook-payloads.js'

export type SandboxClientOptions = {
  /** The sandbox's origin (`http://127.0.0.1:4010`) or its `/v1` base: both work. */
  baseUrl: string
  /** The bearer token: one token is one tenant. */
  token: string
  /** A fetch to use instead of the global one. */
  fetch?: typeof fetch
}

/**
 * What the sandbox answers for every error (PRODUCT §4): Laravel's shape, JSON always.
 * @example
 * { "message": "The amount field is required.", "statusCode": 422,
 *   "errors": { "amount": ["The amount field is required."] } }
 */
export type SandboxErrorBody = {
  message: string
  statusCode: number
  /**
   * Every bad field and its messages, dot-notation names (`customer.email`): on a 422, and on a
   * 404 for a reference sent in a body.
   */
  errors?: Record<string, string[]>
  /** An illegal state change (409): the state the resource is in. */
  from?: string
  /** An illegal state change (409): the state asked for. */
  to?: string
  /** An illegal state change (409): the states it may move to from `from`. */
  allowed?: string[]
}

/** The states of each resource the control plane can move (SPEC §3, PRODUCT §5). */
export type ResourceStates = {
  'card-users': 'pending' | 'passed' | 'failed'
  cards: 'issuing' | 'issued' | 'frozen' | 'failed'
  transactions: 'pending' | 'success' | 'failed'
  payments: 'pending' | 'success' | 'failed' | 'expired'
  disburses: 'processing' | 'success' | 'failed'
  disputes: 'open' | 'submitted' | 'won' | 'lost'
}
export type TransitionResource = keyof ResourceStates

export type Transition<R extends TransitionResource = TransitionResource> = {
  /** The resource's singular name: `card_user`, `card`, `transaction`… */
  resource: string
  reference: string
  from: ResourceStates[R]
  to: ResourceStates[R]
}

export type ClockMode = 'real' | 'manual'
export type Clock = { mode: ClockMode; now: string; now_ms: number; speed: number }
/** How far to move: `"500ms"`, `"30s"`, `"15m"`, `"2h"`, `"1d"`, `"1h30m"`, or milliseconds. */
export type Duration = string | number

export type DelayName =
  | 'card_user_verification'
  | 'card_issuing'
  | 'card_link_details'
  | 'transaction_settlement'
  | 'disburse_settlement'
  | 'payment_outcome'
/** Each delay in milliseconds. */
export type Delays = Record<DelayName, number>

export type Job = { resource: string; reference: string; action: string; due_at: string }

export type PageMeta = {
  current_page: number
  from: number | null
  last_page: number
  per_page: number
  to: number | null
  total: number
}
export type Page<T> = { data: T[]; meta: PageMeta }
export type PageQuery = { page?: number; per_page?: number }

/** A card transaction as the list shows it (SPEC §2.5). */
export type Transaction = {
  slug: string
  card_reference: string
  reference: string
  status: ResourceStates['transactions']
  kind: string
  merchant: string | false | null
  amount: number
  bank_name?: string
  bank_id?: string
  bank_account_name?: string
  phone?: string
  network?: string
  created_at: string
}
export type CardFunding = { transaction: Transaction; balance: number }
export type BusinessAccount = { business: string; float_balance: number }

export type DisputeReason =
  | 'duplicate'
  | 'not_received'
  | 'fraudulent'
  | 'product_not_as_described'
  | 'service_not_as_described'
  | 'canceled'
  | 'other'
export type Dispute = {
  reference: string
  transaction_slug: string
  reason: DisputeReason
  status: ResourceStates['disputes']
}

export type WalletCodeNetwork = 'orange-money-sn' | 'orange-money-ci'
export type WalletCode = {
  code: string
  phone: string
  network: WalletCodeNetwork
  expires_at: string
}

/**
 * Where the tenant's webhooks go and what signs them: `url: null` falls back to `--webhook-url`;
 * the secret defaults to `--webhook-secret`, else the bearer token. Each `_source` says whether
 * the value is the tenant's own (`tenant`, set with `setWebhook`) or a default.
 */
export type WebhookEndpoint = {
  url: string | null
  secret: string
  url_source: 'tenant' | 'flag' | 'none'
  secret_source: 'tenant' | 'flag' | 'token'
}
export type WebhookEventStatus = 'pending' | 'delivered' | 'failed' | 'skipped'
export type WebhookAttempt = {
  attempt: number
  at: string
  url: string
  /** The headers sent (`x-alal-signature` among them); null on attempts logged before 0.1.0. */
  request_headers: Record<string, string> | null
  status_code: number | null
  latency_ms: number
  response: string | null
  error: string | null
}
export type WebhookEvent = {
  id: string
  type: string
  extension: boolean
  status: WebhookEventStatus
  created_at: string
  next_attempt_at: string | null
  /** The exact body sent (and signed). */
  body: string
  attempts: WebhookAttempt[]
}

/** A snapshot as listed: its name, the tenant clock's instant it holds, how many rows. */
export type SnapshotInfo = { name: string; taken_at: string; rows: number }

/** A scheduled job that did something in a run until idle, at its instant of the tenant clock. */
export type FiredJob = {
  /** ISO time on the tenant's sandbox clock. */
  at: string
  /** `card_user`, `card`, `transaction`, `payment`, `disburse`, `wallet_code`. */
  resource: string
  reference: string
  /** For a move: its states, and a word for it where one says more (`verified`). */
  from?: string
  to?: string
  meaning?: string
  /** For what is not a move (a wallet code expired unused, a card's details filled). */
  what?: string
}

/**
 * One request of the tenant's journal (`GET /__sandbox/requests`), newest first: `/v1` and
 * control-plane calls alike, but not the journal's own reads nor a reset.
 */
export type JournalEntry = {
  id: string
  /** ISO time on the tenant's sandbox clock. */
  at: string
  /** ISO time on the machine's clock when the request arrived (apart on a manual clock). */
  wall_at: string
  method: string
  path: string
  query: string
  status: number
  latency_ms: number
  /** `body`: parsed JSON, the raw text, or null; card_number and cvv2 masked. */
  request: { headers: Record<string, string>; body: unknown }
  response: { body: unknown }
}
export type JournalFilter = PageQuery & {
  method?: string
  /** An exact path, or a pattern where `*` matches any characters: `/v1/cards/*`. */
  path?: string
  /** An exact status (`201`) or a class (`'4xx'`). */
  status?: number | `${1 | 2 | 3 | 4 | 5}xx`
}

/** A scenario (PRODUCT §9): the same fields as a scenario file, as JSON. */
export type Scenario = {
  name: string
  description?: string
  delays?: Partial<Record<DelayName, Duration>>
  rules?: ScenarioRule[]
}
type Scalar = string | number | boolean | null
export type FieldMatcher =
  | Scalar
  | {
      eq?: Scalar
      gt?: number
      gte?: number
      lt?: number
      lte?: number
      pattern?: string
      in?: Scalar[]
    }
export type ScenarioRule = {
  name?: string
  match?: {
    method?: 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE'
    path?: string
    body?: Record<string, FieldMatcher>
    tenant?: string
    nth?: number | number[]
    times?: number
    rate?: number
  }
  respond?: { status: number; headers?: Record<string, string>; body?: unknown }
  latency?: Duration
  drop?: boolean
  /**
   * Edits a 2xx JSON answer after the handler ran (the resource is still made), by JSON path
   * from the answer's top: `$.data.card.status`, `$.data[0].x`, `$.data[*].x`.
   */
  edit?: {
    /** Sets a key: a new one, or a new value for one that is there. */
    add?: Record<string, unknown>
    /** Sets a key (the target) to another key's value in the same answer: `{to: from}`. */
    copy?: Record<string, string>
    drop?: string[]
    /** The key's new name, in the same place. */
    rename?: Record<string, string>
    retype?: Record<string, 'string' | 'number' | 'boolean' | 'null' | 'array' | 'object'>
    /** The HTTP status, and the envelope's `statusCode`. */
    status?: number
    /** The envelope's `message`. */
    message?: string
  }
  outcome?: 'failed' | 'expired' | 'success'
  outcome_after?: Duration
  continue?: boolean
}
/** A scenario in force, as `GET /__sandbox/scenarios` lists it. */
export type ScenarioInForce = {
  name: string
  source: string
  description: string | null
  delays: Partial<Record<DelayName, number>>
  rules: number
}

export type Fixture = { name: string } | { fixture: Record<string, unknown> }
