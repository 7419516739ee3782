/**
 * /__sandbox/snapshots: take the tenant's whole state under a name, list,
 * restore and delete (domain/snapshots.ts). A restore answers the clock it set back.
 */
import { Hono, type Context } from 'hono'
import { z } from 'zod'
import {
  removeSnapshot,
  restoreSnapshot,
  snapshotsOf,
  takeSnapshot,
} from '../../domain/snapshots.js'
import type { AppEnv } from '../../wiring/env.js'
import { ok } from '../envelope.js'
import { describeRoute } from '../route-meta.js'
import { validate } from '../validate.js'
import { withExample } from '../v1/schemas.js'

const name = z
  .string()
  .regex(/^[\w.-]{1,64}$/, 'expected 1 to 64 letters, digits, dots, dashes or underscores')

export const snapshotBody = withExample(z.strictObject({ name }), { name: 'before-checkout' })
const nameParam = z.object({ name })

const iso = (ms: number) => new Date(ms).toISOString()

async function listJson(c: Context<AppEnv>) {
  return (await snapshotsOf(c.get('deps'), c.get('tenant').token)).map((s) => ({
    name: s.name,
    taken_at: iso(s.takenAt),
    rows: s.rowCount,
  }))
}

export const snapshotsApi = new Hono<AppEnv>()
  .get('/', describeRoute({ auth: 'bearer', summary: 'List snapshots' }), async (c) =>
    ok(c, 'Snapshots', { data: await listJson(c) }),
  )
  .post(
    '/',
    describeRoute({ auth: 'bearer', summary: "Take a snapshot of the tenant's state" }),
    validate('json', snapshotBody),
    async (c) => {
      const taken = await takeSnapshot(c.get('deps'), c.get('tenant'), c.req.valid('json').name)
      return ok(c, 'Snapshot taken', {
        data: { name: taken.name, taken_at: iso(taken.takenAt), rows: taken.rowCount },
      })
    },
  )
  .post(
    '/:name/restore',
    describeRoute({ auth: 'bearer', summary: 'Restore a snapshot' }),
    validate('param', nameParam),
    async (c) => {
      const deps = c.get('deps')
      const tenant = await restoreSnapshot(deps, c.get('tenant').token, c.req.valid('param').name)
      deps.scenarios.forget(tenant.id)
      c.set('tenant', tenant)
      const clock = deps.tenants.clock(tenant)
      return ok(c, 'Snapshot restored', {
        data: { name: c.req.valid('param').name, clock: { mode: clock.mode, now: iso(clock.now) } },
      })
    },
  )
  .delete(
    '/:name',
    describeRoute({ auth: 'bearer', summary: 'Delete a snapshot' }),
    validate('param', nameParam),
    async (c) => {
      await removeSnapshot(c.get('deps'), c.get('tenant').token, c.req.valid('param').name)
      return ok(c, 'Snapshot deleted', { data: await listJson(c) })
    },
  )
