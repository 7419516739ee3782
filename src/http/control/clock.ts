/**
 * /__sandbox/clock (PRODUCT §6, §8): read the tenant's clock, advance it, set it to an instant,
 * switch its mode, and run until idle. Whatever moves the clock forward runs what fell due, in
 * order, before it answers.
 */
import { Hono } from 'hono'
import { z } from 'zod'
import type { Tenant } from '../../db/schema.js'
import { CLOCK_MODES } from '../../db/schema.js'
import { isInstant, parseDuration } from '../../domain/clock.js'
import { refused } from '../../domain/errors.js'
import { runDue, runUntilIdle, RunawayJobs, type FiredJob } from '../../engine/scheduler.js'
import type { AppEnv } from '../../wiring/env.js'
import { ok } from '../envelope.js'
import { describeRoute } from '../route-meta.js'
import { validate } from '../validate.js'
import { withExample } from '../v1/schemas.js'

export const advanceClockBody = withExample(
  z.strictObject({
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
  }),
  { by: '1h30m' },
)

const instant = z
  .string()
  .refine(isInstant, 'must be an ISO 8601 instant such as 2026-03-01T09:00:00Z')
  .transform((value) => Date.parse(value))

export const setClockBody = withExample(
  z
    .strictObject({ mode: z.enum(CLOCK_MODES).optional(), now: instant.optional() })
    .refine((body) => body.mode !== undefined || body.now !== undefined, {
      message: 'send mode, now, or both',
      path: ['mode'],
    }),
  { mode: 'manual', now: '2026-03-01T09:00:00Z' },
)

export const runDueBody = withExample(z.strictObject({ until: instant.optional() }), {
  until: '2026-03-01T12:00:00Z',
})

export const clockApi = new Hono<AppEnv>()
  .get('/', describeRoute({ auth: 'bearer', summary: 'Read the clock' }), (c) =>
    ok(c, 'Sandbox clock', { data: clockJson(c.get('deps'), c.get('tenant')) }),
  )
  .post(
    '/advance',
    describeRoute({ auth: 'bearer', summary: 'Advance the clock' }),
    validate('json', advanceClockBody),
    async (c) => {
      const deps = c.get('deps')
      const tenant = await deps.tenants.advance(c.get('tenant').token, c.req.valid('json').by)
      // everything that fell due runs, in order, before the call returns
      const { ran } = await runDue(deps, tenant, deps.tenants.now(tenant))
      return ok(c, 'Sandbox clock advanced', {
        data: { ...clockJson(deps, tenant), transitions_run: ran },
      })
    },
  )
  .post(
    '/run-due',
    describeRoute({ auth: 'bearer', summary: 'Run until idle' }),
    validate('json', runDueBody),
    async (c) => {
      const deps = c.get('deps')
      const { until } = c.req.valid('json')
      const token = c.get('tenant').token
      if (until !== undefined && until < deps.tenants.now(c.get('tenant')))
        throw refused('until', pastMessage('until', deps.tenants.now(c.get('tenant'))))
      let run
      try {
        run = await runUntilIdle(deps, token, until)
      } catch (error) {
        if (error instanceof RunawayJobs) throw refused('until', error.message)
        throw error
      }
      return ok(c, 'Sandbox clock ran until idle', {
        data: {
          ...clockJson(deps, run.tenant),
          transitions_run: run.ran,
          fired: run.fired.map(firedJson),
        },
      })
    },
  )
  .put(
    '/',
    describeRoute({ auth: 'bearer', summary: 'Set the clock: its mode, or a manual instant' }),
    validate('json', setClockBody),
    async (c) => {
      const deps = c.get('deps')
      const { mode, now } = c.req.valid('json')
      const token = c.get('tenant').token
      let tenant = c.get('tenant')
      if (now !== undefined) {
        if ((mode ?? tenant.clockMode) !== 'manual')
          throw refused(
            'now',
            'The now field sets a manual clock: send "mode": "manual" with it, or switch the clock to manual first.',
          )
        const current = deps.tenants.now(tenant)
        if (now < current) throw refused('now', pastMessage('now', current))
        tenant = await deps.tenants.setTo(token, now)
        const { ran } = await runDue(deps, tenant, now)
        return ok(c, 'Sandbox clock set', {
          data: { ...clockJson(deps, tenant), transitions_run: ran },
        })
      }
      tenant = await deps.tenants.setMode(token, mode!)
      return ok(c, 'Sandbox clock updated', { data: clockJson(deps, tenant) })
    },
  )

function pastMessage(field: string, current: number): string {
  return (
    `The ${field} field must not be before the clock's time, ${new Date(current).toISOString()}: ` +
    'a clock only moves forward (a reset, or a snapshot restored, takes it back).'
  )
}

function firedJson({ at, ...event }: FiredJob) {
  return { at: new Date(at).toISOString(), ...event }
}

function clockJson(deps: AppEnv['Variables']['deps'], tenant: Tenant) {
  const clock = deps.tenants.clock(tenant)
  return {
    mode: clock.mode,
    now: new Date(clock.now).toISOString(),
    now_ms: clock.now,
    speed: clock.speed,
  }
}
