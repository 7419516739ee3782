/**
 * The one table of CLI flags (PRODUCT §1): it drives parsing, `--help` and the table of docs/cli.md.
 * Each flag also reads `CARD_SANDBOX_<NAME>` from the environment; the command line wins.
 */
import { parseArgs } from 'node:util'
import { isInstant, parseDuration } from '../domain/clock.js'
import { corsOrigin } from '../http/middleware/cors.js'
import { hostName } from '../http/middleware/host-check.js'
import type { SandboxOptions } from '../wiring/deps.js'
import { helpRow, type HelpRow } from './help.js'
import { flagErrorMessage } from './suggest.js'

type Flag = {
  name: string
  value: string
  default?: string
  help: string
  /** Given more than once; its environment variable takes a comma-separated list. */
  repeatable?: boolean
}

export const FLAGS: readonly Flag[] = [
  { name: 'port', value: '<n>', default: '4010', help: 'port to listen on; 0 picks a free one' },
  {
    name: 'host',
    value: '<addr>',
    default: '127.0.0.1',
    help: 'address to bind; 0.0.0.0 exposes the sandbox to the network',
  },
  {
    name: 'allowed-host',
    value: '<name>',
    help: 'another Host name to answer to (e.g. a proxy or container name); repeatable',
    repeatable: true,
  },
  {
    name: 'public-url',
    value: '<url>',
    help: "the sandbox's address as links show it (wallet_url); default: the listener's",
  },
  {
    name: 'cors',
    value: '<origin,…|*>',
    help: 'let web pages on these origins (or any: *) call the sandbox from a browser',
  },
  {
    name: 'db',
    value: '<file|:memory:|postgres://…>',
    default: ':memory:',
    help: 'SQLite database; a file persists across restarts (WAL); a postgres:// URL: PostgreSQL',
  },
  {
    name: 'db-wait',
    value: '<duration>',
    default: '0',
    help: 'with a postgres:// --db: how long to wait at start while PostgreSQL refuses, does not resolve or is starting up (e.g. 60s)',
  },
  {
    name: 'seed',
    value: '<n>',
    help: 'seed for ids, names and card numbers: same seed + same requests = same bytes',
  },
  {
    name: 'tokens',
    value: '<t1,t2>',
    help: 'only these bearer tokens get in (default: any token, one tenant each)',
  },
  {
    name: 'speed',
    value: '<x>',
    default: '1',
    help: 'how fast real-mode sandbox clocks run against wall time',
  },
  {
    name: 'clock',
    value: '<real|manual>',
    default: 'real',
    help: 'mode of every new tenant clock; manual moves only when advanced',
  },
  {
    name: 'clock-start',
    value: '<ISO>',
    help: "where each new tenant's manual clock starts (default: now; 2026-01-01 with --seed)",
  },
  {
    name: 'quirks',
    value: '<on|off>',
    default: 'on',
    help: "answer like the real service's examples (on) or with clean schema shapes (off)",
  },
  {
    name: 'sdk-compat',
    value: '<on|off>',
    default: 'off',
    help: "add the keys the official SDKs read but the real service's examples lack (last4, cardUser…)",
  },
  {
    name: 'rate-limit',
    value: '<n|off>',
    default: 'off',
    help: 'answer 429 past n /v1 requests a minute per tenant (tenant clock); off: count only',
  },
  {
    name: 'log',
    value: '<pretty|json|silent>',
    default: 'pretty',
    help: 'one line per request on stdout (tenant, method, path, status, latency); json: JSON lines',
  },
  {
    name: 'journal',
    value: '<on|off>',
    default: 'on',
    help: 'keep each request and its answer for GET /__sandbox/requests and the dashboard',
  },
  {
    name: 'scenario',
    value: '<file>',
    help: 'a scenario file (YAML or JSON) in force for every tenant; repeatable; watched',
    repeatable: true,
  },
  {
    name: 'fixtures',
    value: '<name|file>',
    help: 'a data set (a name in fixtures/ or a JSON file) seeding every new or reset tenant',
  },
  {
    name: 'webhook-url',
    value: '<url>',
    help: "where every tenant's webhooks go, unless it sets its own (PUT /__sandbox/webhook)",
  },
  {
    name: 'webhook-secret',
    value: '<secret>',
    help: "what signs every tenant's webhooks (default: the tenant's bearer token)",
  },
  {
    name: 'webhook-extensions',
    value: '<on|off>',
    default: 'off',
    help: 'also send events the real service is not known to send (transaction, payment, disburse)',
  },
  {
    name: 'pid-file',
    value: '<file>',
    help: "write the process id here once listening (removed on exit); 'card-sandbox stop' reads it",
  },
  {
    name: 'exit-with-parent',
    value: '<on|off>',
    default: 'off',
    help: 'stop when the process that started it is gone, or when stdin (a pipe) closes',
  },
]

export const envName = (flag: string) => `CARD_SANDBOX_${flag.toUpperCase().replaceAll('-', '_')}`

export class FlagError extends Error {}

export type CliCommand =
  | { kind: 'help' }
  | { kind: 'version' }
  | { kind: 'run'; options: SandboxOptions; pidFile?: string; exitWithParent: boolean }

