/**
 * Retired tenant ids (PRODUCT §8): a reset gives the tenant a new id and records the old one
 * here. The rows left under a retired id (resources, ledger, pending jobs, webhook events, posted
 * scenarios) are no one's any more — every query is by tenant id — and sweepRetiredTenants()
 * deletes them a batch at a time from the tick, so that a reset costs the same whatever the
 * tenant held. Other tenants are never touched.
 */
import { asc, eq, sql } from 'drizzle-orm'
import { announcedOf, announcesWrites } from './announced.js'
import type { Db } from './driver.js'
import { tryLockName } from './locks.js'
import { atomically, statement } from './statements.js'
import { TENANT_TABLES } from './tables.js'

export { TENANT_TABLES }

/** Rows one sweep deletes at most: a couple of milliseconds, so requests hardly wait for it. */
export const SWEEP_BATCH = 1_000

const insertRetired = statement((db, t) =>
  db
    .insert(t.retiredTenants)
    .values({ id: sql.placeholder('id'), retiredAt: sql.placeholder('at') })
    .prepare(),
)
const retiredOldestFirst = statement((db, t) =>
  db.select().from(t.retiredTenants).orderBy(asc(t.retiredTenants.retiredAt)).prepare(),
)
const deleteRetired = statement((db, t) =>
  db
    .delete(t.retiredTenants)
    .where(eq(t.retiredTenants.id, sql.placeholder('id')))
    .prepare(),
)

export async function retireTenantId(db: Db, id: string, at: number): Promise<void> {
  await insertRetired(db).run({ id, at })
}

/** Deletes up to `budget` rows of retired tenants; returns how many rows it deleted. */
export function sweepRetiredTenants(db: Db, budget = SWEEP_BATCH): Promise<number> {
  return atomically(db, (db) => sweep(db, budget))
}

const anyRetired = statement((db, t) =>
  db.select({ id: t.retiredTenants.id }).from(t.retiredTenants).limit(1).prepare(),
)

/**
 * The tick's sweep. With replicas, only once a retirement was announced (or the slow poll
 * announced everything), and only while one is left: one read when none is, no transaction.
 */
export async function sweepAnnouncedRetirements(db: Db): Promise<number> {
  if (!announcesWrites(db)) return await sweepRetiredTenants(db)
  const announced = announcedOf(db)
  if (!announced.retired) return 0
  announced.retired = false
  if (!(await anyRetired(db).get())) return 0
  const deleted = await sweepRetiredTenants(db)
  // more may be left; none deleted: none left, or another replica is sweeping them
  if (deleted > 0) announced.retired = true
  return deleted
}

async function sweep(db: Db, budget: number): Promise<number> {
  // one replica sweeps at a time: a batch another one is deleting would look like the last
  if (!(await tryLockName(db, 'sweep retired tenants'))) return 0
  let deleted = 0
  const retired = await retiredOldestFirst(db).all()
  for (const { id } of retired) {
    for (const table of TENANT_TABLES) {
      const left = budget - deleted
      if (left <= 0) return deleted
      deleted += await db.driver.deleteTenantRows(db, table, id, left)
    }
    if (deleted < budget) await deleteRetired(db).run({ id })
  }
  return deleted
}
