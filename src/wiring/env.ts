/** The Hono environment of the sandbox app: what middleware puts on the context. */
import type { Tenant } from '../db/schema.js'
import type { DomainContext } from '../domain/context.js'
import type { SandboxDeps } from './deps.js'
import type { RateCount } from '../domain/rate-limit.js'

export type AppEnv = {
  Variables: {
    deps: SandboxDeps
    tenant: Tenant
    /** The domain context of this request: tenant, store, randomness, the tenant's "now". */
    ctx: DomainContext
    /**
     * The request had wholly arrived, its body too, when its tenant was read from the store
     * (http/middleware/tenant.ts): that read is already one begun after the request arrived.
     */
    tenantReadAfterBody?: boolean
    /** The request's JSON body, once checked (http/middleware/json-body.ts). */
    jsonBody?: Record<string, unknown>
    /** The request's body text, once read (json-body.ts), kept for the request journal. */
    requestText?: string
    /**
     * An origin whose stylesheets (and their fonts and images) this page may load: the
     * card-reveal page's `css_url` (http/middleware/security-headers.ts).
     */
    pageStyleSource?: string
    /** The JSON text of the response, kept for the request journal (envelope.ts sendJson). */
    responseJson?: string
    /** This /v1 request's place in its tenant's minute (http/middleware/rate-limit.ts). */
    rateLimit?: RateCount
  }
}
