/**
 * A replica's due index (src/store/jobs.ts, with replicas): loaded whole at the start and when
 * everything is announced; between two, a job another replica announces lowers its tenant's
 * earliest instant without SQL, and a tenant whose clock changed, or whose clock is not known
 * yet, is read again. Only tenants on a running clock can fall due by themselves: others are left
 * out. What the tick reads with dueInstants, after reloadDueAtIfOthersWrote.
 */
import { eq } from 'drizzle-orm'
import { afterEach, describe, expect, it } from 'vitest'
import { announce, announcedOf } from '../../src/store/announced.js'
import type { Db } from '../../src/store/driver.js'
import {
  dueAt,
  dueAtInMemory,
  dueInstants,
  forgetDueAt,
  insertJob,
  refreshDueAt,
  reloadDueAtIfOthersWrote,
} from '../../src/store/jobs.js'
import { atomically, query } from '../../src/store/statements.js'
import { insertTenant, updateTenant } from '../../src/store/tenants.js'
import { memoryStore, pgStoreOnFreshSchema, TEST_PG } from '../pg.js'

const cleanups: (() => Promise<void>)[] = []
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup()
})

const tenant = (id: string, clockMode: 'real' | 'manual') => ({
  id,
  token: `token-${id}`,
  businessName: 'Diop SARL',
  clockMode,
  clockAnchorMs: 0,
  clockWallMs: 0,
  createdAt: 0,
})

const job = (tenantId: string, dueAt: number) => ({
  tenantId,
  resource: 'cards',
  key: `c-${dueAt}`,
  action: 'x',
  dueAt,
})

/** The index as the tick reads it, after it looked at what was announced: instant and clock. */
async function instants(db: Db) {
  await reloadDueAtIfOthersWrote(db)
  return Object.fromEntries(
    (await dueInstants(db)).map(([id, at, clock]) => [id, `${at} ${clock?.clockMode ?? '?'}`]),
  )
}

describe('the due index of a store of one process (SQLite)', () => {
  it('is loaded on first use, lowered as jobs are written, read again after a run, never early', async () => {
    const db = memoryStore(cleanups)
    expect(dueAtInMemory(db, 'ten_a')).toBeNull() // not loaded yet
    await insertJob(db, job('ten_a', 200))
    expect(await dueAt(db, 'ten_a')).toBe(200)
    await insertJob(db, job('ten_a', 300))
    expect(dueAtInMemory(db, 'ten_a')).toBe(200)
    await insertJob(db, job('ten_a', 100))
    expect(dueAtInMemory(db, 'ten_a')).toBe(100)
    expect(dueAtInMemory(db, 'ten_b')).toBeUndefined()

    // the jobs ran (deleted): the earliest is read from the table again, or the tenant goes
    await query(db, 'run', (db, t) => db.delete(t.jobs).where(eq(t.jobs.dueAt, 100)))
    expect(await dueAt(db, 'ten_a')).toBe(100) // memory, until told
    await refreshDueAt(db, 'ten_a')
    expect(await dueAt(db, 'ten_a')).toBe(200)
    // not inside a transaction, whose deletes may yet roll back
    await atomically(db, async (tx) => {
      await query(tx, 'run', (db, t) => db.delete(t.jobs))
      await refreshDueAt(tx, 'ten_a')
    })
    expect(await dueAt(db, 'ten_a')).toBe(200)
    await refreshDueAt(db, 'ten_a')
    expect(await dueAt(db, 'ten_a')).toBeUndefined()

    await insertJob(db, job('ten_c', 5))
    await forgetDueAt(db, 'ten_c')
    expect(await dueInstants(db)).toEqual([])
  })
})

describe.skipIf(!TEST_PG)('a replica’s due index (PostgreSQL)', () => {
  it('follows what is announced, reading the table only for tenants whose clock it must learn', async () => {
    const { db } = await pgStoreOnFreshSchema(cleanups)
    await insertTenant(db, tenant('ten_a', 'real'))
    await insertTenant(db, tenant('ten_m', 'manual'))
    await insertJob(db, job('ten_a', 100))
    await insertJob(db, job('ten_m', 100))
    // the start: everything announced, the whole index loaded; a stopped clock is left out
    expect(await instants(db)).toEqual({ ten_a: '100 real' })
    expect(announcedOf(db).everything).toBe(false)

    // another replica's jobs, as announced: an earlier one lowers the instant, a later one not
    announce(db, 'j ten_a 50')
    announce(db, 'j ten_a 70')
    expect(await instants(db)).toEqual({ ten_a: '50 real' })
    announce(db, 'j ten_a 60')
    expect(await instants(db)).toEqual({ ten_a: '50 real' })

    // a tenant whose clock is not known yet is read from the table, with its clock
    await insertTenant(db, tenant('ten_b', 'real'))
    await insertJob(db, job('ten_b', 300))
    announce(db, 'j ten_b 300')
    expect(await instants(db)).toEqual({ ten_a: '50 real', ten_b: '300 real' })

    // a clock stopped, as announced: its tenant is left out until it runs again
    await updateTenant(db, 'ten_a', { clockMode: 'manual' })
    announce(db, 't ten_a')
    expect(await instants(db)).toEqual({ ten_b: '300 real' })

    // everything announced (the slow poll): the whole index again, from the table
    await updateTenant(db, 'ten_m', { clockMode: 'real' })
    announcedOf(db).everything = true
    expect(await instants(db)).toEqual({ ten_b: '300 real', ten_m: '100 real' })
  })
})
