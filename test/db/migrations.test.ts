/**
 * The committed migrations (drizzle/) bring a file database of an older version forward with its
 * rows: here, the jobs of a database from before `jobs.resource_seq` (migration 0020) find their
 * resource's row, so that a transition still cancels them; the cards of a database from before
 * their reference was unique per tenant (migration 0021) are kept.
 */
import Database from 'better-sqlite3'
import { drizzle } from 'drizzle-orm/better-sqlite3'
import { migrate } from 'drizzle-orm/better-sqlite3/migrator'
import { cpSync, readFileSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { expect, it } from 'vitest'
import { closeSqlite as closeDb, openSqlite as openDb } from '../../src/store/sqlite/driver.js'
import { tempDir } from '../temp-dir.js'

/** A copy of drizzle/ that ends before the migration named `tag`. */
function migrationsBefore(tag: string, dir: string): string {
  const folder = join(dir, 'drizzle')
  cpSync('drizzle', folder, { recursive: true })
  const journalFile = join(folder, 'meta', '_journal.json')
  const journal = JSON.parse(readFileSync(journalFile, 'utf8')) as { entries: { tag: string }[] }
  const at = journal.entries.findIndex((entry) => entry.tag === tag)
  expect(at).toBeGreaterThan(0)
  journal.entries = journal.entries.slice(0, at)
  writeFileSync(journalFile, JSON.stringify(journal))
  return folder
}

it("fills a job's resource_seq from its resource's key, for every kind of job, tenant by tenant", () => {
  const dir = tempDir('card-sandbox-migrations-')
  const file = join(dir, 'sandbox.db')
  const old = new Database(file)
  migrate(drizzle(old), { migrationsFolder: migrationsBefore('0020_jobs_resource_seq', dir) })
  const card = old.prepare(
    `INSERT INTO cards (reference, tenant_id, card_user_reference, brand, type, status,
       created_at, updated_at) VALUES (?, ?, 'u', 'visa', 'virtual', 'issuing', 0, 0)`,
  )
  card.run('ref-a', 'ten_1') // seq 1
  card.run('ref-b', 'ten_1') // seq 2
  card.run('ref-c', 'ten_2') // seq 3
  old
    .prepare(
      `INSERT INTO wallet_codes (tenant_id, code, phone, network, expires_at, created_at)
       VALUES ('ten_1', '1234', '+22500', 'wave', 5, 0)`,
    )
    .run() // seq 1
  const job = old.prepare(
    'INSERT INTO jobs (tenant_id, resource, key, action, due_at) VALUES (?, ?, ?, ?, 10)',
  )
  job.run('ten_1', 'cards', 'ref-b', 'issued')
  job.run('ten_2', 'cards', 'ref-c', 'issued')
  job.run('ten_1', 'wallet-codes', '1', 'expired')
  job.run('ten_1', 'cards', 'ref-gone', 'issued') // its card deleted since
  old.close()

  const db = openDb(file)
  const jobs = db.$client
    .prepare('SELECT tenant_id, resource, key, resource_seq FROM jobs ORDER BY seq')
    .all()
  closeDb(db)
  expect(jobs).toEqual([
    { tenant_id: 'ten_1', resource: 'cards', key: 'ref-b', resource_seq: 2 },
    { tenant_id: 'ten_2', resource: 'cards', key: 'ref-c', resource_seq: 3 },
    { tenant_id: 'ten_1', resource: 'wallet-codes', key: '1', resource_seq: 1 },
    { tenant_id: 'ten_1', resource: 'cards', key: 'ref-gone', resource_seq: null },
  ])
})

it("keeps a database's cards through 0021, after which a card's reference is unique per tenant", () => {
  const dir = tempDir('card-sandbox-migrations-')
  const file = join(dir, 'sandbox.db')
  const old = new Database(file)
  migrate(drizzle(old), {
    migrationsFolder: migrationsBefore('0021_cards_reference_per_tenant', dir),
  })
  const insertCard = `INSERT INTO cards (reference, tenant_id, card_user_reference, brand, type,
    status, created_at, updated_at) VALUES (?, ?, 'u', 'visa', 'physical', 'issued', 0, 0)`
  old.prepare(insertCard).run('ref-a', 'ten_1')
  expect(() => old.prepare(insertCard).run('ref-a', 'ten_2')).toThrow(/UNIQUE/)
  old.close()

  const db = openDb(file)
  const card = db.$client.prepare(insertCard)
  card.run('ref-a', 'ten_2')
  expect(() => card.run('ref-a', 'ten_1')).toThrow(/UNIQUE/)
  const cards = db.$client.prepare('SELECT reference, tenant_id FROM cards ORDER BY seq').all()
  closeDb(db)
  expect(cards).toEqual([
    { reference: 'ref-a', tenant_id: 'ten_1' },
    { reference: 'ref-a', tenant_id: 'ten_2' },
  ])
})
