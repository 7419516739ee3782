/**
 * What moves by itself, and when (PRODUCT §10): a resource's automatic next step is written as
 * a job row on the tenant's sandbox clock when the resource is created. engine/scheduler.ts
 * runs the rows that fall due. Default delays are seconds, so a developer can watch; each can
 * be overridden per tenant (`PUT /__sandbox/delays`).
 */
import type { ForcedOutcome } from './magic-values.js'
import type { NewJob } from '../store/driver.js'
import { insertJob } from '../store/jobs.js'
import type { DomainContext } from './context.js'
import type { TransitionResource } from './lifecycles.js'

export const DEFAULT_DELAYS_MS = {
  /** full-data card user: pending → passed */
  card_user_verification: 3_000,
  /** created card: issuing → issued */
  card_issuing: 5_000,
  /** linked card: number, cvv2 and expiry filled */
  card_link_details: 3_000,
  /** card-to-bank, card-to-wallet, wallet-to-card: pending → success */
  transaction_settlement: 5_000,
  /** disburse: processing → success */
  disburse_settlement: 5_000,
  /** payment: pending → an outcome forced by a scenario or a magic amount */
  payment_outcome: 5_000,
} as const

export type DelayName = keyof typeof DEFAULT_DELAYS_MS
export const DELAY_NAMES = Object.keys(DEFAULT_DELAYS_MS) as [DelayName, ...DelayName[]]

/** Defaults, then the scenarios' overrides, then the tenant's own (`PUT /__sandbox/delays`). */
export function delaysOf(
  ctx: Pick<DomainContext, 'tenant' | 'scenarioDelays'>,
): Record<DelayName, number> {
  return { ...DEFAULT_DELAYS_MS, ...ctx.scenarioDelays, ...ctx.tenant.delays } as Record<
    DelayName,
    number
  >
}

/** The job resources are the control plane's URL segments; `action` a state or `fill_details`. */
/**
 * Every resource that moves by itself (a dispute only ever waits for someone), and wallet codes,
 * whose expiry changes nothing stored but is a background event on the console.
 */
export type JobResource = Exclude<TransitionResource, 'disputes'> | 'wallet-codes'

/** A move to schedule: the resource's key (its reference) and its row (`seq`), and the action. */
export type ScheduledJob = { resource: JobResource; key: string; seq: number; action: string }

// scheduleAfter, scheduleAt and scheduleOutcome hand on insertJob's promise rather than await
// it: a create passes through all three, and each async level costs a promise and a turn of
// the microtask queue

export function scheduleAfter(
  ctx: DomainContext,
  delay: DelayName,
  job: ScheduledJob,
): Promise<void> {
  return scheduleAt(ctx, ctx.now + delaysOf(ctx)[delay], job)
}

export function scheduleAt(ctx: DomainContext, dueAt: number, job: ScheduledJob): Promise<void> {
  // not `{ ...job, tenantId, dueAt }` (ARCHITECTURE.md, "Objects on a request's path")
  const { resource, key, seq, action } = job
  return insertJob(ctx.db, {
    resource,
    key,
    resourceSeq: seq,
    action,
    tenantId: ctx.tenant.id,
    dueAt,
  })
}

/**
 * Schedules what a new resource does by itself, unless a scenario rule (`ctx.outcome`) or a
 * magic value forces another outcome: then that, after the forced or the usual delay. A job
 * without an action (a widget user, a payment) is only scheduled when an outcome is forced.
 */
export function scheduleOutcome(
  ctx: DomainContext,
  delay: DelayName,
  job: Omit<ScheduledJob, 'action'> & { action?: string },
  magic?: ForcedOutcome,
): Promise<void> {
  const outcome = outcomeJob(ctx, delay, job, magic)
  if (!outcome) return Promise.resolve()
  const { resource, key, seq } = job
  return scheduleAt(ctx, outcome.dueAt, { resource, key, seq, action: outcome.action })
}

/**
 * The job scheduleOutcome writes, for a resource not written yet (its row's `seq` to come):
 * undefined when none is to be written.
 */
export function outcomeJob(
  ctx: DomainContext,
  delay: DelayName,
  job: Pick<ScheduledJob, 'resource' | 'key'> & { action?: string },
  magic?: ForcedOutcome,
): NewJob | undefined {
  const forced = ctx.outcome ?? magic
  const action = forced ? forced.to : job.action
  if (!action) return undefined
  const dueAt = ctx.now + (forced?.afterMs ?? delaysOf(ctx)[delay])
  return { resource: job.resource, key: job.key, action, tenantId: ctx.tenant.id, dueAt }
}
