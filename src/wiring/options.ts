/**
 * The options of a sandbox (createSandbox, startSandbox, the CLI's flags, the test kits): a
 * leaf of types that imports nothing, so that the package's public declarations hold no type of
 * its dependencies (hono, better-sqlite3, drizzle).
 */
export type SandboxOptions = {
  /** Port to listen on; 0 picks a free one. Default 4010. */
  port?: number
  /** Address to bind. Default 127.0.0.1. */
  host?: string
  /**
   * Other names the sandbox answers to (a Host header naming anything else gets 403): besides
   * localhost, 127.0.0.1, [::1], the bound host (bound to a wildcard: every interface address
   * and the machine's name) and the host of `publicUrl`.
   */
  allowedHosts?: string[]
  /**
   * Where links to the sandbox point (`wallet_url`), e.g. behind a proxy or a tunnel. Default:
   * the listener's address (a wildcard shown as 127.0.0.1); in-process, `http://localhost`.
   */
  publicUrl?: string
  /**
   * Origins whose pages may call the sandbox from a browser (CORS on /v1 and /__sandbox):
   * `['http://localhost:5173']`, or `['*']` for any. Default none: no CORS headers at all.
   */
  cors?: string[]
  /** SQLite file, or ':memory:' (default), or a `postgres://` URL. */
  db?: string
  /**
   * With a `postgres://` db: how long (ms) the start waits while PostgreSQL refuses connections,
   * does not resolve yet or is starting up, before it fails. Default 0: it fails at once.
   */
  dbWaitMs?: number
  /** Seed for every id, name and card number. */
  seed?: number
  /** Only these bearer tokens get in. */
  tokens?: string[]
  /** Time factor of real-mode clocks. Default 1. */
  speed?: number
  /** Mode of each new tenant's clock. Default 'real'. */
  clock?: 'real' | 'manual'
  /**
   * Where each new (or reset) tenant's manual clock starts, as an ISO instant
   * (`2026-03-01T09:00:00Z`). Default: the real time when the tenant is made; with `seed`,
   * 2026-01-01T00:00:00.000Z, so that a seeded run repeats byte for byte.
   */
  clockStart?: string
  /** Answer like the real service's examples. Default true. */
  quirks?: boolean
  /**
   * Add the keys the official SDKs read but the real service's examples do not show (a card's
   * `last_four`, `last4`, `card_user_reference` and `created_at`, a created card user's
   * `cardUser`, a dispute's `reference` and `transaction_reference`; …). Default false: a
   * client that passes only thanks to them would break against the real service.
   */
  sdkCompat?: boolean
  /**
   * Enforce a limit of /v1 requests per minute of each tenant's clock: past it, 429 with
   * `Retry-After`. Default false: requests are counted against the real service's 60 and the
   * count shown in `X-RateLimit-*` headers, never refused.
   */
  rateLimit?: number | false
  /** Request log on stdout. Default 'silent' here, 'pretty' from the CLI. */
  log?: 'pretty' | 'json' | 'silent'
  /** Where every tenant's webhooks go, unless it set its own (`PUT /__sandbox/webhook`). */
  webhookUrl?: string
  /** What signs every tenant's webhooks, unless it set its own; default: the tenant's token. */
  webhookSecret?: string
  /** How long one webhook attempt may take. Default 5000 ms. */
  webhookTimeoutMs?: number
  /** Also send the events the real service is not known to send (sandbox extension). */
  webhookExtensions?: boolean
  /** Scenario files (YAML or JSON) in force for every tenant; watched and reloaded. */
  scenarios?: string[]
  /** A fixture (a name in fixtures/, or a JSON file) that seeds every new or reset tenant. */
  fixtures?: string
  /**
   * Keep the request journal (`GET /__sandbox/requests`, the dashboard's requests). Default
   * true; off, nothing is recorded and both say the journal is off.
   */
  journal?: boolean
  /** @internal Where log lines go (tests); default stdout. */
  logWrite?: (text: string) => unknown
  /**
   * @internal Bench only (`npm run bench -- --profile`): request stages switched off, to measure
   * what each one costs. A sandbox without them is not a correct sandbox; not a flag.
   */
  stages?: StageSwitches
  /**
   * @internal Tests only: no periodic work (due jobs on real clocks, the reset sweep, webhook
   * retries), for a test that runs each by hand and must not race the tick. Not a flag.
   */
  ticking?: boolean
  /**
   * @internal Tests only: with replicas (PostgreSQL), how often everything is read again whatever
   * was announced (store/postgres/listener.ts SLOW_POLL_MS); longer, for a test that must see an
   * announcement at work rather than the poll. Not a flag.
   */
  slowPollMs?: number
}

/**
 * The stages of the request path (app.ts) that the bench's profile switches off, one at a time;
 * `readCache`: a replica's reads kept under the tenant's snapshot (the bench's team part, for
 * what a read costs when something commits between any two requests).
 */
export type StageSwitches = Partial<
  Record<'hostCheck' | 'webhookKick' | 'dueWork' | 'scenarios' | 'readCache', false>
>
