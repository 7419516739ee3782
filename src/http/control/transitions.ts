/**
 * POST /__sandbox/{resource}/{reference}/transition {"to"} (PRODUCT §8): move any resource
 * along its state machine; an illegal move is a 409 naming the allowed states.
 */
import { Hono } from 'hono'
import { z } from 'zod'
import { TRANSITION_RESOURCES } from '../../domain/lifecycles.js'
import { transition } from '../../domain/transitions.js'
import type { AppEnv } from '../../wiring/env.js'
import { ok } from '../envelope.js'
import { describeRoute } from '../route-meta.js'
import { validate } from '../validate.js'
import { withExample } from '../v1/schemas.js'

const resources = Object.keys(TRANSITION_RESOURCES) as (keyof typeof TRANSITION_RESOURCES)[]

export const transitionParam = z.object({ reference: z.uuid() })
export const transitionBody = withExample(z.strictObject({ to: z.string().min(1).max(32) }), {
  to: 'passed',
})

/**
 * One route per resource, its name literal in the path: a `:resource` parameter beside the
 * literal `/cards/…` and `/snapshots/…` routes made Hono fall back from its RegExpRouter to the
 * TrieRouter, which allocates on every request of every route.
 */
export const transitionsApi = new Hono<AppEnv>()
for (const resource of resources) {
  transitionsApi.post(
    `/${resource}/:reference/transition`,
    describeRoute({ auth: 'bearer', summary: `Move one of the ${resource} to another state` }),
    validate('param', transitionParam),
    validate('json', transitionBody),
    async (c) => {
      const { reference } = c.req.valid('param')
      const result = await transition(c.get('ctx'), resource, reference, c.req.valid('json').to)
      return ok(c, `Moved ${result.resource.replace('_', ' ')} to ${result.to}`, {
        data: { resource: result.resource, reference, from: result.from, to: result.to },
      })
    },
  )
}
