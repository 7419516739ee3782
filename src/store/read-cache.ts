/**
 * Reads repeated with nothing written since are answered from memory: the count behind a
 * paginator's `total` is linear in the tenant's rows.
 */
import type { Db } from '../db/open.js'
import { prepared } from './statements.js'

/** How many reads a database keeps between writes: a test suite's lists, not more. */
const CACHED_READS = 256
const readCaches = new WeakMap<object, Map<string, { version: string; value: unknown }>>()

/**
 * A read (a page, its balances) repeated with nothing written since is answered from memory.
 * Any write (this connection's or another's) makes every cached read stale; reads inside a
 * transaction are never cached. `key` must name everything the read depends on; callers must
 * not mutate it.
 */
export function readThrough<V>(db: Db, key: string, read: () => V): V {
  const version = dataVersion(db)
  if (version === undefined) return read()
  let cache = readCaches.get(db)
  if (!cache) readCaches.set(db, (cache = new Map()))
  const cached = cache.get(key)
  if (cached?.version === version) return cached.value as V
  const value = read()
  cache.delete(key)
  if (cache.size >= CACHED_READS) cache.delete(cache.keys().next().value!)
  cache.set(key, { version, value })
  return value
}

/**
 * Changes with every row this connection writes (total_changes) and every commit of another
 * connection (data_version); undefined inside a transaction, whose writes may yet roll back.
 */
function dataVersion(db: Db): string | undefined {
  if (db.$client.inTransaction) return undefined
  const [ours, theirs] = prepared(db, 'data-version', () => [
    db.$client.prepare('SELECT total_changes()').pluck(),
    db.$client.prepare('PRAGMA data_version').pluck(),
  ])
  return `${ours.get()}:${theirs.get()}`
}
