/**
 * The jobs table (PRODUCT §6, §10): what moves by itself, one row per scheduled move, due at an
 * instant of its tenant's sandbox clock.
 */
import { and, asc, eq, lte, ne, sql } from 'drizzle-orm'
import type { Db } from '../db/open.js'
import { jobs, tenants, type Job } from '../db/schema.js'
import { insertRow } from './rows.js'
import { statement } from './statements.js'

export function insertJob(db: Db, job: typeof jobs.$inferInsert): void {
  insertRow(db, jobs, job)
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

/** Tenants on a real clock with something due now (their clocks computed in SQL). */
export function realTenantsWithDueJobs(db: Db, wallNow: number, speed: number): string[] {
  const now = sql`CASE ${tenants.clockMode} WHEN 'manual' THEN ${tenants.clockAnchorMs}
    ELSE ${tenants.clockAnchorMs} + CAST((${wallNow} - ${tenants.clockWallMs}) * ${speed} AS INTEGER) END`
  return db
    .selectDistinct({ id: tenants.id })
    .from(tenants)
    .innerJoin(jobs, eq(jobs.tenantId, tenants.id))
    .where(and(eq(tenants.clockMode, 'real'), sql`${jobs.dueAt} <= ${now}`))
    .all()
    .map((row) => row.id)
}
