/**
 * `--db-wait <duration>`: a replica started beside its PostgreSQL (compose, a CI job's services)
 * may come up first. While the server refuses connections (ECONNREFUSED), its name does not
 * resolve yet (ENOTFOUND, EAI_AGAIN) or it answers that it is starting up (SQLSTATE 57P03), the
 * store's first step is tried again until the duration has passed, with one line saying what it
 * waits for; then the start fails naming it. Any other error (a refused password, a database
 * that does not exist) fails at once, and so does everything with no wait (the default, 0).
 */
import { formatDuration } from '../../lib/duration.js'

/** The errors that mean "not up yet", as node-postgres reports them (`code`). */
const NOT_UP_YET = new Set(['ECONNREFUSED', 'ENOTFOUND', 'EAI_AGAIN', '57P03'])

/** The pauses between attempts: short at first, then every 2 s. */
const PAUSES_MS = [250, 500, 1000, 2000]

export type PgWaitOptions = {
  /** How long to keep trying, in ms; 0 (the default): fail at the first error. */
  ms: number
  /** Told once, at the first error worth waiting on: where, what, for how long. */
  log?: (waiting: { target: string; error: string; ms: number }) => void
}

/** The `code` of an error worth waiting on (drizzle may wrap it as a cause), or undefined. */
export function notUpYetCode(error: unknown): string | undefined {
  for (let e = error, depth = 0; e && depth < 4; e = (e as { cause?: unknown }).cause, depth++) {
    const code = (e as { code?: unknown }).code
    if (typeof code === 'string' && NOT_UP_YET.has(code)) return code
  }
  return undefined
}

/** `host:port` of a PostgreSQL URL: what the log line and the error name (never the password). */
export function pgTarget(url: string): string {
  if (!URL.canParse(url)) return 'the --db URL'
  const { hostname, port } = new URL(url)
  return `${hostname || 'localhost'}:${port || '5432'}`
}

/**
 * An error as one line, with its code when the message lacks it (57P03 comes as prose); a
 * connection tried on several addresses fails with an AggregateError of one error each, with no
 * message of its own.
 */
export function describeError(error: unknown): string {
  const first = (error as { errors?: unknown[] })?.errors?.[0]
  const message =
    error instanceof Error
      ? error.message || (first instanceof Error ? first.message : '')
      : String(error)
  const code = notUpYetCode(error) ?? (error as { code?: unknown })?.code
  return typeof code === 'string' && !message.includes(code) ? `${message} (${code})` : message
}

/**
 * Runs `attempt` (the store's first connection) until it succeeds, fails with an error not worth
 * waiting on, or `wait.ms` has passed since the first try; resolves to how many attempts it took.
 */
export async function untilPgUp(
  url: string,
  attempt: () => Promise<void>,
  wait: PgWaitOptions,
  sleep: (ms: number) => Promise<void> = (ms) => new Promise((done) => setTimeout(done, ms)),
): Promise<number> {
  const deadline = performance.now() + wait.ms
  for (let attempts = 1; ; attempts++) {
    try {
      await attempt()
      return attempts
    } catch (error) {
      if (wait.ms <= 0 || !notUpYetCode(error)) throw error
      const target = pgTarget(url)
      if (attempts === 1) wait.log?.({ target, error: describeError(error), ms: wait.ms })
      const left = deadline - performance.now()
      if (left <= 0)
        throw new Error(
          `PostgreSQL at ${target} was still not up after --db-wait ${formatDuration(wait.ms)} ` +
            `(${attempts} attempts): ${describeError(error)}`,
          { cause: error },
        )
      await sleep(Math.min(PAUSES_MS[Math.min(attempts - 1, PAUSES_MS.length - 1)], left))
    }
  }
}
