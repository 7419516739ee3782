/**
 * The jobs table (PRODUCT §6, §10): what moves by itself, one row per scheduled move, due at an
 * instant of its tenant's sandbox clock. Beside it, in memory, each tenant's earliest due
 * instant (dueAt), so that the tick and a request know without SQL whether a tenant has work
 * due: loaded from the table at first use, lowered by every job written here, and read again
 * for a tenant once its due jobs have run (refreshDueAt). It may say earlier than the table
 * (a job cancelled, or written in a transaction that rolled back): that costs one empty run.
 * It never says later, except for jobs another connection wrote since it was loaded, which
 * reloadDueAtIfOthersWrote() (the tick) picks up.
 */
import { and, asc, eq, lte, min, ne, sql } from 'drizzle-orm'
import type { Db } from '../db/open.js'
import { jobs, type Job } from '../db/schema.js'
import { insertRow } from './rows.js'
import { commitsOfOthers, connectionOf, inTransaction, statement } from './statements.js'

export function insertJob(db: Db, job: typeof jobs.$inferInsert): void {
  insertRow(db, jobs, job)
  const earliest = dueIndex(db).byTenant
  const current = earliest.get(job.tenantId)
  if (current === undefined || job.dueAt < current) earliest.set(job.tenantId, job.dueAt)
}

type DueIndex = { byTenant: Map<string, number>; othersCommits: number }

const dueIndexes = new WeakMap<Db, DueIndex>()

const earliestPerTenant = statement((db) =>
  db
    .select({ tenantId: jobs.tenantId, dueAt: min(jobs.dueAt) })
    .from(jobs)
    .groupBy(jobs.tenantId)
    .prepare(),
)

const earliestOfTenant = statement((db) =>
  db
    .select({ dueAt: min(jobs.dueAt) })
    .from(jobs)
    .where(eq(jobs.tenantId, sql.placeholder('tenant')))
    .prepare(),
)

function dueIndex(db: Db): DueIndex {
  const connection = connectionOf(db)
  let index = dueIndexes.get(connection)
  if (!index) dueIndexes.set(connection, (index = loadDueIndex(db)))
  return index
}

function loadDueIndex(db: Db): DueIndex {
  const othersCommits = commitsOfOthers(db)
  const byTenant = new Map<string, number>()
  for (const row of earliestPerTenant(db).all()) byTenant.set(row.tenantId, row.dueAt!)
  return { byTenant, othersCommits }
}

/** The tenant's earliest due instant on its sandbox clock, from memory; undefined: no job. */
export function dueAt(db: Db, tenantId: string): number | undefined {
  return dueIndex(db).byTenant.get(tenantId)
}

/** The tenant's earliest due instant, read from the table (run-until-idle walks it job by job). */
export function nextDueAt(db: Db, tenantId: string): number | undefined {
  return earliestOfTenant(db).get({ tenant: tenantId })?.dueAt ?? undefined
}

/** Every tenant with a job, and its earliest due instant (a copy: the caller may run jobs). */
export function dueInstants(db: Db): [tenantId: string, dueAt: number][] {
  return [...dueIndex(db).byTenant]
}

/**
 * Reads the tenant's earliest due instant from the table again, after its due jobs ran (or its
 * clock started to run). Not inside a transaction, whose deletes may yet roll back.
 */
export function refreshDueAt(db: Db, tenantId: string): void {
  if (inTransaction(db)) return
  const earliest = nextDueAt(db, tenantId)
  if (earliest === undefined) dueIndex(db).byTenant.delete(tenantId)
  else dueIndex(db).byTenant.set(tenantId, earliest)
}

/** Leaves a tenant out until a job is written for it again (or refreshDueAt): a retired id, a stopped clock. */
export function forgetDueAt(db: Db, tenantId: string): void {
  dueIndex(db).byTenant.delete(tenantId)
}

/** Loads every tenant's earliest due instant again when another connection has committed since. */
export function reloadDueAtIfOthersWrote(db: Db): void {
  const connection = connectionOf(db)
  const index = dueIndexes.get(connection)
  if (index && index.othersCommits !== commitsOfOthers(db))
    dueIndexes.set(connection, loadDueIndex(db))
}

const due = statement((db) =>
  db
    .select()
    .from(jobs)
    .where(
      and(eq(jobs.tenantId, sql.placeholder('tenant')), lte(jobs.dueAt, sql.placeholder('until'))),
    )
    .orderBy(asc(jobs.dueAt), asc(jobs.seq))
    .limit(sql.placeholder('limit'))
    .prepare(),
)

/** The tenant's first `limit` jobs due at or before `until`, in the order they run. */
export function dueJobs(db: Db, tenantId: string, until: number, limit: number): Job[] {
  return due(db).all({ tenant: tenantId, until, limit })
}

const remove = statement((db) =>
  db
    .delete(jobs)
    .where(eq(jobs.seq, sql.placeholder('seq')))
    .prepare(),
)

export function deleteJob(db: Db, seq: number): void {
  remove(db).run({ seq })
}

const cancel = statement((db) =>
  db
    .delete(jobs)
    .where(
      and(
        eq(jobs.tenantId, sql.placeholder('tenant')),
        eq(jobs.resource, sql.placeholder('resource')),
        eq(jobs.key, sql.placeholder('key')),
        ne(jobs.action, 'fill_details'),
      ),
    )
    .prepare(),
)

/** Deletes a resource's pending moves (its details still arrive: `fill_details` stays). */
export function cancelMoves(db: Db, tenantId: string, resource: string, key: string): void {
  cancel(db).run({ tenant: tenantId, resource, key })
}

const scheduled = statement((db) =>
  db
    .select()
    .from(jobs)
    .where(eq(jobs.tenantId, sql.placeholder('tenant')))
    .orderBy(asc(jobs.dueAt), asc(jobs.seq))
    .limit(sql.placeholder('limit'))
    .prepare(),
)

/** The tenant's first `limit` jobs, soonest first. */
export function scheduledJobs(db: Db, tenantId: string, limit: number): Job[] {
  return scheduled(db).all({ tenant: tenantId, limit })
}
