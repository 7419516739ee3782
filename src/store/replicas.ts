/**
 * Replicas on one PostgreSQL database (issue 20) agree on the flags that decide what a tenant's
 * clock says: the first to start writes them (replica_settings), and one that starts while others
 * run with other values is refused. Each replica holds a shared advisory lock for as long as it
 * runs, on a connection of its own: one that takes the lock exclusively is alone (the others
 * stopped, or were killed: their connections closed), and its flags become the database's.
 * Locks are per schema, so that schemas of one database (a test's own) are separate sandboxes.
 */
import pg from 'pg'
import type { Db } from '../db/open.js'
import { MIGRATION_LOCK } from '../db/open-pg.js'
import { pgOf } from './postgres.js'

/** The advisory lock class of the replicas of one schema: "cs". */
const REPLICAS = 0x6373

export class ReplicaSettingsError extends Error {
  override name = 'ReplicaSettingsError'
}

/** Each flag by name (`--clock`), with its value as this replica was started. */
export type ReplicaSettings = Record<string, string>

/**
 * Joins the replicas serving the store's database, or throws ReplicaSettingsError (one line)
 * when they run with other `settings`. Returns what leaves (the sandbox's close).
 */
export async function joinReplicas(
  db: Db,
  settings: ReplicaSettings,
): Promise<() => Promise<void>> {
  const store = pgOf(db)!
  await store.ready
  const client = new pg.Client((store.pool as pg.Pool).options)
  client.on('error', () => {})
  await client.connect()
  try {
    await client.query('SELECT pg_advisory_lock($1)', [MIGRATION_LOCK])
    try {
      await agree(client, settings)
      await client.query('SELECT pg_advisory_lock_shared($1, hashtext(current_schema()))', [
        REPLICAS,
      ])
    } finally {
      await client.query('SELECT pg_advisory_unlock($1)', [MIGRATION_LOCK])
    }
  } catch (error) {
    await client.end()
    throw error
  }
  return () => client.end()
}

async function agree(client: pg.Client, settings: ReplicaSettings): Promise<void> {
  const { rows } = await client.query<{ alone: boolean }>(
    'SELECT pg_try_advisory_lock($1, hashtext(current_schema())) AS alone',
    [REPLICAS],
  )
  if (rows[0].alone) {
    await client.query('DELETE FROM replica_settings')
    for (const [name, value] of Object.entries(settings))
      await client.query('INSERT INTO replica_settings (name, value) VALUES ($1, $2)', [
        name,
        value,
      ])
    await client.query('SELECT pg_advisory_unlock($1, hashtext(current_schema()))', [REPLICAS])
    return
  }
  const stored = await client.query<{ name: string; value: string }>(
    'SELECT name, value FROM replica_settings ORDER BY name',
  )
  const theirs = new Map(stored.rows.map((row) => [row.name, row.value]))
  const differ = Object.keys(settings).filter(
    (name) => theirs.has(name) && theirs.get(name) !== settings[name],
  )
  if (differ.length > 0)
    throw new ReplicaSettingsError(
      `the replicas already serving this database run with ` +
        `${differ.map((name) => `${name} ${theirs.get(name) || '(unset)'}`).join(' ')}; ` +
        `start this one with the same flags`,
    )
}
