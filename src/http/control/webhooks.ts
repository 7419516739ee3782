/**
 * The tenant's webhook endpoint and its deliveries (PRODUCT §7, §8): `GET`/`PUT /webhook`,
 * `GET /webhooks` (events, newest first, each with its attempts), `POST /webhooks/{id}/replay`.
 */
import { Hono } from 'hono'
import { z } from 'zod'
import { WEBHOOK_EVENT_STATUSES } from '../../db/schema.js'
import { notFound } from '../../domain/errors.js'
import { requeueEvent } from '../../store/webhooks.js'
import type { Tenant } from '../../db/schema.js'
import { webhookSources, webhookTarget, type DeliveryOptions } from '../../webhooks/attempt.js'
import { webhookLog } from '../../webhooks/log.js'
import type { AppEnv } from '../../wiring/env.js'
import { ok, pageMeta, pageQuery, toPage } from '../envelope.js'
import { describeRoute } from '../route-meta.js'
import { validate } from '../validate.js'
import { withExample } from '../v1/schemas.js'

export const webhookBody = withExample(
  z.strictObject({
    url: z
      .url({ protocol: /^https?$/ })
      .max(2048)
      .nullable(),
    secret: z.string().min(1).max(512).nullable().optional(),
  }),
  { url: 'http://localhost:3000/webhooks/alal', secret: 'whsec_local_test' },
)

/** The URL and secret that apply, and whether each is the tenant's own or a default. */
function endpoint(tenant: Tenant, options: Pick<DeliveryOptions, 'webhookUrl' | 'webhookSecret'>) {
  return { ...webhookTarget(tenant, options), ...webhookSources(tenant, options) }
}

export const webhooksQuery = pageQuery.extend({ status: z.enum(WEBHOOK_EVENT_STATUSES).optional() })
const eventParam = z.object({ id: z.string().regex(/^evt_[a-z0-9]{1,64}$/) })

export const webhooksApi = new Hono<AppEnv>()
  .get('/webhook', describeRoute({ auth: 'bearer', summary: 'Read the webhook endpoint' }), (c) =>
    ok(c, 'Webhook endpoint', { data: endpoint(c.get('tenant'), c.get('deps').options) }),
  )
  .put(
    '/webhook',
    describeRoute({ auth: 'bearer', summary: 'Set the webhook endpoint' }),
    validate('json', webhookBody),
    async (c) => {
      const body = c.req.valid('json')
      const tenant = await c.get('deps').tenants.setWebhook(c.get('tenant').token, {
        url: body.url,
        secret: body.secret ?? null,
      })
      return ok(c, 'Webhook endpoint updated', {
        data: endpoint(tenant, c.get('deps').options),
      })
    },
  )
  .get(
    '/webhooks',
    describeRoute({ auth: 'bearer', summary: 'List webhook deliveries' }),
    validate('query', webhooksQuery),
    async (c) => {
      const query = c.req.valid('query')
      const log = await webhookLog(c.get('ctx'), { ...toPage(query), status: query.status })
      return ok(c, 'Webhook events', { data: log.rows, meta: pageMeta(log) })
    },
  )
  .post(
    '/webhooks/:id/replay',
    describeRoute({ auth: 'bearer', summary: 'Replay a webhook event' }),
    validate('param', eventParam),
    async (c) => {
      const { id } = c.req.valid('param')
      const ctx = c.get('ctx')
      const replayed = await requeueEvent(ctx.db, ctx.tenant.id, id, ctx.now)
      if (!replayed) throw notFound('id', 'webhook event', id)
      c.get('deps').deliverer.kick()
      return ok(c, 'Webhook event queued again', { data: { id, status: replayed.status } })
    },
  )
