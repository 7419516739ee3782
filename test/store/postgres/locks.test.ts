/**
 * lockJobs (src/store/locks.ts) on PostgreSQL: the one jobs lock a move (by key) and a set's
 * moves (by seq) take, until their transaction ends, on exactly the pending jobs of the rows
 * they name: of that tenant and that resource, no others.
 */
import { afterEach, describe, expect, it } from 'vitest'
import type { Db } from '../../../src/store/driver.js'
import { insertJob } from '../../../src/store/jobs.js'
import { insertCard } from '../../../src/store/cards.js'
import { lockForMove, lockJobs } from '../../../src/store/locks.js'
import type { PgStore } from '../../../src/store/postgres/open.js'
import { atomically } from '../../../src/store/statements.js'
import { pgStoreOnFreshSchema, TEST_PG } from '../../pg.js'
import { CARD_COLUMNS } from '../card-columns.js'

const cleanups: (() => Promise<void>)[] = []
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup()
})

const pgOf = (db: Db) => (db as Db & { pg?: PgStore }).pg!

/**
 * Each job as `tenant resource key row`: the cards c1 (row 11) and c2 (row 12), and look-alikes;
 * the rows' seqs are not the jobs' own (1 to 4).
 */
const JOBS = [
  ['ten_1', 'cards', 'c1', 11],
  ['ten_1', 'cards', 'c2', 12],
  ['ten_2', 'cards', 'c1', 11],
  ['ten_1', 'card-users', 'c1', 11],
] as const

async function withJobs(): Promise<Db> {
  const db = (await pgStoreOnFreshSchema(cleanups)).db
  for (const [tenantId, resource, key, resourceSeq] of JOBS)
    await insertJob(db, { tenantId, resource, key, resourceSeq, action: 'x', dueAt: 1 })
  return db
}

/** The jobs another transaction holds while `hold` runs in one of its own. */
async function lockedWhile(db: Db, hold: (tx: Db) => Promise<void>): Promise<string[]> {
  let release = () => {}
  const released = new Promise<void>((resolve) => (release = resolve))
  let locked!: () => void
  const lockTaken = new Promise<void>((resolve) => (locked = resolve))
  const holder = atomically(db, async (tx) => {
    await hold(tx)
    locked()
    await released
  })
  await lockTaken
  const { queryable } = pgOf(db)
  type Job = { seq: number; tenant_id: string; resource: string; key: string }
  const free = (await queryable.query('SELECT seq FROM jobs ORDER BY seq FOR UPDATE SKIP LOCKED'))
    .rows as Job[]
  const all = (await queryable.query('SELECT seq, tenant_id, resource, key FROM jobs ORDER BY seq'))
    .rows as Job[]
  release()
  await holder
  const freeSeqs = new Set(free.map((job) => Number(job.seq)))
  return all
    .filter((job) => !freeSeqs.has(Number(job.seq)))
    .map((job) => `${job.tenant_id} ${job.resource} ${job.key}`)
}

describe.skipIf(!TEST_PG)('lockJobs on PostgreSQL', () => {
  it("locks the pending jobs of a row named by key, of its tenant's resource only", async () => {
    const db = await withJobs()
    expect(await lockedWhile(db, (tx) => lockJobs(tx, 'ten_1', 'cards', { key: 'c1' }))).toEqual([
      'ten_1 cards c1',
    ])
  })

  it("locks the pending jobs of the rows named by seq, of its tenant's resource only", async () => {
    const db = await withJobs()
    expect(await lockedWhile(db, (tx) => lockJobs(tx, 'ten_1', 'cards', { seqs: [12] }))).toEqual([
      'ten_1 cards c2',
    ])
    expect(
      await lockedWhile(db, (tx) => lockJobs(tx, 'ten_1', 'cards', { seqs: [11, 12] })),
    ).toEqual(['ten_1 cards c1', 'ten_1 cards c2'])
  })
})

describe.skipIf(!TEST_PG)('lockForMove on PostgreSQL', () => {
  it('locks the row it moves, and its pending jobs, of its tenant only', async () => {
    const db = await withJobs()
    for (const [tenantId, reference] of [
      ['ten_1', 'c1'],
      ['ten_2', 'c1'],
      ['ten_1', 'c2'],
    ])
      await insertCard(db, { ...CARD_COLUMNS, reference, tenantId, identifier: null })
    let lockedCards: string[] = []
    const jobs = await lockedWhile(db, async (tx) => {
      await lockForMove(tx, 'ten_1', 'cards', 'c1')
      const { queryable } = pgOf(db)
      // read on another connection of the pool while the transaction holds its locks
      type Card = { tenant_id: string; reference: string }
      const free = (
        await queryable.query(
          'SELECT tenant_id, reference FROM cards ORDER BY seq FOR UPDATE SKIP LOCKED',
        )
      ).rows as Card[]
      const all = (await queryable.query('SELECT tenant_id, reference FROM cards ORDER BY seq'))
        .rows as Card[]
      const freeCards = new Set(free.map((row) => `${row.tenant_id} ${row.reference}`))
      lockedCards = all
        .map((row) => `${row.tenant_id} ${row.reference}`)
        .filter((card) => !freeCards.has(card))
    })
    expect(jobs).toEqual(['ten_1 cards c1'])
    expect(lockedCards).toEqual(['ten_1 c1'])
  })
})
