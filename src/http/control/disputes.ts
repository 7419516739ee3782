/** POST /__sandbox/disputes (PRODUCT §8): open a dispute on one of the tenant's transactions. */
import { Hono } from 'hono'
import { z } from 'zod'
import { DISPUTE_REASONS, openDispute } from '../../domain/disputes.js'
import type { AppEnv } from '../../wiring/env.js'
import { ok } from '../envelope.js'
import { describeRoute } from '../route-meta.js'
import { validate } from '../validate.js'
import { withExample } from '../v1/schemas.js'

export const openDisputeBody = withExample(
  z.strictObject({
    transaction_slug: z.uuid(),
    reason: z.enum(DISPUTE_REASONS),
  }),
  { transaction_slug: 'b7e6c1d2-5a4f-4e3b-8c9d-0a1b2c3d4e5f', reason: 'fraudulent' },
)

export const controlDisputesApi = new Hono<AppEnv>().post(
  '/',
  describeRoute({ auth: 'bearer', summary: 'Open a dispute' }),
  validate('json', openDisputeBody),
  async (c) => {
    const body = c.req.valid('json')
    const dispute = await openDispute(c.get('ctx'), {
      transactionSlug: body.transaction_slug,
      reason: body.reason,
    })
    return ok(c, 'Dispute opened', {
      data: {
        reference: dispute.reference,
        transaction_slug: dispute.transactionSlug,
        reason: dispute.reason,
        status: dispute.status,
      },
    })
  },
)
