/**
 * Reads repeated with nothing written since are answered from memory: the count behind a
 * paginator's `total` is linear in the tenant's rows, and a list page's answer (its rows, their
 * balances, the JSON text sent) is the same until something is written.
 */
import { perConnection, type Db } from './statements.js'

/** How many reads a database keeps between writes: a test suite's lists, not more. */
const CACHED_READS = 256

type Cached = { stamp: unknown; value: unknown }

const readCacheOf = perConnection(() => new Map<string, Cached>())

/**
 * A read (a page, its balances, a list's answer) repeated with nothing written since is answered
 * from memory. Any write (this connection's or another's) makes every cached read stale: the
 * driver's write stamp says so; where it gives none (inside a transaction, a shared store),
 * nothing is cached. `key` must name everything the read depends on (build it by concatenation:
 * it is made on every call); callers must not mutate the value.
 */
export async function readThrough<V>(db: Db, key: string, read: () => Promise<V> | V): Promise<V> {
  const stamping = db.driver.writeStamp(db)
  // a wait only while another caller's transaction is open (SQLite's one connection)
  const stamp = stamping instanceof Promise ? await stamping : stamping
  if (stamp === undefined) return read()
  const cache = readCacheOf(db)
  const cached = cache.get(key)
  if (cached !== undefined && cached.stamp === stamp) return cached.value as V
  const value = await read()
  cache.delete(key)
  if (cache.size >= CACHED_READS) cache.delete(cache.keys().next().value!)
  cache.set(key, { stamp, value })
  return value
}

/**
 * What readThrough would answer from memory, when it can be had without waiting (no
 * transaction open, nothing written since it was cached); else undefined, and readThrough is
 * the way. A list page's answer then goes out without a turn of the event loop (envelope.ts).
 */
export function cachedNow<V>(db: Db, key: string): V | undefined {
  const cached = readCacheOf(db).get(key)
  // a kept stamp is never undefined nor a promise (readThrough): a stamp that is one differs
  return cached !== undefined && cached.stamp === db.driver.writeStamp(db)
    ? (cached.value as V)
    : undefined
}

/**
 * The handle for one request's reads whose first statement saw the database at `snapshot` (read
 * with the tenant): on a shared store, what lets its repeated reads be answered from memory
 * (Driver.readingAt); elsewhere `db` as it is.
 */
export function readingAt(db: Db, snapshot: string | null | undefined): Db {
  return db.driver.readingAt(db, snapshot)
}
