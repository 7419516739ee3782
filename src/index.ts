/**
 * card-sandbox's programmatic API. Its declarations name no type of the sandbox's dependencies
 * (hono, better-sqlite3, drizzle): a project type-checks against them with `skipLibCheck` off
 * and none of those installed as types.
 * @example
 * import { startSandbox } from 'card-sandbox'
 * const sandbox = await startSandbox({ port: 0, clock: 'manual' })
 * // point the client's base_url at sandbox.baseUrl
 * await sandbox.close()
 */
import type { SandboxOptions } from './wiring/options.js'
import * as sandbox from './server/sandbox.js'
import * as drift from './drift/report.js'
import type { RecordLine, Report } from './drift/report.js'
import * as proxy from './drift/proxy.js'

export type { SandboxOptions, StageSwitches } from './wiring/options.js'

/** The sandbox's HTTP app, as the Fetch API sees it. */
export type SandboxApp = {
  /** Answers a request, as a server would (no port needed). */
  fetch(request: Request): Response | Promise<Response>
  /** Answers `path` (`/v1/cards`) or a full URL in-process, e.g. in a unit test. */
  request(input: string | URL | Request, init?: RequestInit): Response | Promise<Response>
}

/** A sandbox built in memory (createSandbox): call it through `app`, then `close()` it. */
export type Sandbox = {
  app: SandboxApp
  /** Stops its timers and closes its database. */
  close(): void
}

/** A sandbox served over HTTP (startSandbox). */
export type RunningSandbox = {
  app: SandboxApp
  /** `http://host:port` */
  url: string
  /** `http://host:port/v1`: what a client's base_url should be. */
  baseUrl: string
  port: number
  /** Stops accepting connections, lets in-flight requests finish, closes the database. */
  close(): Promise<void>
}

/**
 * Builds a sandbox in memory, ready for `app.request()`; nothing is bound.
 * @example
 * const { app, close } = createSandbox({ clock: 'manual', seed: 1 })
 * const res = await app.request('/v1/cards', { headers: { Authorization: 'Bearer test' } })
 */
export const createSandbox: (options?: SandboxOptions) => Sandbox = sandbox.createSandbox

/**
 * Serves a sandbox over HTTP (port 0 picks a free one).
 * @example
 * const running = await startSandbox({ port: 0 })
 * await fetch(`${running.baseUrl}/cards`, { headers: { Authorization: 'Bearer t' } })
 * await running.close()
 */
export const startSandbox: (options?: SandboxOptions) => Promise<RunningSandbox> =
  sandbox.startSandbox

export type { Exchange, Finding, FindingKind } from './drift/compare.js'
export type {
  RecordLine,
  Report,
  ReportCount,
  ReportDelay,
  ReportExample,
  ReportRoute,
} from './drift/report.js'

/**
 * The report of a record file's lines (`card-sandbox proxy --record <file>`, one JSON object a
 * line): where the real service's answers differed from the sandbox's, grouped by route, and the
 * delays the recording shows beside the sandbox's defaults.
 * @example
 * const lines = readFileSync('drift.jsonl', 'utf8').split('\n').filter(Boolean).map((l) => JSON.parse(l))
 * const report = compareRecording(lines)
 * if (report.findings > 0) console.log(report.routes)
 */
export const compareRecording: (lines: RecordLine[]) => Report = drift.compareRecording

export type { ProxyOptions, RunningProxy } from './drift/proxy.js'

/**
 * Starts a recording proxy in front of the real service (or any upstream whose base URL ends
 * in `/v1`): `/v1/*` is relayed as is, each exchange appended to `record` with secrets masked,
 * so that a suite run through it shows where the upstream and the sandbox differ.
 * @example
 * const proxy = await startProxy({ upstream: 'https://api.example.com/v1', port: 0, record: 'run.jsonl' })
 * // run the suite against proxy.baseUrl, then: npx card-sandbox drift run.jsonl
 * await proxy.close()
 */
export const startProxy: (options: proxy.ProxyOptions) => Promise<proxy.RunningProxy> =
  proxy.startProxy
