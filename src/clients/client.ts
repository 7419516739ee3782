/**
 * A typed client for the sandbox's control plane (PRODUCT §8), for client teams' test suites:
 * `import { createSandboxClient } from 'card-sandbox/client'`. It needs only the global
 * `fetch` (no dependency on the sandbox itself, so it works against a sandbox in another
 * process or container). Each method returns the `data` of the success envelope (lists:
 * `{data, meta}`); any other answer throws a `SandboxClientError` with the status and body.
 * @example
 * const sandbox = createSandboxClient({ baseUrl: 'http://127.0.0.1:4010', token: 'my-suite' })
 * await sandbox.reset()
 * await sandbox.advanceClock('5s')
 */
import type {
  BusinessAccount,
  CardFunding,
  Clock,
  ClockMode,
  DelayName,
  Delays,
  Dispute,
  DisputeReason,
  Duration,
  FiredJob,
  Fixture,
  Job,
  JournalEntry,
  JournalFilter,
  Page,
  PageMeta,
  PageQuery,
  ResourceStates,
  SandboxClientOptions,
  SandboxErrorBody,
  Scenario,
  ScenarioInForce,
  SnapshotInfo,
  Transition,
  TransitionResource,
  WalletCode,
  WalletCodeNetwork,
  WebhookEndpoint,
  WebhookEvent,
  WebhookEventStatus,
} from './types.js'
import { typedV1 } from './v1.js'

export * from './types.js'

/** Thrown for every answer that is not a 2xx: the status and the parsed JSON body. */
export class SandboxClientError extends Error {
  override name = 'SandboxClientError'
  readonly status: number
  /**
   * The parsed JSON body: the sandbox's error shape. Two answers are not the sandbox's own and
   * hold what they hold: a scenario's `respond.body` (as the scenario wrote it) and an answer
   * that is not JSON (its text; an empty one is null), e.g. from a proxy in front of it.
   */
  readonly body: SandboxErrorBody
  readonly method: string
  readonly path: string

  constructor(method: string, path: string, status: number, body: unknown) {
    super(`${method} ${path} answered ${status}: ${messageOf(body)}`)
    this.status = status
    this.body = body as SandboxErrorBody
    this.method = method
    this.path = path
  }
}

function messageOf(body: unknown): string {
  if (body && typeof body === 'object' && 'message' in body) return String(body.message)
  return typeof body === 'string' ? body.slice(0, 200) : JSON.stringify(body)
}

type Method = 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE'
type Envelope = { message: string; statusCode: number; data?: unknown; meta?: unknown }

/** Removes a trailing slash and a trailing `/v1`: the origin the control plane lives under. */
export function sandboxOrigin(baseUrl: string): string {
  return baseUrl.replace(/\/+$/, '').replace(/\/v1$/, '')
}

function queryString(query: Record<string, string | number | undefined> = {}): string {
  const params = new URLSearchParams()
  for (const [key, value] of Object.entries(query)) {
    if (value !== undefined) params.set(key, String(value))
  }
  const text = params.toString()
  return text ? `?${text}` : ''
}

async function readBody(res: Response): Promise<unknown> {
  const text = await res.text()
  if (!text) return null
  try {
    return JSON.parse(text)
  } catch {
    return text
  }
}

/**
 * A client for one tenant (one token) of one sandbox.
 * @example
 * const sandbox = createSandboxClient({ baseUrl: inject('cardSandboxUrl'), token: 'suite-a' })
 * const { to } = await sandbox.transition('card-users', reference, 'passed')
 */
