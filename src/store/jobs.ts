/**
 * The jobs table (PRODUCT §6, §10): what moves by itself, one row per scheduled move, due at an
 * instant of its tenant's sandbox clock. Beside it, in memory, each tenant's earliest due
 * instant (dueAt), so that the tick and a request know without SQL whether a tenant has work
 * due: loaded from the table at first use, lowered by every job written here, and read again
 * for a tenant once its due jobs have run (refreshDueAt). It may say earlier than the table
 * (a job cancelled, or written in a transaction that rolled back): that costs one empty run.
 * It never says later, except for jobs another connection wrote since it was loaded, which
 * reloadDueAtIfOthersWrote() (the tick) picks up. With replicas (PostgreSQL), a request's
 * question is read from the table; the tick's index holds the real-clock tenants only, with
 * their clocks, and takes in what the others announce (announced.ts) rather than asking SQL.
 */
import { FILL_DETAILS } from '../db/values.js'
import { and, asc, eq, min, ne, sql } from 'drizzle-orm'
import type { SQLiteTable } from 'drizzle-orm/sqlite-core'
import type { Db, NewJob, Replicas, TenantClock } from './driver.js'
import { jobs, type Job } from '../db/schema.js'
import { announcedOf } from './announced.js'
import { insertRow } from './rows.js'
import { commitsOfOthers, inTransaction, storeIsShared, statement } from './statements.js'

export async function insertJob(db: Db, job: typeof jobs.$inferInsert): Promise<void> {
  await insertRow(db, jobs, job)
  await lowerDueAt(db, job)
}

/**
 * Inserts a row of `table` and the job that moves it, in one statement where the database
 * can (Driver.insertWithJob); returns the row as stored.
 */
export async function insertWithJob<T extends SQLiteTable>(
  db: Db,
  table: T,
  values: T['$inferInsert'],
  job: NewJob,
): Promise<T['$inferSelect']> {
  const row = await db.driver.insertWithJob(db, table, values as Record<string, unknown>, job)
  await lowerDueAt(db, job)
  return row as T['$inferSelect']
}

/** The tenant's earliest due instant in memory, lowered to a job just written. */
async function lowerDueAt(db: Db, job: Pick<NewJob, 'tenantId' | 'dueAt'>): Promise<void> {
  // the index from memory once loaded: no second await on a create's path
  const earliest = (loadedDueIndex(db) ?? (await dueIndex(db))).byTenant
  const current = earliest.get(job.tenantId)
  if (current === undefined || job.dueAt < current) earliest.set(job.tenantId, job.dueAt)
}

type DueIndex = {
  byTenant: Map<string, number>
  othersCommits: number
  /** With replicas, the clocks of the tenants in byTenant as last read (announced when they change). */
  clocks: Map<string, TenantClock>
}

const dueIndexes = new WeakMap<object, DueIndex>()
const connectionOf = (db: Db) => db.driver.connection(db)

const earliestPerTenant = statement((db, t) =>
  db
    .select({ tenantId: t.jobs.tenantId, dueAt: min(t.jobs.dueAt) })
    .from(t.jobs)
    .groupBy(t.jobs.tenantId)
    .prepare(),
)

const earliestOfTenant = statement((db, t) =>
  db
    .select({ dueAt: min(t.jobs.dueAt) })
    .from(t.jobs)
    .where(eq(t.jobs.tenantId, sql.placeholder('tenant')))
    .prepare(),
)

/**
 * The tenant's earliest due instant from memory, without waiting (the request path asks on every
 * request): undefined, no job; null, the index is not loaded yet (dueAt loads it).
 */
export function dueAtInMemory(db: Db, tenantId: string): number | undefined | null {
  if (storeIsShared(db)) return null
  const index = loadedDueIndex(db)
  return index ? index.byTenant.get(tenantId) : null
}

/** The connection's due index if it is loaded. */
const loadedDueIndex = (db: Db): DueIndex | undefined => dueIndexes.get(connectionOf(db))

async function dueIndex(db: Db): Promise<DueIndex> {
  let index = loadedDueIndex(db)
  if (!index) dueIndexes.set(connectionOf(db), (index = await loadDueIndex(db)))
  return index
}

async function loadDueIndex(db: Db): Promise<DueIndex> {
  const replicas = db.driver.replicas
  if (replicas) {
    const index: DueIndex = { byTenant: new Map(), othersCommits: 0, clocks: new Map() }
    for (const row of await replicas.earliestDue(db)) setEarliest(index, row)
    return index
  }
  const othersCommits = await commitsOfOthers(db)
  const byTenant = new Map<string, number>()
  for (const row of await earliestPerTenant(db).all()) byTenant.set(row.tenantId, row.dueAt!)
  return { byTenant, othersCommits, clocks: new Map() }
}

/** A tenant's earliest due instant and clock as read; left out when it cannot fall due by itself. */
function setEarliest(
  index: DueIndex,
  row: { tenantId: string; dueAt: number | null; clock: TenantClock },
): void {
  if (row.dueAt === null || row.clock.clockMode !== 'real') {
    index.byTenant.delete(row.tenantId)
    index.clocks.delete(row.tenantId)
  } else {
    index.byTenant.set(row.tenantId, row.dueAt)
    index.clocks.set(row.tenantId, row.clock)
  }
}

