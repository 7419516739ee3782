/**
 * Disputes (SPEC §2.8, §4.5; PRODUCT §5): opened on a transaction through the control plane,
 * submitted by the update endpoint with the business's explanation, resolved won or lost.
 */
import type { Dispute } from '../db/schema.js'
import {
  disputeByReference,
  disputePages,
  insertDispute,
  unresolvedDisputeOn,
  updateDispute as updateDisputeRow,
} from '../store/disputes.js'
import type { Page, PageOf } from '../store/rows.js'
import { atomically } from '../store/statements.js'
import type { DomainContext } from './context.js'
import { SandboxError, notFound, refused } from './errors.js'
import { LIFECYCLES, assertMove } from './lifecycles.js'
import { findTransaction } from './transactions.js'

/** *(SDK)* the reasons the service's client libraries know. */
export { DISPUTE_REASONS } from '../db/values.js'
import type { DISPUTE_REASONS } from '../db/values.js'

export type DisputeReason = (typeof DISPUTE_REASONS)[number]

/**
 * Opens a dispute on a transaction (control plane, or POST /v1/disputes/create with the
 * business's explanation): `open`. One at a time per transaction: while one is open or
 * submitted, another is a 409 (PRODUCT §5).
 */
export function openDispute(
  ctx: DomainContext,
  input: { transactionSlug: string; reason: DisputeReason; explanation?: string },
  field = 'transaction_slug',
): Promise<Dispute> {
  return atomically(ctx, async (ctx) => {
    await findTransaction(ctx, input.transactionSlug, field)
    const pending = await unresolvedDisputeOn(ctx.db, ctx.tenant.id, input.transactionSlug)
    if (pending !== undefined) {
      const message = `The transaction already has an open dispute (${pending}).`
      throw new SandboxError('invalid_transition', message, { errors: { [field]: [message] } })
    }
    return await insertDispute(ctx.db, {
      reference: ctx.ids.uuid(),
      tenantId: ctx.tenant.id,
      transactionSlug: input.transactionSlug,
      reason: input.reason,
      explanation: input.explanation,
      status: LIFECYCLES.dispute.initial,
      createdAt: ctx.now,
      updatedAt: ctx.now,
    })
  })
}

export async function findDispute(
  ctx: DomainContext,
  reference: string,
  field = 'reference',
): Promise<Dispute> {
  const dispute = await disputeByReference(ctx.db, ctx.tenant.id, reference)
  if (!dispute) throw notFound(field, 'dispute', reference)
  return dispute
}

export function listDisputes(ctx: DomainContext, page: Page): Promise<PageOf<Dispute>> {
  return disputePages(ctx.db, ctx.tenant.id, page)
}

/**
 * Submits the explanation: open → submitted. A submitted dispute may have its explanation
 * updated again (a retried request must not fail); a resolved one is refused (409).
 */
export function updateDispute(
  ctx: DomainContext,
  reference: string,
  input: { transactionSlug: string; explanation: string; reason?: DisputeReason },
  field = 'transaction_slug',
): Promise<Dispute> {
  return atomically(ctx, async (ctx) => {
    const dispute = await findDispute(ctx, reference)
    if (dispute.transactionSlug !== input.transactionSlug) {
      throw refused(field, 'The dispute was not opened on this transaction.')
    }
    if (dispute.status !== 'submitted') assertMove('dispute', dispute.status, 'submitted')
    return await setDispute(ctx, dispute, {
      status: 'submitted',
      explanation: input.explanation,
      ...(input.reason !== undefined && { reason: input.reason }),
    })
  })
}

export async function setDisputeStatus(
  ctx: DomainContext,
  dispute: Dispute,
  to: Dispute['status'],
): Promise<Dispute> {
  assertMove('dispute', dispute.status, to)
  return await setDispute(ctx, dispute, { status: to })
}

function setDispute(
  ctx: DomainContext,
  dispute: Dispute,
  changes: Partial<Dispute>,
): Promise<Dispute> {
  return updateDisputeRow(ctx.db, dispute.seq, { ...changes, updatedAt: ctx.now })
}
