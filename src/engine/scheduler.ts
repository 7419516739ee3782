/**
 * Runs due jobs (PRODUCT §6). Advancing a manual clock runs everything that falls due, in
 * order of due time, before the advance returns; a real clock is served by a tick and by a
 * catch-up before each request, so a client never reads a state that should have moved. Each
 * job runs in its own SQLite transaction at its own due time on the tenant's clock. A job whose
 * move is no longer legal (someone moved the resource first) is dropped.
 */
import type { Db } from '../db/open.js'
import type { Job, Tenant } from '../db/schema.js'
import { fillLinkedCardDetails } from '../domain/cards.js'
import type { DomainContext } from '../domain/context.js'
import { SandboxError } from '../domain/errors.js'
import type { Ids } from '../domain/ids.js'
import type { TransitionResource } from '../domain/lifecycles.js'
import { transition } from '../domain/transitions.js'
import { deleteJob, dueJobs } from '../store/jobs.js'
import { atomically } from '../store/statements.js'

const BATCH = 500

export type SchedulerDeps = { db: Db; ids: Ids; options: { webhookExtensions: boolean } }

/** Runs the tenant's jobs due at or before `until`; returns how many ran. */
export function runDue(deps: SchedulerDeps, tenant: Tenant, until: number): number {
  let ran = 0
  for (;;) {
    const due = dueJobs(deps.db, tenant.id, until, BATCH)
    if (due.length === 0) return ran
    atomically(deps.db, () => {
      for (const job of due) {
        const ctx = { db: deps.db, ids: deps.ids, tenant, now: job.dueAt }
        runJob({ ...ctx, webhookExtensions: deps.options.webhookExtensions }, job)
      }
    })
    ran += due.length
  }
}

function runJob(ctx: DomainContext, job: Job): void {
  deleteJob(ctx.db, job.seq)
  try {
    atomically(ctx.db, () => {
      if (job.action === 'fill_details') fillLinkedCardDetails(ctx, job.key)
      else transition(ctx, job.resource as TransitionResource, job.key, job.action)
    })
  } catch (error) {
    // moved or deleted meanwhile: the job has nothing left to do
    if (
      error instanceof SandboxError &&
      (error.code === 'invalid_transition' || error.code === 'not_found')
    )
      return
    throw error
  }
}

/** Before a request of a real-clock tenant: run what fell due since the last tick. */
export function catchUp(deps: SchedulerDeps, tenant: Tenant, now: number): void {
  if (tenant.clockMode === 'real' && hasDue(deps.db, tenant.id, now)) runDue(deps, tenant, now)
}

/** True when the tenant has a job due at or before `until` (an indexed probe, cheap per request). */
export function hasDue(db: Db, tenantId: string, until: number): boolean {
  return dueJobs(db, tenantId, until, 1).length > 0
}

/** Starts the real-clock tick: every `everyMs` of wall time, runs what fell due. */
export function startTicker(run: () => void, everyMs = 100): () => void {
  const timer = setInterval(() => {
    try {
      run()
    } catch (error) {
      console.error('card-sandbox: scheduler tick failed', error)
    }
  }, everyMs)
  timer.unref()
  return () => clearInterval(timer)
}
