/**
 * /v1/disputes/update/{reference} (SPEC §4.5): submits the business's explanation on a dispute
 * opened through the control plane. SPEC §2.8 shows `slug` as an object holding `reference`,
 * null in the example: quirks on reproduce the null, quirks off carry the dispute's reference.
 */
import { Hono } from 'hono'
import { z } from 'zod'
import type { Dispute } from '../../db/schema.js'
import { updateDispute } from '../../domain/disputes.js'
import type { AppEnv } from '../../env.js'
import { ok, presenting, type Presenting } from '../envelope.js'
import { describeRoute } from '../route-meta.js'
import { validate } from '../validate.js'
import { referenceParam, text, uuid } from './schemas.js'

export const updateDisputeBody = z.object({
  transaction_slug: uuid(),
  explanation: text(5000),
})

export function disputeJson(dispute: Dispute, p: Presenting) {
  return {
    transaction_slug: dispute.transactionSlug,
    slug: { reference: p.quirks ? null : dispute.reference },
    status: dispute.status,
    reason: dispute.reason,
    explanation: dispute.explanation,
  }
}

export const disputesApi = new Hono<AppEnv>().post(
  '/update/:reference',
  describeRoute({ auth: 'bearer', summary: 'Update dispute' }),
  validate('param', referenceParam),
  validate('json', updateDisputeBody),
  (c) => {
    const body = c.req.valid('json')
    const dispute = updateDispute(c.get('ctx'), c.req.valid('param').reference, {
      transactionSlug: body.transaction_slug,
      explanation: body.explanation,
    })
    return ok(c, 'Dispute updated successfully', { data: [disputeJson(dispute, presenting(c))] })
  },
)
