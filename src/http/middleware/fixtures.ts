/**
 * `--fixtures` (PRODUCT §8): a new (or reset) tenant is seeded with the start-up fixture before
 * its first request is answered. Mounted only when the sandbox has a fixture.
 */
import type { MiddlewareHandler } from 'hono'
import type { AppEnv } from '../../env.js'
import { contextAt } from './tenant.js'

export function fixtures(): MiddlewareHandler<AppEnv> {
  return async function fixtures(c, next) {
    const deps = c.get('deps')
    const tenant = c.get('tenant')
    if (deps.seedTenant && (await deps.tenants.claimFixture(tenant))) {
      await deps.seedTenant(tenant.token)
      // the request's "now" comes after what the seeding made
      const seeded = (await deps.tenants.forToken(tenant.token))!
      c.set('tenant', seeded)
      c.set('ctx', contextAt(deps, seeded))
    }
    await next()
  }
}
