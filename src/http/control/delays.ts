/**
 * /__sandbox/delays (PRODUCT §6): the tenant's delays of what moves by itself, and overrides
 * (`{"card_issuing": "500ms"}`); `PUT` with `{}` goes back to the defaults. /__sandbox/jobs
 * lists what is scheduled and when.
 */
import { Hono } from 'hono'
import { z } from 'zod'
import { DELAY_NAMES, delaysOf, type DelayName } from '../../domain/schedule.js'
import { parseDuration } from '../../domain/clock.js'
import { scheduledJobs } from '../../store/jobs.js'
import type { AppEnv } from '../../wiring/env.js'
import { ok } from '../envelope.js'
import { describeRoute } from '../route-meta.js'
import { validate } from '../validate.js'
import { withExample } from '../v1/schemas.js'

const duration = z.union([z.string().max(64), z.number()]).transform((value, check) => {
  const ms = parseDuration(value)
  if (ms === null) {
    check.addIssue({
      code: 'custom',
      message: 'must be a duration such as "500ms", "5s", "15m" or a number of milliseconds',
    })
    return z.NEVER
  }
  return ms
})

export const delaysBody = withExample(
  z.strictObject(
    Object.fromEntries(DELAY_NAMES.map((name) => [name, duration.optional()])) as Record<
      DelayName,
      z.ZodOptional<typeof duration>
    >,
  ),
  { card_user_verification: '5s', card_issuing: 2000 },
)

/** How many jobs GET /jobs lists at most, soonest first. */
const JOBS_LISTED = 1000

export const delaysApi = new Hono<AppEnv>()
  .get('/delays', describeRoute({ auth: 'bearer', summary: 'Read the delays' }), async (c) =>
    ok(c, 'Delays', {
      data: delaysOf({
        tenant: c.get('tenant'),
        scenarioDelays: await c.get('deps').scenarios.delays(c.get('tenant').id),
      }),
    }),
  )
  .put(
    '/delays',
    describeRoute({ auth: 'bearer', summary: 'Override the delays' }),
    validate('json', delaysBody),
    async (c) => {
      const overrides = Object.fromEntries(
        Object.entries(c.req.valid('json')).filter(([, ms]) => ms !== undefined),
      ) as Record<string, number>
      const tenant = await c
        .get('deps')
        .tenants.setDelays(c.get('tenant').token, Object.keys(overrides).length ? overrides : null)
      return ok(c, 'Delays updated', {
        data: delaysOf({ tenant, scenarioDelays: await c.get('deps').scenarios.delays(tenant.id) }),
      })
    },
  )
  .get('/jobs', describeRoute({ auth: 'bearer', summary: 'List scheduled jobs' }), async (c) => {
    const pending = await scheduledJobs(c.get('deps').db, c.get('tenant').id, JOBS_LISTED)
    return ok(c, 'Scheduled jobs', {
      data: pending.map((job) => ({
        resource: job.resource,
        reference: job.key,
        action: job.action,
        due_at: new Date(job.dueAt).toISOString(),
      })),
    })
  })
