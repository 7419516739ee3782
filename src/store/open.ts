/**
 * Opens the sandbox's store where `--db` says: a `postgres://` (or `postgresql://`) URL is the
 * team sandbox's PostgreSQL (store/postgres/), anything else SQLite (`:memory:` or a file,
 * store/sqlite/). The one place that picks a driver by location.
 */
import { lockDatabase } from './sqlite/lock.js'
import { openPgStore } from './postgres/open.js'
import type { PgWaitOptions } from './postgres/wait.js'
import type { Db, ReplicaSettings } from './driver.js'
import { pgDb } from './postgres/driver.js'
import { openSqlite } from './sqlite/driver.js'

function isPostgresUrl(location: string | undefined): location is string {
  return location !== undefined && /^postgres(ql)?:\/\//i.test(location)
}

/** `pgWait`: how long a PostgreSQL store waits for its server at start (`--db-wait`). */
export function openStore(location?: string, pgWait?: PgWaitOptions): Db {
  return isPostgresUrl(location) ? pgDb(openPgStore(location, pgWait)) : openSqlite(location)
}

/**
 * Whether the store at `location` is shared by several processes (replicas), before opening it:
 * a seeded run is for one process.
 */
export function storeLocationIsShared(location: string | undefined): boolean {
  return isPostgresUrl(location)
}

/**
 * Claims the store at `location` for this process to serve, where only one process may (a SQLite
 * file: sqlite/lock.ts); returns what lets it go. Replicas of a shared store join it once it is open
 * (joinStore).
 */
export function claimStore(location: string | undefined): () => void {
  return isPostgresUrl(location) ? () => {} : lockDatabase(location ?? ':memory:')
}

/**
 * Serves the store beside the other replicas of a shared one: refuses when they run with other
 * `settings`. Returns what leaves. A store of one process is claimed instead (claimStore).
 */
export async function joinStore(db: Db, settings: ReplicaSettings): Promise<() => Promise<void>> {
  return (await db.driver.replicas?.join(db, settings)) ?? (async () => {})
}

/** Closes the store; on PostgreSQL the pool ends once its clients are back. */
export function closeStore(db: Db): Promise<void> {
  return db.driver.close(db)
}

/**
 * Socket errors (node-postgres fails a client's statements with its socket's), the server's
 * name not resolving (ENOTFOUND, or EAI_AGAIN when the DNS server does not answer: a container
 * network's resolver restarting, as podman's did under compose), PostgreSQL's connection (08)
 * and operator-intervention (57P: a terminated backend, a shutdown, a restart) classes, and too
 * many connections (53300: the server's or the role's limit, reached when replicas reconnect at
 * once after a restart).
 */
const UNREACHABLE_CODES =
  /^(ECONNREFUSED|ECONNRESET|ECONNABORTED|ETIMEDOUT|EHOSTUNREACH|ENETUNREACH|ENOTFOUND|EAI_AGAIN|EPIPE|08...|57P0.|53300)$/

/**
 * node-postgres's errors for a connection lost, which carry no code: the socket ended ('Connection
 * terminated unexpectedly', or at a connect timeout), or a statement was asked of a client whose
 * connection had already failed (the next statement of a transaction, its COMMIT or ROLLBACK,
 * once the server has ended the backend between two of them).
 */
const CONNECTION_LOST =
  /^(Connection terminated|Client has encountered a connection error and is not queryable)/

/**
 * Whether a failed statement failed because the database could not be reached (PostgreSQL down,
 * restarting, a connection cut), not because of what it asked: the request may be retried.
 * drizzle wraps the driver's error as its `cause`.
 */
export function storeUnreachable(error: unknown): boolean {
  for (let e = error, depth = 0; e && depth < 4; e = (e as { cause?: unknown }).cause, depth++) {
    const code = (e as { code?: unknown }).code
    if (typeof code === 'string' && UNREACHABLE_CODES.test(code)) return true
    if (e instanceof Error && CONNECTION_LOST.test(e.message)) return true
  }
  return false
}

/** How often an action cut off from the store is tried before giving up, and how far apart. */
const UNREACHABLE_TRIES = 3
const UNREACHABLE_PAUSE_MS = 50

/**
 * `action`, tried again (3 times in all, 50 ms apart) while it fails because the store could
 * not be reached: after a cut the pool may first hand out an idle connection cut with the
 * others. Any other failure, or the last, is thrown.
 */
export async function retriedWhileUnreachable<T>(action: () => Promise<T>): Promise<T> {
  for (let attempt = 1; ; attempt++) {
    try {
      return await action()
    } catch (error) {
      if (attempt >= UNREACHABLE_TRIES || !storeUnreachable(error)) throw error
      await new Promise((resolve) => setTimeout(resolve, UNREACHABLE_PAUSE_MS))
    }
  }
}

/** The innermost cause's message, for a one-line log. */
export function describeCause(error: unknown): string {
  let e = error
  for (let depth = 0; depth < 4 && (e as { cause?: unknown })?.cause; depth++)
    e = (e as { cause?: unknown }).cause
  return e instanceof Error ? e.message : String(e)
}
