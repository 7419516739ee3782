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
import type { Db } from '../db/open.js'
import type { Job, Tenant } from '../db/schema.js'
import { fillLinkedCardDetails } from '../domain/cards.js'
import type { DomainContext } from '../domain/context.js'
import { SandboxError } from '../domain/errors.js'
import type { Ids } from '../domain/ids.js'
import type { TransitionResource } from '../domain/lifecycles.js'
import type { TenantDirectory } from '../domain/tenants.js'
import { transition, type TransitionResult } from '../domain/transitions.js'
import { expiredWalletCode } from '../domain/wallet-codes.js'
import type { Logger } from '../lib/logger.js'
import {
  deleteJob,
  dueAt,
  dueAtInMemory,
  dueInstants,
  dueJobs,
  forgetDueAt,
  nextDueAt,
  refreshDueAt,
  reloadDueAtIfOthersWrote,
} from '../store/jobs.js'
import { atomically } from '../store/statements.js'

const BATCH = 500

export type SchedulerDeps = {
  db: Db
  ids: Ids
  options: { webhookExtensions: boolean; quirks: boolean }
  logger: Logger
}

/** What a run of due jobs did: how many jobs ran, and the events of those that did something. */
export type DueRun = { ran: number; fired: FiredJob[] }

/** A job that did something: when (the tenant clock) and what, as the console's JSON line says. */
export type FiredJob = { at: number } & Record<string, unknown>

/**
 * Runs the tenant's jobs due at or before `until`, each at its own due time, a batch a
 * transaction. Each batch is read inside the transaction that runs and deletes it: two runs of
 * one tenant at once (two requests catching up) take turns, and the second finds only what the
 * first left. With replicas, the batch's rows are locked by that transaction (its claim, let go
 * when it ends or its process dies); `unclaimed` (the tick) leaves jobs another replica holds
 * to it instead of waiting for them.
 */
export async function runDue(
  deps: SchedulerDeps,
  tenant: Tenant,
  until: number,
  { unclaimed = false } = {},
): Promise<DueRun> {
  let ran = 0
  const fired: FiredJob[] = []
  for (;;) {
    const batch = await atomically(deps, async (deps) => {
      const due = await dueJobs(deps.db, tenant.id, until, BATCH, unclaimed)
      for (const job of due) {
        const ctx = {
          db: deps.db,
          ids: deps.ids,
          tenant,
          now: job.dueAt,
          quirks: deps.options.quirks,
          webhookExtensions: deps.options.webhookExtensions,
        }
        const happened = await runJob(ctx, job)
        if (!happened) continue
        // not `{ ...happened, tenant, … }` (ARCHITECTURE.md, "Objects on a request's path")
        deps.logger.log(
          Object.assign({}, happened, { tenant: tenant.token, sandboxTime: job.dueAt }),
        )
        fired.push({ at: job.dueAt, ...happened.fields })
      }
      return due.length
    })
    if (batch === 0) {
      await refreshDueAt(deps.db, tenant.id)
      return { ran, fired }
    }
    ran += batch
  }
}

type BackgroundEvent = { event: 'event'; text: string; fields: Record<string, unknown> }

/** Runs one job; what it did, for the console, or nothing when it had nothing left to do. */
async function runJob(ctx: DomainContext, job: Job): Promise<BackgroundEvent | undefined> {
  await deleteJob(ctx.db, job.seq)
  try {
    return await atomically(ctx, async (ctx) => {
      if (job.action === 'fill_details') {
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
  const earliest = dueAtInMemory(deps.db, tenant.id)
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
