/**
 * Runs due jobs (PRODUCT §6). Advancing a manual clock runs everything that falls due, in
 * order of due time, before the advance returns; a real clock is served by the tick
 * (runDueOnRealClocks) and by a catch-up before each request, so a client never reads a state
 * that should have moved. Both know from each tenant's earliest due instant, kept in memory
 * (store/jobs.ts dueAt), whether there is anything to run, and the tenant's "now" comes from
 * the one clock formula (domain/clock.ts, through the tenant directory). Each job runs at its
 * own due time on the tenant's clock. A job whose move is no longer legal (someone moved the
 * resource first) is dropped. Each job that did something is a line on the console (`event`).
 */
import { FILL_DETAILS } from '../db/values.js'
import type { Db } from '../store/driver.js'
import type { Job, Tenant } from '../db/schema.js'
import { fillLinkedCardDetails } from '../domain/cards.js'
import type { DomainContext } from '../domain/context.js'
import { SandboxError } from '../domain/errors.js'
import type { Ids } from '../domain/ids.js'
import type { TransitionResource } from '../domain/lifecycles.js'
import type { TenantDirectory } from '../domain/tenants.js'
import { movesAsSet, moveAsSet, type SetResource } from '../domain/moves-in-sets.js'
import { transition, type TransitionResult } from '../domain/transitions.js'
import { expiredWalletCode } from '../domain/wallet-codes.js'
import type { Logger } from '../lib/logger.js'
import { setImmediate } from 'node:timers'
import {
  dueAt,
  dueAtInMemory,
  dueInstants,
  forgetDueAt,
  nextDueAt,
  refreshDueAt,
  reloadDueAtIfOthersWrote,
} from '../store/jobs.js'
import { claimDueJobs } from '../store/due-sets.js'
import { atomically } from '../store/statements.js'
import { stampsOf } from '../store/tenants.js'

/**
 * How many jobs one set runs at most: each of its statements reads or writes at most this many
 * rows (an outbox insert, an update), whatever the slice.
 */
export const DUE_SET_JOBS = 100

export type SchedulerDeps = {
  db: Db
  ids: Ids
  options: { webhookExtensions: boolean; quirks: boolean }
  logger: Logger
}

/**
 * What a run of due jobs did: how many jobs ran, and the events of those that did something;
 * how many slices (transactions) it took, and how many sets of jobs ran together.
 */
export type DueRun = { ran: number; fired: FiredJob[]; slices: number; sets: number }

/** A job that did something: when (the tenant clock) and what, as the console's JSON line says. */
export type FiredJob = { at: number } & Record<string, unknown>

/**
 * Runs the tenant's jobs due at or before `until`, each at its own due time, in slices of
 * the driver's dueSliceJobs, a transaction each; between two slices the event loop is let go
 * (other tenants' requests are served), so a long advance holds the database for one slice at
 * a time. A slice claims its jobs (reads and deletes them in one
 * statement) inside the transaction that runs them: two runs of one tenant at once (two
 * requests catching up) take turns, and the second finds only what the first left. With
 * replicas, the claimed rows stay locked by that transaction until it ends (or its process
 * dies, which gives them back); `unclaimed` (the tick) leaves jobs another replica holds to it
 * instead of waiting for them. Within a slice, consecutive jobs that move resources of one kind
 * run as a set (domain/moves-in-sets.ts); the others one by one. Returns once nothing due is
 * left; the console hears of a slice's jobs once it has committed.
 */
export async function runDue(
  deps: SchedulerDeps,
  tenant: Tenant,
  until: number,
  { unclaimed = false } = {},
): Promise<DueRun> {
  const run: DueRun = { ran: 0, fired: [], slices: 0, sets: 0 }
  for (;;) {
    const slice = await atomically(deps, (deps) => runSlice(deps, tenant, until, unclaimed))
    if (slice.ran === 0) {
      await refreshDueAt(deps.db, tenant.id)
      return run
    }
    run.ran += slice.ran
    run.slices++
    run.sets += slice.sets
    for (const { job, happened } of slice.happened) {
      // not `{ ...happened, tenant, … }` (ARCHITECTURE.md, "Objects on a request's path")
      deps.logger.log(Object.assign({}, happened, { tenant: tenant.token, sandboxTime: job.dueAt }))
      run.fired.push({ at: job.dueAt, ...happened.fields })
    }
    await new Promise((resolve) => setImmediate(resolve))
  }
}

