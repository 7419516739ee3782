/**
 * /v1/disputes (SPEC §4.5; the docs' "create dispute" and "update dispute"): open a dispute on a
 * transaction, submit the business's explanation, show one, list them. SPEC §2.8 shows `slug`
 * as an object holding `reference`, null in the example: quirks on reproduce the null, quirks
 * off carry the dispute's reference. A transaction is named by `transaction_slug`, or by
 * `transaction_reference` (the docs' older name): a slug, else a client reference.
 */
import { Hono } from 'hono'
import type { Dispute } from '../../db/schema.js'
import { findDispute, listDisputes, openDispute, updateDispute } from '../../domain/disputes.js'
import type { DomainContext } from '../../domain/context.js'
import { findTransaction, showTransaction } from '../../domain/transactions.js'
import type { AppEnv } from '../../wiring/env.js'
import {
  ok,
  okList,
  pageMeta,
  pageQuery,
  presenting,
  toPage,
  type Presenting,
} from '../envelope.js'
import { describeRoute, type RouteMeta } from '../route-meta.js'
import { sdkDisputeKeys } from '../sdk-compat.js'
import { validate } from '../validate.js'
import { createDisputeBody, updateDisputeBody } from './bodies.js'
import { referenceParam } from './schemas.js'
import { disputeChangeAnswer, listDisputesAnswer, showDisputeAnswer } from './answers.js'

/** The transaction a body names, and the field that named it (for a 404 or 409 naming it). */
async function namedTransaction(
  ctx: DomainContext,
  body: { transaction_slug?: string; transaction_reference?: string },
) {
  if (body.transaction_slug !== undefined) {
    const field = 'transaction_slug'
    return { field, transaction: await findTransaction(ctx, body.transaction_slug, field) }
  }
  const field = 'transaction_reference'
  return { field, transaction: await showTransaction(ctx, body.transaction_reference ?? '', field) }
}

export function disputeJson(dispute: Dispute, p: Presenting) {
  return {
    transaction_slug: dispute.transactionSlug,
    slug: { reference: p.quirks ? null : dispute.reference },
    status: dispute.status,
    reason: dispute.reason,
    explanation: dispute.explanation,
  }
}

/** The docs' create answer shows `slug` as the dispute's reference itself, a string. */
function createdDisputeJson(dispute: Dispute, p: Presenting) {
  const json = disputeJson(dispute, p)
  return p.quirks ? { ...json, slug: dispute.reference } : json
}

/** Each route's declaration (route-meta.ts): the handler answers 200 with its `message`. */
const meta = {
  create: {
    auth: 'bearer',
    summary: 'Create dispute',
    answer: disputeChangeAnswer,
    message: 'dispute successfully created!',
  },
  update: {
    auth: 'bearer',
    summary: 'Update dispute',
    answer: disputeChangeAnswer,
    message: 'Dispute updated successfully',
  },
  list: {
    auth: 'bearer',
    summary: 'List disputes',
    answer: listDisputesAnswer,
    message: 'Disputes fetched successfully',
  },
  show: { auth: 'bearer', summary: 'Show dispute', answer: showDisputeAnswer, message: 'OK' },
} satisfies Record<string, RouteMeta>

export const disputesApi = new Hono<AppEnv>()
  .post('/create', describeRoute(meta.create), validate('json', createDisputeBody), async (c) => {
    const body = c.req.valid('json')
    const ctx = c.get('ctx')
    const { field, transaction } = await namedTransaction(ctx, body)
    const dispute = await openDispute(
      ctx,
      { transactionSlug: transaction.slug, reason: body.reason, explanation: body.explanation },
      field,
    )
    return ok(c, meta.create.message, {
      data: [createdDisputeJson(dispute, presenting(c))],
    })
  })
  .post(
    '/update/:reference',
    describeRoute(meta.update),
    validate('param', referenceParam),
    validate('json', updateDisputeBody),
    async (c) => {
      const body = c.req.valid('json')
      const ctx = c.get('ctx')
      const { field, transaction } = await namedTransaction(ctx, body)
      const dispute = await updateDispute(
        ctx,
        c.req.valid('param').reference,
        { transactionSlug: transaction.slug, explanation: body.explanation, reason: body.reason },
        field,
      )
      return ok(c, meta.update.message, { data: [disputeJson(dispute, presenting(c))] })
    },
  )
  .get('/', describeRoute(meta.list), validate('query', pageQuery), (c) => {
    const asked = toPage(c.req.valid('query'))
    return okList(c, `disputes ${asked.page} ${asked.perPage}`, meta.list.message, async () => {
      const p = presenting(c)
      const ctx = c.get('ctx')
      const page = await listDisputes(ctx, asked)
      const data = []
      // with --sdk-compat, a lookup a row (a page holds at most 100); the page is cached
      for (const dispute of page.rows) {
        const transactionReference = p.sdkCompat
          ? (await findTransaction(ctx, dispute.transactionSlug)).reference
          : null
        data.push({
          ...disputeJson(dispute, p),
          ...sdkDisputeKeys(dispute, transactionReference, p),
        })
      }
      return { data, meta: pageMeta(page) }
    })
  })
  .get('/:reference', describeRoute(meta.show), validate('param', referenceParam), async (c) => {
    const ctx = c.get('ctx')
    const p = presenting(c)
    const dispute = await findDispute(ctx, c.req.valid('param').reference)
    const transactionReference = p.sdkCompat
      ? (await findTransaction(ctx, dispute.transactionSlug)).reference
      : null
    return ok(c, meta.show.message, {
      data: {
        dispute: {
          ...disputeJson(dispute, p),
          ...sdkDisputeKeys(dispute, transactionReference, p),
        },
      },
    })
  })
