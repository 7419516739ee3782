/**
 * Replicas on one PostgreSQL database agree on the flags that decide what a tenant's
 * clock says: the first to start writes them (replica_settings), and one that starts while others
 * run with other values is refused. Each replica holds a shared advisory lock for as long as it
 * runs, on a connection of its own: one that takes the lock exclusively is alone (the others
 * stopped, or were killed: their connections closed), and its flags become the database's.
 * Locks are per schema, so that schemas of one database (a test's own) are separate sandboxes.
 */
import pg from 'pg'
import type { PgStore } from './open.js'
import { MIGRATION_LOCK } from './pool.js'
import type { ReplicaSettings } from '../driver.js'

export type { ReplicaSettings }

/** The advisory lock class of the replicas of one schema: "cs". */
const REPLICAS = 0x6373

export class ReplicaSettingsError extends Error {
  override name = 'ReplicaSettingsError'
}

/**
 * Joins the replicas serving the store's database, or throws ReplicaSettingsError (one line)
 * when they run with other `settings`. Stays a member while it runs: when its connection is cut
 * (PostgreSQL restarting), it takes its lock again on a new one, once the server answers.
 * Returns what leaves (the sandbox's close).
 */
export async function joinReplicas(
  store: PgStore,
  settings: ReplicaSettings,
): Promise<() => Promise<void>> {
  await store.ready
  let member = await connected(store)
  try {
    await member.query('SELECT pg_advisory_lock($1)', [MIGRATION_LOCK])
    try {
      await agree(member, settings)
      await member.query(TAKE_MEMBERSHIP, [REPLICAS])
    } finally {
      await member.query('SELECT pg_advisory_unlock($1)', [MIGRATION_LOCK])
    }
  } catch (error) {
    await member.end()
    throw error
  }
  let leaving = false
  const stay = (client: pg.Client) =>
    client.once('end', () => {
      if (!leaving) void rejoin()
    })
  const rejoin = async () => {
    while (!leaving) {
      const client = await connected(store).catch(() => undefined)
      try {
        if (client) {
          await client.query(TAKE_MEMBERSHIP, [REPLICAS])
          member = client
          if (leaving) return void (await client.end())
          return void stay(client)
        }
      } catch {
        await client!.end().catch(() => {})
      }
      await new Promise((resolve) => setTimeout(resolve, REJOIN_MS).unref())
    }
  }
  stay(member)
  return () => {
    leaving = true
    return member.end().catch(() => {})
  }
}

const TAKE_MEMBERSHIP = 'SELECT pg_advisory_lock_shared($1, hashtext(current_schema()))'

/** How often a replica whose membership connection was cut tries to take it again. */
const REJOIN_MS = 1_000

async function connected(store: PgStore): Promise<pg.Client> {
  const client = new pg.Client({ connectionString: store.url })
  client.on('error', () => {})
  try {
    await client.connect()
  } catch (error) {
    await client.end().catch(() => {})
    throw error
  }
  return client
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