type Slice = {
  ran: number
  sets: number
  happened: { job: Job; happened: BackgroundEvent }[]
}

/** Claims and runs one slice of due jobs, in the transaction `deps` is the handle of. */
async function runSlice(
  deps: SchedulerDeps,
  tenant: Tenant,
  until: number,
  unclaimed: boolean,
): Promise<Slice> {
  const due = await claimDueJobs(deps.db, tenant.id, until, unclaimed)
  const slice: Slice = { ran: due.length, sets: 0, happened: [] }
  const context = (now: number): DomainContext => ({
    db: deps.db,
    ids: deps.ids,
    tenant,
    now,
    quirks: deps.options.quirks,
    webhookExtensions: deps.options.webhookExtensions,
  })
  for (const run of runsOf(due)) {
    const first = run[0]
    if (!inSet(first)) {
      const happened = await runJob(context(first.dueAt), first)
      if (happened) slice.happened.push({ job: first, happened })
      continue
    }
    slice.sets++
    const moves = run.map((job) => ({
      key: job.key,
      seq: job.resourceSeq!,
      to: job.action,
      now: job.dueAt,
    }))
    const results = await moveAsSet(context(first.dueAt), first.resource, moves)
    results.forEach((result, i) => {
      if (result) slice.happened.push({ job: run[i], happened: moved(result) })
    })
  }
  return slice
}

/** Whether a job runs in a set with its neighbours of the same kind: a status move of such a resource. */
function inSet(job: Job): job is Job & { resource: SetResource; resourceSeq: number } {
  return movesAsSet(job.resource) && job.action !== FILL_DETAILS && job.resourceSeq !== null
}

/**
 * The jobs of a slice cut into runs, in order: consecutive jobs that move resources of one kind,
 * at most DUE_SET_JOBS, each resource once (a second move of one resource runs after the
 * first, as it would job by job); every other job a run of its own.
 */
export function runsOf(due: Job[]): Job[][] {
  const runs: Job[][] = []
  let current: Job[] = []
  let keys = new Set<string>()
  for (const job of due) {
    const joins =
      current.length > 0 &&
      current.length < DUE_SET_JOBS &&
      inSet(job) &&
      inSet(current[0]) &&
      job.resource === current[0].resource &&
      !keys.has(job.key)
    if (!joins) {
      if (current.length > 0) runs.push(current)
      current = []
      keys = new Set()
    }
    current.push(job)
    keys.add(job.key)
  }
  if (current.length > 0) runs.push(current)
  return runs
}

type BackgroundEvent = { event: 'event'; text: string; fields: Record<string, unknown> }

/** Runs one claimed job; what it did, for the console, or nothing when it had nothing left to do. */
async function runJob(ctx: DomainContext, job: Job): Promise<BackgroundEvent | undefined> {
  try {
    return await atomically(ctx, async (ctx) => {
      if (job.action === FILL_DETAILS) {
        await fillLinkedCardDetails(ctx, job.key)
        return background('card', job.key, 'details filled (number, cvv2, expiry)')
      }
      if (job.resource === 'wallet-codes') {
        const code = await expiredWalletCode(ctx, job.key)
        return code && background('wallet_code', `${code.network} ${code.phone}`, 'expired unused')
      }
      return moved(await transition(ctx, job.resource as TransitionResource, job.key, job.action))
    })
  } catch (error) {
    // moved or deleted meanwhile: the job has nothing left to do
    if (
      error instanceof SandboxError &&
      (error.code === 'invalid_transition' || error.code === 'not_found')
    )
      return undefined
    throw error
  }
}

/** What a move means to a person reading the console, where a word says it better than a state. */
const MEANING: Record<string, string> = {
  'card_user:passed': 'verified',
  'card_user:failed': 'verification failed',
  'card:failed': 'issuing failed',
  'transaction:success': 'settled',
  'transaction:failed': 'failed (money back)',
  'disburse:success': 'settled',
  'disburse:failed': 'failed (money back)',
  'payment:expired': 'expired unpaid',
}

