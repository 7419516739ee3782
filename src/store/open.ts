/**
 * Opens the sandbox's store where `--db` says: a `postgres://` (or `postgresql://`) URL is the
 * team sandbox's PostgreSQL (store/postgres.ts), anything else SQLite (`:memory:` or a file).
 */
import { closeDb, openDb, type Db } from '../db/open.js'
import { openPgStore } from '../db/open-pg.js'
import { pgDb, pgOf } from './postgres.js'

export function isPostgresUrl(location: string | undefined): location is string {
  return location !== undefined && /^postgres(ql)?:\/\//i.test(location)
}

export function openStore(location?: string): Db {
  return isPostgresUrl(location) ? pgDb(openPgStore(location)) : openDb(location)
}

/** Closes the store; on PostgreSQL the pool ends once its clients are back. */
export function closeStore(db: Db): Promise<void> {
  const pg = pgOf(db)
  if (pg) return pg.close()
  closeDb(db)
  return Promise.resolve()
}
