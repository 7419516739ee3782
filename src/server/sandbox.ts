/**
 * createSandbox(options) builds one sandbox (database, randomness, tenants, app) without
 * binding a port; startSandbox(options) serves it over HTTP. Nothing starts on import.
 */
import { createAdaptorServer } from '@hono/node-server'
import type { AddressInfo } from 'node:net'
import { createApp, type SandboxApp } from './app.js'
import { listenForWrites } from '../store/announced.js'
import {
  claimStore,
  closeStore,
  joinStore,
  openStore,
  storeLocationIsShared,
} from '../store/open.js'
import { formatDuration } from '../lib/duration.js'
import type { ResolvedOptions, SandboxDeps, SandboxOptions } from '../wiring/deps.js'
import { isInstant, MANUAL_CLOCK_START_MS, wallClock } from '../domain/clock.js'
import { createIds } from '../domain/ids.js'
import { trimEventLogs } from '../domain/outbox.js'
import { createTenantDirectory } from '../domain/tenants.js'
import { applyFixture, loadFixture, type Call } from '../engine/fixtures.js'
import { createScenarioRegistry, type ScenarioRegistry } from '../engine/scenarios/registry.js'
import { corsOrigin } from '../http/middleware/cors.js'
import { allowedHostnames, isWildcard, listeningOrigin } from '../http/middleware/host-check.js'
import { createJournal } from '../journal/journal.js'
import { createLogger } from '../lib/logger.js'
import { createDeliverer } from '../webhooks/delivery.js'
import { runDueOnRealClocks } from '../engine/scheduler.js'
import { startTicker } from '../engine/ticker.js'
import { sweepAnnouncedRetirements } from '../store/retired-tenants.js'

export type { ResolvedOptions, SandboxDeps, SandboxOptions } from '../wiring/deps.js'

export function resolveOptions(options: SandboxOptions = {}): ResolvedOptions {
  return {
    port: options.port ?? 4010,
    host: options.host ?? '127.0.0.1',
    allowedHosts: options.allowedHosts ?? [],
    publicUrl: options.publicUrl?.replace(/\/+$/, ''),
    cors: (options.cors ?? []).map((origin) => {
      try {
        return corsOrigin(origin)
      } catch (error) {
        throw new Error(`cors: ${(error as Error).message}`)
      }
    }),
    db: options.db ?? ':memory:',
    dbWaitMs: options.dbWaitMs ?? 0,
    seed: options.seed,
    tokens: options.tokens,
    speed: options.speed ?? 1,
    clock: options.clock ?? 'real',
    clockStart: options.clockStart,
    quirks: options.quirks ?? true,
    sdkCompat: options.sdkCompat ?? false,
    rateLimit: options.rateLimit ?? false,
    log: options.log ?? 'silent',
    webhookUrl: options.webhookUrl,
    webhookSecret: options.webhookSecret,
    webhookTimeoutMs: options.webhookTimeoutMs ?? 5_000,
    webhookExtensions: options.webhookExtensions ?? false,
    scenarios: options.scenarios ?? [],
    fixtures: options.fixtures,
    journal: options.journal ?? true,
    stages: options.stages,
    ticking: options.ticking ?? true,
    slowPollMs: options.slowPollMs,
    logWrite: options.logWrite,
  }
}

export type Sandbox = {
  app: SandboxApp
  deps: SandboxDeps
  close(): void
}

/**
 * Builds a sandbox in memory, ready for `app.request()`.
 * @example
 * const { app } = createSandbox({ clock: 'manual', seed: 1 })
 * const res = await app.request('/v1/cards', { headers: { Authorization: 'Bearer test' } })
 */
export function createSandbox(options: SandboxOptions = {}): Sandbox {
  const resolved = resolveOptions(options)
  const publicUrl = resolved.publicUrl
  if (publicUrl !== undefined && (!/^https?:\/\/\S+$/.test(publicUrl) || !URL.canParse(publicUrl)))
    throw new Error(`publicUrl must be an http(s) URL (got "${resolved.publicUrl}")`)
  if (resolved.clockStart !== undefined && !isInstant(resolved.clockStart))
    throw new Error(
      `clockStart must be an ISO 8601 instant such as 2026-03-01T09:00:00Z (got "${resolved.clockStart}")`,
    )
  const allowedHosts = allowedHostnames(resolved)
  const fixture = resolved.fixtures ? loadFixture(resolved.fixtures) : undefined
  const logger = createLogger(resolved.log, resolved.logWrite)
  const db = openStore(resolved.db, {
    ms: resolved.dbWaitMs,
    log: ({ target, error, ms }) =>
      logger.log({
        event: 'waiting',
        level: 'warn',
        always: true,
        text: `waiting up to ${formatDuration(ms)} (--db-wait) for PostgreSQL at ${target}: ${error}`,
        fields: { database: target, error, wait_ms: ms },
      }),
  })
  const ids = createIds(resolved.seed)
  const tenants = createTenantDirectory(db, ids, {
    clockMode: resolved.clock,
    manualStart:
      resolved.clockStart !== undefined
        ? Date.parse(resolved.clockStart)
        : resolved.seed !== undefined
          ? MANUAL_CLOCK_START_MS
          : 'now',
    speed: resolved.speed,
    tokens: resolved.tokens ? new Set(resolved.tokens) : null,
    wallNow: wallClock,
  })
  let scenarios: ScenarioRegistry
  try {
    scenarios = createScenarioRegistry(db, {
      files: resolved.scenarios,
      random: () => ids.faker.number.float(),
      watch: true,
      log: (text, level) => logger.log({ event: 'scenario', level, text, always: true }),
    })
  } catch (error) {
    void closeStore(db)
    throw error
  }
  const deliverer = createDeliverer(db, tenants, {
    webhookUrl: resolved.webhookUrl,
    webhookSecret: resolved.webhookSecret,
    timeoutMs: resolved.webhookTimeoutMs,
    logger,
  })
  const deps: SandboxDeps = {
    db,
    ids,
    tenants,
    deliverer,
    scenarios,
    journal: createJournal(),
    logger,
    options: resolved,
    allowedHosts,
    publicUrl: resolved.publicUrl ?? IN_PROCESS_URL,
  }
  // everything periodic, in this order: due jobs (which may write events), the sweep, delivery,
  // the trim of the event logs written to
  const stopTicker = startTicker(
    resolved.ticking
      ? [
          { name: 'scheduler', run: () => runDueOnRealClocks(deps) },
          { name: 'reset sweep', run: () => sweepAnnouncedRetirements(db) },
          { name: 'webhook', run: () => deliverer.deliverDue() },
          { name: 'event log trim', run: () => trimEventLogs(db) },
        ]
      : [],
  )
  // with replicas, the tick hears of their writes rather than asking the tables at every turn
  const stopListening = resolved.ticking ? listenForWrites(db, resolved.slowPollMs) : undefined
  const app = createApp(deps)
  deps.callAs = (token) => callAs(app, token)
  if (fixture)
    deps.seedTenant = async (token) => void (await applyFixture(fixture, callAs(app, token)))
  return {
    app,
    deps,
    close() {
      void stopListening?.()
      stopTicker()
      scenarios.close()
      void deliverer.close()
      void closeStore(db)
    },
  }
}

