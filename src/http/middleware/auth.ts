/**
 * Bearer token → tenant (PRODUCT §3). A missing or malformed header, or a token kept out by
 * `--tokens`, is a 401. Sets `tenant` and the request's domain context.
 */
import { createMiddleware } from 'hono/factory'
import { SandboxError } from '../../domain/errors.js'
import type { Tenant } from '../../db/schema.js'
import type { DomainContext } from '../../domain/context.js'
import type { AppEnv } from '../../env.js'
import type { SandboxDeps } from '../../sandbox.js'
import { catchUp } from '../../engine/scheduler.js'
import { eventsWritten } from '../../webhooks/outbox.js'

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
