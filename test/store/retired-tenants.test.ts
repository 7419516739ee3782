/**
 * The sweep of retired tenants' rows (src/store/retired-tenants.ts): a batch at a time, the
 * retired id kept until a sweep finds its rows gone; on a store of one process at every tick, on
 * a shared one (PostgreSQL) only once a retirement was announced, and while one is left.
 */
import { afterEach, describe, expect, it } from 'vitest'
import { announcedOf } from '../../src/store/announced.js'
import type { Db } from '../../src/store/driver.js'
import { insertJob } from '../../src/store/jobs.js'
import {
  retireTenantId,
  sweepAnnouncedRetirements,
  sweepRetiredTenants,
} from '../../src/store/retired-tenants.js'
import { saveScenario } from '../../src/store/scenarios.js'
import { query } from '../../src/store/statements.js'
import { memoryStore, pgStoreOnFreshSchema, TEST_PG } from '../pg.js'

const cleanups: (() => Promise<void>)[] = []
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup()
})

/** A retired tenant with `jobs` pending jobs, and a live one with one. */
async function retiredWith(db: Db, jobs: number): Promise<void> {
  for (let n = 0; n < jobs; n++)
    await insertJob(db, {
      tenantId: 'ten_old',
      resource: 'cards',
      key: `c${n}`,
      action: 'x',
      dueAt: 1,
    })
  await insertJob(db, { tenantId: 'ten_live', resource: 'cards', key: 'c', action: 'x', dueAt: 1 })
  await retireTenantId(db, 'ten_old', 1)
}

const jobsOf = async (db: Db) =>
  (await query<{ tenantId: string }[]>(db, 'all', (db, t) => db.select().from(t.jobs))).map(
    (job) => job.tenantId,
  )
const retired = async (db: Db) =>
  (await query<{ id: string }[]>(db, 'all', (db, t) => db.select().from(t.retiredTenants))).map(
    (row) => row.id,
  )

describe('the sweep of a retired tenant', () => {
  it('keeps the retired id while a batch used its whole budget, and lets it go once none is left', async () => {
    const db = memoryStore(cleanups)
    // posted scenarios: the last table a sweep goes through, so the budget runs out on it
    for (const name of ['a', 'b', 'c']) await saveScenario(db, 'ten_old', name, { name })
    await retireTenantId(db, 'ten_old', 1)
    expect(await sweepRetiredTenants(db, 3)).toBe(3)
    expect(await retired(db)).toEqual(['ten_old'])
    expect(await sweepRetiredTenants(db, 3)).toBe(0)
    expect(await retired(db)).toEqual([])
  })

  it("deletes the tenant's rows of every table, and no other tenant's", async () => {
    const db = memoryStore(cleanups)
    await retiredWith(db, 3)
    expect(await sweepRetiredTenants(db)).toBe(3)
    expect(await jobsOf(db)).toEqual(['ten_live'])
    expect(await retired(db)).toEqual([])
  })

  it('runs at every tick on a store of one process, announced or not', async () => {
    const db = memoryStore(cleanups)
    await retiredWith(db, 2)
    announcedOf(db).retired = false
    expect(await sweepAnnouncedRetirements(db)).toBe(2)
    expect(await jobsOf(db)).toEqual(['ten_live'])
  })
})

describe.skipIf(!TEST_PG)('the sweep of a retired tenant on a shared store (PostgreSQL)', () => {
  it('waits for a retirement to be announced, then sweeps while one is left', async () => {
    const { db } = await pgStoreOnFreshSchema(cleanups)
    await retiredWith(db, 2)
    const announced = announcedOf(db)
    announced.retired = false
    expect(await sweepAnnouncedRetirements(db)).toBe(0)
    expect(await jobsOf(db)).toHaveLength(3)

    announced.retired = true
    expect(await sweepAnnouncedRetirements(db)).toBe(2)
    expect(announced.retired).toBe(true) // more may be left
    expect(await jobsOf(db)).toEqual(['ten_live'])
    // none left: one read, and nothing is looked at again until the next announcement
    expect(await sweepAnnouncedRetirements(db)).toBe(0)
    expect(announced.retired).toBe(false)
    expect(await retired(db)).toEqual([])

    // a retired id whose rows are gone already (another replica swept them): nothing more to do
    await retireTenantId(db, 'ten_empty', 2)
    announced.retired = true
    expect(await sweepAnnouncedRetirements(db)).toBe(0)
    expect(announced.retired).toBe(false)
    expect(await retired(db)).toEqual([])
  })
})
