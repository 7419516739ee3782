/**
 * Reads repeated with nothing written since are answered from memory: the count behind a
 * paginator's `total` is linear in the tenant's rows, and a list page's answer (its rows, their
 * balances, the JSON text sent) is the same until something is written.
 */
import type { Db } from '../db/open.js'
import { perConnection, statement, locked, unlocked } from './statements.js'
import { pgOf } from './postgres.js'

/** How many reads a database keeps between writes: a test suite's lists, not more. */
const CACHED_READS = 256

type Cached = { ours: number; theirs: number; value: unknown }

const readCacheOf = perConnection(() => new Map<string, Cached>())

/**
 * A read (a page, its balances, a list's answer) repeated with nothing written since is answered
 * from memory. Any write (this connection's or another's) makes every cached read stale; reads
 * inside a transaction are never cached. `key` must name everything the read depends on (build
 * it by concatenation: it is made on every call); callers must not mutate the value.
 */
export async function readThrough<V>(db: Db, key: string, read: () => Promise<V> | V): Promise<V> {
  // on PostgreSQL another replica may write: nothing is cached there (ARCHITECTURE.md)
  if (pgOf(db) || db.$client.inTransaction) return read()
  while (locked(db)) await unlocked(db)
  const [ours, theirs] = writeCounts(db)
  const cache = readCacheOf(db)
  const cached = cache.get(key)
  if (cached !== undefined && cached.ours === ours && cached.theirs === theirs)
    return cached.value as V
  const value = await read()
  cache.delete(key)
  if (cache.size >= CACHED_READS) cache.delete(cache.keys().next().value!)
  cache.set(key, { ours, theirs, value })
  return value
}

/**
 * What readThrough would answer from memory, when it can be had without waiting (SQLite, no
 * transaction open, nothing written since it was cached); else undefined, and readThrough is
 * the way. A list page's answer then goes out without a turn of the event loop (envelope.ts).
 */
export function cachedNow<V>(db: Db, key: string): V | undefined {
  if (pgOf(db) || db.$client.inTransaction || locked(db)) return undefined
  const cached = readCacheOf(db).get(key)
  if (cached === undefined) return undefined
  const [ours, theirs] = writeCounts(db)
  return cached.ours === ours && cached.theirs === theirs ? (cached.value as V) : undefined
}

/**
 * The rows this connection has written (total_changes) and the commits of other connections
 * (data_version), in one statement, on SQLite (run at once: outside a transaction). Either
 * changing means a cached read may be stale; outside a transaction neither moves without a
 * write. An in-memory database has no other connection: its count of theirs stays 0, without
 * the pragma (a table-valued function, 1 µs a read).
 */
function writeCounts(db: Db): [number, number] {
  if (db.$client.memory) return [ourWrites(db).get() as number, 0]
  return bothWrites(db).get() as [number, number]
}

const ourWrites = statement((db) => db.$client.prepare('SELECT total_changes()').pluck())
const bothWrites = statement((db) =>
  db.$client.prepare('SELECT total_changes(), data_version FROM pragma_data_version').raw(),
)
