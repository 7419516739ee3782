/**
 * The tenant stage (PRODUCT §3): bearer token → tenant, and the request's domain context at that
 * tenant's "now". A missing or malformed header, or a token kept out by `--tokens`, is a 401.
 * What fell due on the tenant's clock is the next stage's (due-work.ts).
 */
import type { HttpBindings } from '@hono/node-server'
import type { IncomingMessage } from 'node:http'
import type { Context, MiddlewareHandler } from 'hono'
import { SandboxError, UNAUTHENTICATED } from '../../domain/errors.js'
import type { Tenant } from '../../db/schema.js'
import type { DomainContext } from '../../domain/context.js'
import type { AppEnv } from '../../wiring/env.js'
import type { SandboxDeps } from '../../wiring/deps.js'
import { catchUp } from '../../engine/scheduler.js'
import { readingAt } from '../../store/read-cache.js'
import { storeIsShared } from '../../store/statements.js'
import { stampsOf } from '../../store/tenants.js'
import { requestHeader } from '../request-headers.js'

const BEARER = /^Bearer[ \t]+([!-~]{1,512})[ \t]*$/i

export function tenant(): MiddlewareHandler<AppEnv> {
  // a tenant met before is found in memory: then no promise is waited for (a /v1 request's path)
  return function tenant(c, next) {
    const deps = c.get('deps')
    const token = BEARER.exec(requestHeader(c, 'authorization') ?? '')?.[1]
    const enter = (found: Tenant | null | undefined) => {
      if (!found) throw new SandboxError('unauthenticated', UNAUTHENTICATED)
      c.set('tenant', found)
      c.set('ctx', contextAt(deps, found))
      return next()
    }
    if (token === undefined) return enter(null)
    const known = deps.tenants.known(token)
    if (known) return enter(known)
    const incoming = (c.env as HttpBindings | undefined)?.incoming
    if (!incoming) return deps.tenants.forToken(token).then(enter)
    // a turn of the microtask queue first: the handler runs while Node's parser is still in
    // the bytes that brought the headers, and a body sent with them is in memory only after
    return Promise.resolve()
      .then(() => {
        if (bodyArrived(c, incoming)) c.set('tenantReadAfterBody', true)
        return deps.tenants.forToken(token)
      })
      .then(enter)
  }
}

/**
 * Whether the request's body has wholly arrived (none of it read yet): Node marks the message
 * complete a turn of the event loop after its last bytes are in memory, so a body of announced
 * length is also known to be there by the bytes buffered.
 */
function bodyArrived(c: Context<AppEnv>, incoming: IncomingMessage): boolean {
  if (incoming.complete) return true
  const length = requestHeader(c, 'content-length')
  return (
    length !== undefined &&
    requestHeader(c, 'transfer-encoding') === undefined &&
    incoming.readableLength >= Number(length)
  )
}

/** The domain context of a request by `tenant`, at its "now". */
export function contextAt(deps: SandboxDeps, tenant: Tenant): DomainContext {
  return {
    // on a shared store, reads cached under the snapshot read with the tenant (readingAt)
    db:
      storeIsShared(deps.db) && deps.options.stages?.readCache !== false
        ? readingAt(deps.db, stampsOf(tenant)?.snapshot)
        : deps.db,
    ids: deps.ids,
    tenant,
    now: deps.tenants.now(tenant),
    quirks: deps.options.quirks,
    webhookExtensions: deps.options.webhookExtensions,
  }
}

/** The same, once what fell due on its clock has run: for a request outside the stages. */
export async function tenantContext(deps: SandboxDeps, tenant: Tenant): Promise<DomainContext> {
  const ctx = contextAt(deps, tenant)
  await catchUp(deps, tenant, ctx.now)
  return ctx
}

/**
 * Brings the request's tenant up to date after its body was read, unless the tenant was read
 * once the body had already arrived (nothing was waited for since).
 */
export function refreshTenantAfterBody(c: Context<AppEnv>): Promise<void> | undefined {
  // not async: a create's path would pay a promise more for it
  return c.get('tenantReadAfterBody') ? undefined : refreshTenant(c)
}

/**
 * Brings the request's tenant up to date after the request has waited (for its body, for a
 * scenario's latency). Another request may have reset the tenant meanwhile, moving it to a new
 * id: what this request then writes goes to the fresh tenant, as its client expects, not to
 * the retired id whose rows are being swept. The rule a scenario applied to the request stays.
 */
export async function refreshTenant(c: Context<AppEnv>): Promise<void> {
  const tenant = c.get('tenant')
  if (!tenant) return
  const deps = c.get('deps')
  const current = deps.tenants.known(tenant.token) ?? (await deps.tenants.forToken(tenant.token))
  if (!current || current === tenant) return
  const { scenarioDelays, outcome } = c.get('ctx')
  c.set('tenant', current)
  c.set('ctx', { ...(await tenantContext(deps, current)), scenarioDelays, outcome })
}