/**
 * The tenant's earliest due instant on its sandbox clock, from memory (from the table when
 * replicas share the store: another one may have written a job since); undefined: no job.
 */
export async function dueAt(db: Db, tenantId: string): Promise<number | undefined> {
  if (storeIsShared(db)) return await nextDueAt(db, tenantId)
  return (await dueIndex(db)).byTenant.get(tenantId)
}

/** The tenant's earliest due instant, read from the table (run-until-idle walks it job by job). */
export async function nextDueAt(db: Db, tenantId: string): Promise<number | undefined> {
  return (await earliestOfTenant(db).get({ tenant: tenantId }))?.dueAt ?? undefined
}

/**
 * Every tenant with a job, its earliest due instant, and (with replicas) its clock as last read,
 * by which the tick tells without SQL that it is not due yet (a copy: the caller may run jobs).
 */
export async function dueInstants(
  db: Db,
): Promise<[tenantId: string, dueAt: number, clock: TenantClock | undefined][]> {
  const index = await dueIndex(db)
  return [...index.byTenant].map(([id, at]) => [id, at, index.clocks.get(id)])
}

/**
 * Reads the tenant's earliest due instant from the table again, after its due jobs ran (or its
 * clock started to run). Not inside a transaction, whose deletes may yet roll back.
 */
export async function refreshDueAt(db: Db, tenantId: string): Promise<void> {
  if (inTransaction(db)) return
  const earliest = await nextDueAt(db, tenantId)
  if (earliest === undefined) (await dueIndex(db)).byTenant.delete(tenantId)
  else (await dueIndex(db)).byTenant.set(tenantId, earliest)
}

/** Leaves a tenant out until a job is written for it again (or refreshDueAt): a retired id, a stopped clock. */
export async function forgetDueAt(db: Db, tenantId: string): Promise<void> {
  const index = await dueIndex(db)
  index.byTenant.delete(tenantId)
  index.clocks.delete(tenantId)
}

/**
 * Loads every tenant's earliest due instant again when another connection has committed since;
 * with replicas, applies what they announced instead (announced.ts).
 */
export async function reloadDueAtIfOthersWrote(db: Db): Promise<void> {
  const replicas = db.driver.replicas
  if (replicas) return await applyAnnounced(db, replicas)
  const connection = connectionOf(db)
  const index = dueIndexes.get(connection)
  if (index && index.othersCommits !== (await commitsOfOthers(db)))
    dueIndexes.set(connection, await loadDueIndex(db))
}

const remove = statement((db, t) =>
  db
    .delete(t.jobs)
    .where(eq(t.jobs.seq, sql.placeholder('seq')))
    .prepare(),
)

export async function deleteJob(db: Db, seq: number): Promise<void> {
  await remove(db).run({ seq })
}

const cancel = statement((db, t) =>
  db
    .delete(t.jobs)
    .where(
      and(
        eq(t.jobs.tenantId, sql.placeholder('tenant')),
        eq(t.jobs.resource, sql.placeholder('resource')),
        eq(t.jobs.resourceSeq, sql.placeholder('seq')),
        ne(t.jobs.action, FILL_DETAILS),
      ),
    )
    .prepare(),
)

/** Deletes the pending moves of a resource's row `seq` (its details still arrive: `fill_details` stays). */
export async function cancelMoves(
  db: Db,
  tenantId: string,
  resource: string,
  seq: number,
): Promise<void> {
  await cancel(db).run({ tenant: tenantId, resource, seq })
}

const scheduled = statement((db, t) =>
  db
    .select()
    .from(t.jobs)
    .where(eq(t.jobs.tenantId, sql.placeholder('tenant')))
    .orderBy(asc(t.jobs.dueAt), asc(t.jobs.seq))
    .limit(sql.placeholder('limit'))
    .prepare(),
)

/** The tenant's first `limit` jobs, soonest first. */
export async function scheduledJobs(db: Db, tenantId: string, limit: number): Promise<Job[]> {
  return await scheduled(db).all({ tenant: tenantId, limit })
}

/**
 * The due index with what was announced: jobs written lower their tenants' earliest instants (no
 * SQL); tenants whose clock changed, and those whose clock is not known yet, are read again (one
 * statement for all); everything announced (the start, the slow poll), the whole index.
 */
async function applyAnnounced(db: Db, replicas: Replicas): Promise<void> {
  const announced = announcedOf(db)
  const connection = connectionOf(db)
  if (announced.everything || !dueIndexes.has(connection)) {
    announced.everything = false
    announced.jobs.clear()
    announced.tenants.clear()
    dueIndexes.set(connection, await loadDueIndex(db))
    return
  }
  const index = dueIndexes.get(connection)!
  for (const [tenantId, dueAt] of announced.jobs) {
    const current = index.byTenant.get(tenantId)
    if (current === undefined || dueAt < current) index.byTenant.set(tenantId, dueAt)
  }
  announced.jobs.clear()
  const stale = new Set(announced.tenants)
  announced.tenants.clear()
  for (const tenantId of index.byTenant.keys()) if (!index.clocks.has(tenantId)) stale.add(tenantId)
  if (stale.size === 0) return
  const read = await replicas.earliestDue(db, [...stale])
  for (const tenantId of stale) {
    index.byTenant.delete(tenantId)
    index.clocks.delete(tenantId)
  }
  for (const row of read) setEarliest(index, row)
}