/** The origin of `app.request('/path')`: what links point at when no port is bound. */
const IN_PROCESS_URL = 'http://localhost'

/** Calls the app in-process as a tenant: how fixtures run through the real API. */
export function callAs(app: SandboxApp, token: string): Call {
  return async (method, path, body) => {
    const res = await app.request(path, {
      method,
      headers: {
        Authorization: `Bearer ${token}`,
        ...(body !== undefined && { 'Content-Type': 'application/json' }),
      },
      body: body === undefined ? undefined : JSON.stringify(body),
    })
    return { status: res.status, body: await res.json().catch(() => null) }
  }
}

export type RunningSandbox = Omit<Sandbox, 'close'> & {
  /** `http://host:port` */
  url: string
  /** `http://host:port/v1`: what a client's base_url should be. */
  baseUrl: string
  port: number
  /** Stops accepting connections, lets in-flight requests finish, closes the database. */
  close(): Promise<void>
}

/** The longest a request may take, body and scenario latency included. */
const REQUEST_TIMEOUT_MS = 30_000

/** How long a shutdown waits for in-flight requests before cutting idle keep-alive sockets. */
const SHUTDOWN_GRACE_MS = 5_000

/**
 * Serves a sandbox over HTTP.
 * @example
 * const sandbox = await startSandbox({ port: 0 })
 * await fetch(`${sandbox.baseUrl}/cards`, { headers: { Authorization: 'Bearer t' } })
 * await sandbox.close()
 */
export async function startSandbox(options: SandboxOptions = {}): Promise<RunningSandbox> {
  // one served sandbox per database file: a second would run every job and webhook twice
  // (createSandbox takes no lock: a test may open two on one file, as two processes would)
  // on PostgreSQL, replicas share the database: they must agree on the clock (joinReplicas)
  if (storeLocationIsShared(options.db) && options.seed !== undefined)
    throw new Error(
      '--seed cannot be used with a PostgreSQL store: replicas drawing from one seed would ' +
        'make the same ids (a seeded run is for one process on SQLite)',
    )
  let unlock = claimStore(options.db)
  let sandbox: Sandbox
  try {
    sandbox = createSandbox(options)
  } catch (error) {
    unlock()
    throw error
  }
  try {
    const { db } = sandbox.deps
    const leave = await joinStore(db, {
      '--clock': options.clock ?? 'real',
      '--speed': String(options.speed ?? 1),
      '--clock-start': options.clockStart ?? '',
    })
    const release = unlock
    unlock = () => {
      release()
      void leave()
    }
  } catch (error) {
    sandbox.close()
    unlock()
    throw error
  }
  const { host, port, publicUrl } = sandbox.deps.options
  // an HTTP/1.0 request without a Host header is taken as addressed to the bound address
  const ownName = isWildcard(host) ? '127.0.0.1' : host.includes(':') ? `[${host}]` : host
  const server = createAdaptorServer({ fetch: sandbox.app.fetch, hostname: ownName })
  await new Promise<void>((resolve, reject) => {
    server.once('error', (error) => {
      // a port in use: the database (and its lock) is let go, for a retry on another port
      sandbox.close()
      unlock()
      reject(error)
    })
    server.listen(port, host, () => resolve())
  })
  // a request may take at most this long, body included (a latency scenario counts)
  ;(server as import('node:http').Server).requestTimeout = REQUEST_TIMEOUT_MS
  const address = server.address() as AddressInfo
  const url = listeningOrigin(address)
  sandbox.deps.publicUrl = publicUrl ?? url
  let closing: Promise<void> | undefined
  return {
    ...sandbox,
    url,
    baseUrl: `${url}/v1`,
    port: address.port,
    close() {
      closing ??= new Promise<void>((resolve) => {
        const http = server as import('node:http').Server
        const force = setTimeout(() => http.closeAllConnections?.(), SHUTDOWN_GRACE_MS)
        force.unref()
        http.close(() => {
          clearTimeout(force)
          // attempts in flight finish (each bounded by its timeout) before the database closes
          void sandbox.deps.deliverer.close().then(() => {
            sandbox.close()
            unlock()
            resolve()
          })
        })
        http.closeIdleConnections?.()
      })
      return closing
    },
  }
}
