/**
 * Bearer token → tenant (PRODUCT §3). A missing or malformed header, or a token kept out by
 * `--tokens`, is a 401. Sets `tenant` and the request's domain context.
 */
import type { Context } from 'hono'
import { createMiddleware } from 'hono/factory'
import { SandboxError } from '../../domain/errors.js'
import type { Tenant } from '../../db/schema.js'
import type { DomainContext } from '../../domain/context.js'
import type { AppEnv } from '../../env.js'
import type { SandboxDeps } from '../../deps.js'
import { catchUp } from '../../engine/scheduler.js'
import { eventsWritten } from '../../domain/outbox.js'

const BEARER = /^Bearer[ \t]+([!-~]{1,512})[ \t]*$/i

export const UNAUTHENTICATED = 'Unauthenticated.'

export function auth() {
  return createMiddleware<AppEnv>(async function auth(c, next) {
    const deps = c.get('deps')
    const match = BEARER.exec(c.req.header('Authorization') ?? '')
    let tenant = match ? deps.tenants.forToken(match[1]) : null
    if (!tenant) throw new SandboxError('unauthenticated', UNAUTHENTICATED)
    // --fixtures: a new (or reset) tenant is seeded before its first request is answered
    if (deps.seedTenant && deps.tenants.takeUnseeded(tenant.id)) {
      await deps.seedTenant(tenant.token)
      tenant = deps.tenants.forToken(tenant.token)!
    }
    const written = eventsWritten(deps.db)
    c.set('tenant', tenant)
    c.set('ctx', tenantContext(deps, tenant))
    await next()
    // whatever the request (or the catch-up) wrote to the outbox goes out after it has answered
    if (eventsWritten(deps.db) !== written) deps.deliverer.kick()
  })
}

/** The domain context of a request by `tenant`, once what fell due on its clock has run. */
export function tenantContext(deps: SandboxDeps, tenant: Tenant): DomainContext {
  const now = deps.tenants.now(tenant)
  catchUp(deps, tenant, now)
  return {
    db: deps.db,
    ids: deps.ids,
    tenant,
    now,
    webhookExtensions: deps.options.webhookExtensions,
  }
}

/**
 * Brings the request's tenant up to date after the request has waited (for its body, for a
 * scenario's latency). Another request may have reset the tenant meanwhile, moving it to a new
 * id: what this request then writes goes to the fresh tenant, as its client expects, not to
 * the retired id whose rows are being swept. The rule a scenario applied to the request stays.
 */
export function refreshTenant(c: Context<AppEnv>): void {
  const tenant = c.get('tenant')
  if (!tenant) return
  const deps = c.get('deps')
  const current = deps.tenants.forToken(tenant.token)
  if (!current || current === tenant) return
  const { scenarioDelays, outcome } = c.get('ctx')
  c.set('tenant', current)
  c.set('ctx', { ...tenantContext(deps, current), scenarioDelays, outcome })
}