export function parseFlags(argv: string[], env: NodeJS.ProcessEnv = {}): CliCommand {
  let parsed
  try {
    parsed = parseArgs({
      args: argv,
      strict: true,
      allowPositionals: false,
      options: {
        ...Object.fromEntries(
          FLAGS.map((f) => [f.name, { type: 'string' as const, multiple: f.repeatable === true }]),
        ),
        help: { type: 'boolean', short: 'h' },
        version: { type: 'boolean', short: 'v' },
      },
    })
  } catch (error) {
    throw new FlagError(flagErrorMessage(error, [...FLAGS.map((f) => f.name), 'help', 'version']))
  }
  const values = parsed.values as Record<string, string | boolean | undefined>
  if (values.help) return { kind: 'help' }
  if (values.version) return { kind: 'version' }

  const raw = (name: string): string | undefined => {
    const flag = FLAGS.find((f) => f.name === name)
    return (values[name] as string | undefined) ?? env[envName(name)] ?? flag?.default
  }
  const list = (name: string): string[] | undefined =>
    (values[name] as string[] | undefined) ??
    env[envName(name)]
      ?.split(',')
      .map((item) => item.trim())
      .filter(Boolean)
  const options: SandboxOptions = {
    port: integer('port', raw('port'), 0, 65535),
    host: raw('host'),
    allowedHosts: list('allowed-host')?.map((name) => host('allowed-host', name)),
    publicUrl: url('public-url', raw('public-url')),
    cors: raw('cors')
      ?.split(',')
      .filter((origin) => origin.trim())
      .map((origin) => corsFlag(origin)),
    db: raw('db'),
    dbWaitMs: duration('db-wait', raw('db-wait')),
    seed: raw('seed') === undefined ? undefined : integer('seed', raw('seed'), 0, 2 ** 31 - 1),
    tokens: raw('tokens')
      ?.split(',')
      .map((t) => t.trim())
      .filter(Boolean),
    speed: positiveNumber('speed', raw('speed')),
    clock: oneOf('clock', raw('clock'), ['real', 'manual'] as const),
    clockStart: instant('clock-start', raw('clock-start')),
    quirks: oneOf('quirks', raw('quirks'), ['on', 'off'] as const) === 'on',
    sdkCompat: oneOf('sdk-compat', raw('sdk-compat'), ['on', 'off'] as const) === 'on',
    rateLimit:
      raw('rate-limit') === 'off' ? false : integer('rate-limit', raw('rate-limit'), 1, 1_000_000),
    log: oneOf('log', raw('log'), ['pretty', 'json', 'silent'] as const),
    journal: oneOf('journal', raw('journal'), ['on', 'off'] as const) === 'on',
    scenarios: list('scenario'),
    fixtures: raw('fixtures'),
    webhookUrl: url('webhook-url', raw('webhook-url')),
    webhookSecret: raw('webhook-secret'),
    webhookExtensions:
      oneOf('webhook-extensions', raw('webhook-extensions'), ['on', 'off'] as const) === 'on',
  }
  if (options.tokens?.length === 0) throw new FlagError('--tokens needs at least one token')
  return {
    kind: 'run',
    options,
    pidFile: raw('pid-file'),
    exitWithParent:
      oneOf('exit-with-parent', raw('exit-with-parent'), ['on', 'off'] as const) === 'on',
  }
}

function integer(name: string, value: string | undefined, min: number, max: number): number {
  const n = Number(value)
  if (!/^\d+$/.test(value ?? '') || n < min || n > max) {
    throw new FlagError(`--${name} must be a whole number from ${min} to ${max} (got "${value}")`)
  }
  return n
}

function duration(name: string, value: string | undefined): number {
  const ms = value === undefined ? null : parseDuration(value)
  if (ms === null)
    throw new FlagError(`--${name} must be a duration such as 60s, 2m or 500ms (got "${value}")`)
  return ms
}

function url(name: string, value: string | undefined): string | undefined {
  if (value === undefined) return undefined
  if (!/^https?:\/\/[^\s]+$/.test(value) || !URL.canParse(value)) {
    throw new FlagError(`--${name} must be an http(s) URL (got "${value}")`)
  }
  return value
}

function host(name: string, value: string): string {
  try {
    return hostName(value)
  } catch {
    throw new FlagError(
      `--${name} must be a host name or address, as a Host header names it (got "${value}")`,
    )
  }
}

function instant(name: string, value: string | undefined): string | undefined {
  if (value === undefined || isInstant(value)) return value
  throw new FlagError(
    `--${name} must be an ISO 8601 instant such as 2026-03-01T09:00:00Z (got "${value}")`,
  )
}

function corsFlag(value: string): string {
  try {
    return corsOrigin(value)
  } catch (error) {
    throw new FlagError(`--cors: ${(error as Error).message}`)
  }
}

function positiveNumber(name: string, value: string | undefined): number {
  const n = Number(value)
  if (!Number.isFinite(n) || n <= 0)
    throw new FlagError(`--${name} must be a number above 0 (got "${value}")`)
  return n
}

function oneOf<T extends string>(
  name: string,
  value: string | undefined,
  allowed: readonly T[],
): T {
  if (!allowed.includes(value as T)) {
    throw new FlagError(`--${name} must be one of ${allowed.join(', ')} (got "${value}")`)
  }
  return value as T
}

/** The flag rows of `--help`: what each does, then its environment variable. */
export function flagHelp(): HelpRow[] {
  return FLAGS.map((f) =>
    helpRow(
      `--${f.name} ${f.value}`,
      `${f.help}${f.default ? ` (default ${f.default})` : ''}`,
      `env ${envName(f.name)}`,
    ),
  )
}
