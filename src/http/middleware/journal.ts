/**
 * The journal, once a tenant's request has answered (answered.ts): hands what arrived and what
 * was answered to the request journal (journal/journal.ts), which masks and keeps it. Requests
 * without a tenant (401s, public pages) are not recorded, nor the reads of the journal and the
 * dashboard, nor a reset: a test that resets before it runs starts from an empty journal.
 * Unless `--journal off`.
 */
import { wallClock } from '../../domain/clock.js'
import type { OnAnswer } from './answered.js'
import { arrivedHeaders } from '../request-headers.js'

const UNRECORDED = /^\/__sandbox\/(requests|ui|reset)(\/|$)/

export function journal(): OnAnswer {
  return function journal(c, startedAt) {
    const tenant = c.get('tenant')
    if (!tenant) return
    const path = c.req.path
    if (path.startsWith('/__sandbox/') && UNRECORDED.test(path)) return
    const url = c.req.url
    const queryAt = url.indexOf('?')
    const latency = performance.now() - startedAt
    c.get('deps').journal.record({
      tenantId: tenant.id,
      at: c.get('ctx').now,
      // from the wall clock now, not performance.timeOrigin, which drifts from it over a long run
      wallAt: wallClock() - Math.round(latency),
      method: c.req.method,
      path,
      query: queryAt === -1 ? '' : url.slice(queryAt),
      status: c.res.status,
      latencyMs: Math.round(latency * 100) / 100,
      headers: arrivedHeaders(c),
      requestBody: c.get('requestText') ?? null,
      responseBody: c.get('responseJson') ?? null,
    })
  }
}
