/** /__sandbox/clock (PRODUCT §6, §8): read the tenant's clock, advance it, switch its mode. */
import { Hono } from 'hono'
import { z } from 'zod'
import type { Tenant } from '../../db/schema.js'
import { CLOCK_MODES } from '../../db/schema.js'
import { parseDuration } from '../../domain/clock.js'
import { runDue } from '../../engine/scheduler.js'
import type { AppEnv } from '../../env.js'
import { ok } from '../envelope.js'
import { describeRoute } from '../route-meta.js'
import { validate } from '../validate.js'

export const advanceClockBody = z.object({
  by: z.union([z.string().max(64), z.number()]).transform((value, check) => {
    const ms = parseDuration(value)
    if (ms === null) {
      check.addIssue({
        code: 'custom',
        message:
          'The by field must be a duration such as "15m", "2h", "1h30m" or a number of milliseconds.',
      })
      return z.NEVER
    }
    return ms
  }),
})

export const setClockBody = z.object({ mode: z.enum(CLOCK_MODES) })

export const clockApi = new Hono<AppEnv>()
  .get('/', describeRoute({ auth: 'bearer', summary: 'Read the clock' }), (c) =>
    ok(c, 'Sandbox clock', { data: clockJson(c.get('deps'), c.get('tenant')) }),
  )
  .post(
    '/advance',
    describeRoute({ auth: 'bearer', summary: 'Advance the clock' }),
    validate('json', advanceClockBody),
    (c) => {
      const deps = c.get('deps')
      const tenant = deps.tenants.advance(c.get('tenant').token, c.req.valid('json').by)
      // everything that fell due runs, in order, before the call returns
      const ran = runDue(deps, tenant, deps.tenants.now(tenant))
      return ok(c, 'Sandbox clock advanced', {
        data: { ...clockJson(deps, tenant), transitions_run: ran },
      })
    },
  )
  .put(
    '/',
    describeRoute({ auth: 'bearer', summary: 'Set the clock mode' }),
    validate('json', setClockBody),
    (c) => {
      const tenant = c.get('deps').tenants.setMode(c.get('tenant').token, c.req.valid('json').mode)
      return ok(c, 'Sandbox clock updated', { data: clockJson(c.get('deps'), tenant) })
    },
  )

function clockJson(deps: AppEnv['Variables']['deps'], tenant: Tenant) {
  const clock = deps.tenants.clock(tenant)
  return {
    mode: clock.mode,
    now: new Date(clock.now).toISOString(),
    now_ms: clock.now,
    speed: clock.speed,
  }
}