function moved({ resource, key, from, to }: TransitionResult): BackgroundEvent {
  const meaning = MEANING[`${resource}:${to}`]
  const what = `${from} → ${to}${meaning ? ` (${meaning})` : ''}`
  return {
    event: 'event',
    text: `${resource} ${key} ${what}`,
    fields: { resource, reference: key, from, to, ...(meaning && { meaning }) },
  }
}

function background(resource: string, reference: string, what: string): BackgroundEvent {
  return {
    event: 'event',
    text: `${resource} ${reference} ${what}`,
    fields: { resource, reference, what },
  }
}

/** How many jobs one run until idle may run; past it, it stops (RunawayJobs). */
export const MAX_IDLE_RUN_JOBS = 50_000

export class RunawayJobs extends Error {}

/**
 * Run until idle (`POST /__sandbox/clock/run-due`): moves the tenant's clock to its next due job
 * and runs what is due then, again and again, until no job is left or the next one is after
 * `until`; then, with `until`, the clock ends at `until`. Only jobs extend the run: webhook
 * retries are not jobs, and those due by the last instant are attempted as after an advance.
 * Throws RunawayJobs once more than MAX_IDLE_RUN_JOBS have run (the work done stays done).
 */
export async function runUntilIdle(
  deps: SchedulerDeps & { tenants: TenantDirectory },
  token: string,
  until?: number,
  maxJobs = MAX_IDLE_RUN_JOBS,
): Promise<{ tenant: Tenant; ran: number; fired: FiredJob[] }> {
  let tenant = (await deps.tenants.forToken(token))!
  let ran = 0
  const fired: FiredJob[] = []
  for (;;) {
    const now = deps.tenants.now(tenant)
    const next = await nextDueAt(deps.db, tenant.id)
    if (next === undefined || (until !== undefined && next > until)) break
    if (next > now) tenant = await deps.tenants.advance(token, next - now)
    const run = await runDue(deps, tenant, Math.max(next, now))
    ran += run.ran
    fired.push(...run.fired)
    if (ran > maxJobs)
      throw new RunawayJobs(
        `More than ${maxJobs} jobs ran without the tenant going idle; the clock stands ` +
          `at ${new Date(deps.tenants.now(tenant)).toISOString()}. Run it again, or pass an until.`,
      )
  }
  const now = deps.tenants.now(tenant)
  if (until !== undefined && until > now) tenant = await deps.tenants.advance(token, until - now)
  return { tenant, ran, fired }
}

/**
 * Before a request of a real-clock tenant: run what fell due since the last tick. Nothing to
 * wait for (undefined) unless something fell due, or memory does not know (the due index is not
 * loaded yet; with replicas, it is read from the table).
 */
export function catchUp(
  deps: SchedulerDeps,
  tenant: Tenant,
  now: number,
): Promise<unknown> | undefined {
  if (tenant.clockMode !== 'real') return undefined
  const runIfDue = (earliest: number | undefined) =>
    earliest !== undefined && earliest <= now ? runDue(deps, tenant, now) : undefined
  // a shared store's tenant was read with its earliest due instant (store/tenants.ts stampsOf)
  const stamps = stampsOf(tenant)
  const earliest = stamps ? (stamps.dueAt ?? undefined) : dueAtInMemory(deps.db, tenant.id)
  return earliest === null ? dueAt(deps.db, tenant.id).then(runIfDue) : runIfDue(earliest)
}

/**
 * The tick's part (PRODUCT §6): runs what fell due for every tenant on a real clock. A tenant
 * whose clock stands still, or a reset tenant's old id, is left out until a job is written for
 * it again (the tenant directory puts a clock that starts to run back in). With replicas, a tick
 * with nothing due asks SQL nothing (store/announced.ts).
 */
export async function runDueOnRealClocks(
  deps: SchedulerDeps & { tenants: TenantDirectory },
): Promise<void> {
  await reloadDueAtIfOthersWrote(deps.db)
  for (const [tenantId, earliest, clock] of await dueInstants(deps.db)) {
    // with replicas, the clock as last read says it is not due yet (a change to it is announced)
    if (clock && earliest > deps.tenants.now(clock)) continue
    const tenant = await deps.tenants.byId(tenantId)
    if (!tenant || tenant.clockMode !== 'real') {
      await forgetDueAt(deps.db, tenantId)
      continue
    }
    const now = deps.tenants.now(tenant)
    if (earliest <= now) await runDue(deps, tenant, now, { unclaimed: true })
  }
}
