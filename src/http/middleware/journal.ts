/**
 * The journal stage: once a tenant's request has answered, hands what arrived and what was
 * answered to the request journal (journal/journal.ts), which masks and keeps it. Requests
 * without a tenant (401s, public pages) are not recorded, nor the reads of the journal and the
 * dashboard, nor a reset: a test that resets before it runs starts from an empty journal.
 * Mounted unless `--journal off`.
 */
import type { MiddlewareHandler } from 'hono'
import type { AppEnv } from '../../env.js'
import { arrivedHeaders } from '../request-headers.js'

const UNRECORDED = /^\/__sandbox\/(requests|ui|reset)(\/|$)/

export function journal(): MiddlewareHandler<AppEnv> {
  return async function journal(c, next) {
    const started = performance.now()
    await next()
    const tenant = c.get('tenant')
    if (!tenant) return
    const path = c.req.path
    if (path.startsWith('/__sandbox/') && UNRECORDED.test(path)) return
    const url = c.req.url
    const queryAt = url.indexOf('?')
    c.get('deps').journal.record({
      tenantId: tenant.id,
      at: c.get('ctx').now,
      method: c.req.method,
      path,
      query: queryAt === -1 ? '' : url.slice(queryAt),
      status: c.res.status,
      latencyMs: Math.round((performance.now() - started) * 100) / 100,
      headers: arrivedHeaders(c),
      requestBody: c.get('requestText') ?? null,
      responseBody: c.get('responseJson') ?? null,
    })
  }
}
