/**
 * The console log (`--log pretty|json|silent`): every line the sandbox prints while it serves
 * goes through one Logger — the banner, a warning, each request, each background event (a job
 * fired on a tenant clock) and each webhook attempt — so that `--log json` is JSON from the
 * first line to the last and the masking rule (masking.ts, PRODUCT §11) is applied in one place:
 * a line names its tenant by token, and the logger prints the token masked. The domain, the
 * scheduler and the deliverer are handed a Logger; none of them writes to stdout itself.
 *
 * Pretty: `HH:MM:SS.mmm tenant text`, coloured on a terminal. JSON: one object per line with
 * `time` (wall clock, ISO), `level`, `event`, `tenant` (masked) when there is one, the line's
 * fields, and `sandbox_time` (ISO) for what happened on a tenant clock.
 */
import { maskToken } from './masking.js'

export type LogFormat = 'pretty' | 'json' | 'silent'
export type LogLevel = 'info' | 'warn' | 'error'

export type LogLine = {
  /** What happened: `request`, `event`, `webhook`, `listening`, `warning`, `stopping`… */
  event: string
  /** Default `info`. */
  level?: LogLevel
  /** The tenant's bearer token (printed masked); null for a request without one. */
  tenant?: string | null
  /** The pretty line, after the time and the tenant. */
  text: string
  /** The JSON line's own fields (snake_case, no secret in them). */
  fields?: Record<string, unknown>
  /** The tenant clock's instant (epoch ms) of what happened. */
  sandboxTime?: number
  /** Printed with `--log silent` too (the banner, warnings, the stop). */
  always?: boolean
  /** Pretty: printed as it is, without time or tenant (the banner's block). */
  block?: boolean
}

export type Logger = {
  log(line: LogLine): void
}

const TTY = process.stdout.isTTY === true
const PAINT = TTY
  ? { green: '\x1b[32m', yellow: '\x1b[33m', red: '\x1b[31m', dim: '\x1b[2m', reset: '\x1b[0m' }
  : { green: '', yellow: '', red: '', dim: '', reset: '' }

/** The colour of a status code or a level, for pretty lines on a terminal. */
export function paint(kind: 'ok' | 'warn' | 'error' | 'dim', text: string): string {
  const colour =
    kind === 'ok'
      ? PAINT.green
      : kind === 'warn'
        ? PAINT.yellow
        : kind === 'error'
          ? PAINT.red
          : PAINT.dim
  return colour ? `${colour}${text}${PAINT.reset}` : text
}

/** Shown instead of a tenant for lines that have none (401s, public pages, the process). */
const NO_TENANT = '-'

export function createLogger(
  format: LogFormat,
  write: (text: string) => unknown = (text) => process.stdout.write(text),
  wallNow: () => number = Date.now,
): Logger {
  return {
    log(line) {
      if (format === 'silent' && !line.always) return
      write((format === 'json' ? jsonLine(line, wallNow()) : prettyLine(line, wallNow())) + '\n')
    },
  }
}

function jsonLine(line: LogLine, now: number): string {
  return JSON.stringify({
    time: new Date(now).toISOString(),
    level: line.level ?? 'info',
    event: line.event,
    ...(line.tenant !== undefined && {
      tenant: line.tenant === null ? null : maskToken(line.tenant),
    }),
    ...line.fields,
    ...(line.sandboxTime !== undefined && {
      sandbox_time: new Date(line.sandboxTime).toISOString(),
    }),
  })
}

function prettyLine(line: LogLine, now: number): string {
  if (line.block) return line.text
  const time = new Date(now).toISOString().slice(11, 23)
  const tenant =
    line.tenant === undefined || line.tenant === null ? NO_TENANT : shorten(maskToken(line.tenant))
  const level =
    line.level === 'warn'
      ? paint('warn', 'warning: ')
      : line.level === 'error'
        ? paint('error', 'error: ')
        : ''
  return `${paint('dim', time)} ${paint('dim', tenant.padEnd(16))} ${level}${line.text}`
}

/** A long masked token keeps its visible end: `…*****abcd`. */
function shorten(masked: string): string {
  return masked.length > 16 ? `…${masked.slice(-15)}` : masked
}