export function createSandboxClient(options: SandboxClientOptions) {
  const origin = sandboxOrigin(options.baseUrl)
  const fetchImpl = options.fetch ?? globalThis.fetch

  /** One call; the parsed body of a 2xx, else a SandboxClientError. */
  async function call(method: Method, path: string, body?: unknown): Promise<unknown> {
    const res = await fetchImpl(origin + path, {
      method,
      headers: {
        Authorization: `Bearer ${options.token}`,
        Accept: 'application/json',
        ...(body !== undefined && { 'Content-Type': 'application/json' }),
      },
      body: body === undefined ? undefined : JSON.stringify(body),
    })
    const parsed = await readBody(res)
    if (!res.ok) throw new SandboxClientError(method, path, res.status, parsed)
    return parsed
  }

  /** A control-plane call answering the envelope: its `data`. */
  async function data<T>(method: Method, path: string, body?: unknown): Promise<T> {
    return ((await call(method, `/__sandbox${path}`, body)) as Envelope).data as T
  }

  /** A paginated control-plane list: `{data, meta}`. */
  async function page<T>(path: string): Promise<Page<T>> {
    const { data, meta } = (await call('GET', `/__sandbox${path}`)) as Envelope
    return { data: data as T[], meta: meta as PageMeta }
  }

  const ref = encodeURIComponent

  return {
    /** The sandbox's origin, without `/v1`. */
    url: origin,
    /** The `/v1` base a client's `base_url` should be. */
    baseUrl: `${origin}/v1`,
    token: options.token,

    /** `GET /__sandbox/health` (no token needed). */
    health: async () => (await call('GET', '/__sandbox/health')) as { status: 'ok' },
    /**
     * Deletes everything of the tenant; clock, delays, float and scenarios start over. `clock`
     * then puts its clock in that mode: a reset clock takes the sandbox's default mode, and a
     * sandbox someone else started (a kit attached through CARD_SANDBOX_URL) may default to real.
     */
    reset: async (options: { clock?: ClockMode } = {}) => {
      const reset = await data<{ tenant: string }>('POST', '/reset')
      if (options.clock !== undefined) await data<Clock>('PUT', '/clock', { mode: options.clock })
      return reset
    },

    clock: () => data<Clock>('GET', '/clock'),
    /** Moves the clock and runs what fell due, in order, before it returns. */
    advanceClock: (by: Duration) =>
      data<Clock & { transitions_run: number }>('POST', '/clock/advance', { by }),
    setClockMode: (mode: ClockMode) => data<Clock>('PUT', '/clock', { mode }),
    /**
     * Sets the clock to an instant (ISO, or a Date), in manual mode, and runs what fell due on
     * the way; an instant before the clock's time is refused (422).
     */
    setClock: (now: string | Date) =>
      data<Clock & { transitions_run: number }>('PUT', '/clock', {
        mode: 'manual',
        now: typeof now === 'string' ? now : now.toISOString(),
      }),
    /**
     * Runs until idle: moves the clock to each next due job and runs it, until none is left (or
     * the next is after `until`, where the clock then stands). Answers what fired, in order.
     */
    runUntilIdle: (options: { until?: string | Date } = {}) =>
      data<Clock & { transitions_run: number; fired: FiredJob[] }>(
        'POST',
        '/clock/run-due',
        options.until === undefined
          ? {}
          : {
              until:
                typeof options.until === 'string' ? options.until : options.until.toISOString(),
            },
      ),
    delays: () => data<Delays>('GET', '/delays'),
    /** Overrides some delays; `{}` restores the defaults. */
    setDelays: (delays: Partial<Record<DelayName, Duration>>) =>
      data<Delays>('PUT', '/delays', delays),
    /** What is scheduled, in due order. */
    jobs: () => data<Job[]>('GET', '/jobs'),

    /** Moves a resource along its state machine; an illegal move throws with status 409. */
    transition: <R extends TransitionResource>(
      resource: R,
      reference: string,
      to: ResourceStates[R],
    ) => data<Transition<R>>('POST', `/${resource}/${ref(reference)}/transition`, { to }),

    /** A `recharge` into the card (already `success`). */
    fundCard: (reference: string, amount: number) =>
      data<CardFunding>('POST', `/cards/${ref(reference)}/fund`, { amount }),
    /** A `withdraw` out of the card (422 when short). */
    withdrawCard: (reference: string, amount: number) =>
      data<CardFunding>('POST', `/cards/${ref(reference)}/withdraw`, { amount }),
    business: () => data<BusinessAccount>('GET', '/business'),
    fundBusiness: (amount: number) => data<BusinessAccount>('POST', '/business/fund', { amount }),

    /** Opens a dispute on one of the tenant's transactions. */
    createDispute: (dispute: { transaction_slug: string; reason: DisputeReason }) =>
      data<Dispute>('POST', '/disputes', dispute),
    /** The payer's one-time orange-money code, for a wallet-to-card pull. */
    walletCode: (phone: string, network: WalletCodeNetwork) =>
      data<WalletCode>('POST', '/wallet-codes', { phone, network }),

    webhook: () => data<WebhookEndpoint>('GET', '/webhook'),
    /** Where the tenant's webhooks go and what signs them (`secret` omitted or null: the default). */
    setWebhook: (endpoint: { url: string | null; secret?: string | null }) =>
      data<WebhookEndpoint>('PUT', '/webhook', endpoint),
    /** Webhook events, newest first, each with its delivery attempts. */
    webhooks: (query: PageQuery & { status?: WebhookEventStatus } = {}) =>
      page<WebhookEvent>(`/webhooks${queryString(query)}`),
    replayWebhook: (id: string) =>
      data<{ id: string; status: WebhookEventStatus }>('POST', `/webhooks/${ref(id)}/replay`),

    /** The request journal: what the tenant sent and got, newest first. */
    requests: (filter: JournalFilter = {}) => page<JournalEntry>(`/requests${queryString(filter)}`),
    /** Empties the tenant's request journal. */
    clearRequests: async () => void (await call('DELETE', '/__sandbox/requests')),

    scenarios: () => data<ScenarioInForce[]>('GET', '/scenarios'),
    /** Adds a scenario for this tenant (replacing one of the same name) until its reset. */
    addScenario: (scenario: Scenario) => data<ScenarioInForce[]>('POST', '/scenarios', scenario),
    /**
     * Saves the tenant's whole state under `name` (rows, clock, pending jobs, scenarios, webhook
     * endpoint), replacing a snapshot of that name; it outlives the tenant's resets.
     */
    snapshot: (name: string) => data<SnapshotInfo>('POST', '/snapshots', { name }),
    /** Puts the tenant back as the snapshot holds it, its clock at the snapshot's instant. */
    restore: (name: string) =>
      data<{ name: string; clock: { mode: ClockMode; now: string } }>(
        'POST',
        `/snapshots/${encodeURIComponent(name)}/restore`,
      ),
    snapshots: () => data<SnapshotInfo[]>('GET', '/snapshots'),
    deleteSnapshot: (name: string) =>
      data<SnapshotInfo[]>('DELETE', `/snapshots/${encodeURIComponent(name)}`),
    /**
     * Takes one of the tenant's scenarios out of force; answers those left. A file's scenario
     * is a 409 (edit the file), an unknown name a 404 listing those in force.
     */
    removeScenario: (name: string) =>
      data<ScenarioInForce[]>('DELETE', `/scenarios/${encodeURIComponent(name)}`),
    /** The fixtures of `fixtures/`: name and the first sentence of its description. */
    fixtures: () => data<{ name: string; description: string | null }[]>('GET', '/fixtures'),
    /**
     * Seeds the tenant with a named data set of `fixtures/` (or an inline one), all or nothing:
     * a step that fails leaves the tenant as it was (a 422 naming the step and the field).
     */
    applyFixture: (fixture: Fixture) =>
      data<{ name: string; steps: number }>('POST', '/fixtures', fixture),

    /**
     * Calls the `/v1` API as this tenant; the whole parsed body (its shape follows the quirks
     * setting, so it is yours to type). `path` is under `/v1`: `'/cards'`. Its properties are
     * the typed methods, one per route, in the default shapes: `v1.cards.create(body)`.
     */
    v1: Object.assign(v1Call, typedV1(v1Call)),
  }

  // eslint-disable-next-line @typescript-eslint/no-explicit-any -- public API: untyped, an answer reads as loosely as JSON.parse's
  async function v1Call<T = any>(method: Method, path: string, body?: unknown): Promise<T> {
    return (await call(method, `/v1${path.startsWith('/') ? path : `/${path}`}`, body)) as T
  }
}

/** The client `createSandboxClient` returns. */
export type SandboxClient = ReturnType<typeof createSandboxClient>
