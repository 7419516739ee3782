/**
 * A replica's ear on the database: one connection of its own (beside the pool, like its
 * membership connection: store/postgres/replicas.ts) that LISTENs on the channel named after its schema,
 * where the database's triggers announce the writes the tick waits for (drizzle-pg,
 * announce_writes; delivered when the writing transaction commits). Several sandboxes may share
 * one database through search_path: each schema is its own channel. When the connection is cut
 * it is made again once the server answers; announcements may have been missed meanwhile, so
 * everything is announced then, as at the start and at every slow poll.
 */
import pg from 'pg'
import type { PgStore } from './open.js'
import type { Heard } from '../driver.js'

/**
 * How often everything is announced whatever was heard: what no announcement tells of (a
 * transaction rolled back after it was announced nothing, a lease that ran out after a replica
 * died or hung) waits at most this long.
 */
export const SLOW_POLL_MS = 5_000

/** How often a cut listening connection is tried again. */
const RECONNECT_MS = 1_000

/**
 * Listens for the store's announcements, handing them to `heard`, and announces everything every
 * `slowPollMs`, until the returned function is called.
 */
export function listenForWrites(
  store: PgStore,
  heard: Heard,
  slowPollMs = SLOW_POLL_MS,
): () => Promise<void> {
  let stopped = false
  let client: pg.Client | undefined
  const poll = setInterval(() => heard.announceEverything(), slowPollMs)
  poll.unref()

  async function connect(): Promise<void> {
    while (!stopped) {
      const listening = new pg.Client({ connectionString: store.url })
      listening.on('error', () => {})
      try {
        await store.ready
        await listening.connect()
        const { rows } = await listening.query<{ schema: string }>(
          'SELECT current_schema() AS schema',
        )
        const channel = rows[0].schema
        listening.on('notification', (message) => {
          if (message.channel === channel && message.payload) heard.announce(message.payload)
        })
        await listening.query(`LISTEN "${channel.replaceAll('"', '""')}"`)
        if (stopped) return void (await listening.end())
        client = listening
        listening.once('end', () => {
          client = undefined
          if (!stopped) void connect()
        })
        heard.announceEverything()
        return
      } catch {
        await listening.end().catch(() => {})
      }
      await new Promise((resolve) => setTimeout(resolve, RECONNECT_MS).unref())
    }
  }

  void connect()
  return async () => {
    stopped = true
    clearInterval(poll)
    await client?.end().catch(() => {})
  }
}
