/**
 * Records each request of a tenant, with the answer, in the request journal (journal/journal.ts).
 * Requests without a tenant (401s, public pages) are not recorded, nor the reads of the journal
 * and the dashboard, nor a reset: a test that resets before it runs starts from an empty journal.
 */
import type { Context } from 'hono'
import { createMiddleware } from 'hono/factory'
import type { AppEnv } from '../../env.js'
import { maskAuthorization } from '../../lib/masking.js'

const UNRECORDED = /^\/__sandbox\/(requests|ui|reset)(\/|$)/

export function journal() {
  return createMiddleware<AppEnv>(async function journal(c, next) {
    const started = performance.now()
    await next()
    const tenant = c.get('tenant')
    if (!tenant || UNRECORDED.test(c.req.path)) return
    const deps = c.get('deps')
    const url = c.req.url
    const queryAt = url.indexOf('?')
    deps.journal.record({
      tenantId: tenant.id,
      at: c.get('ctx').now,
      method: c.req.method,
      path: c.req.path,
      query: queryAt === -1 ? '' : url.slice(queryAt),
      status: c.res.status,
      latencyMs: Math.round((performance.now() - started) * 100) / 100,
      requestHeaders: headersOf(c.req.raw.headers),
      requestBody: (await bodyTextRead(c)) ?? null,
      responseBody: c.get('responseJson') ?? null,
    })
  })
}

function headersOf(headers: Headers): Record<string, string> {
  const out: Record<string, string> = {}
  headers.forEach((value, name) => {
    out[name] = name === 'authorization' ? maskAuthorization(value) : value
  })
  return out
}

/**
 * The body text a validator already read, if one did: Hono keeps the promise of the read in
 * `bodyCache`, although its type says string.
 */
function bodyTextRead(c: Context): Promise<string> | undefined {
  return c.req.bodyCache.text as unknown as Promise<string> | undefined
}
