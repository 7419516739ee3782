/**
 * The request journal of the tenant (PRODUCT §8): `GET /__sandbox/requests?method=&path=&status=`
 * lists what it sent and what it got, newest first, paginated like the /v1 lists;
 * `DELETE /__sandbox/requests` empties it. See journal/journal.ts for what is kept.
 */
import { Hono } from 'hono'
import { z } from 'zod'
import type { AppEnv } from '../../wiring/env.js'
import { ok, pageMeta, pageQuery, toPage } from '../envelope.js'
import { entryId, parsedBody, requestHeaders } from '../../journal/entry.js'
import type { JournalRecord } from '../../journal/journal.js'
import { describeRoute } from '../route-meta.js'
import { validate } from '../validate.js'

export const requestsQuery = pageQuery.extend({
  method: z
    .string()
    .regex(/^[A-Za-z]{1,16}$/)
    .optional(),
  path: z.string().min(1).max(2048).optional(),
  status: z
    .string()
    .regex(/^([1-5]\d\d|[1-5]xx)$/i)
    .optional(),
})

export function journalEntryJson(entry: JournalRecord) {
  return {
    id: entryId(entry),
    at: new Date(entry.at).toISOString(),
    wall_at: new Date(entry.wallAt).toISOString(),
    method: entry.method,
    path: entry.path,
    query: entry.query,
    status: entry.status,
    latency_ms: entry.latencyMs,
    request: { headers: requestHeaders(entry), body: parsedBody(entry.requestBody) },
    response: { body: parsedBody(entry.responseBody) },
  }
}

/** What the journal's read says when the sandbox keeps none (`--journal off`). */
export const JOURNAL_OFF = 'The request journal is off (--journal off): no request is kept.'

export const requestsApi = new Hono<AppEnv>()
  .get(
    '/',
    describeRoute({ auth: 'bearer', summary: 'Request journal' }),
    validate('query', requestsQuery),
    (c) => {
      const { method, path, status, ...paging } = c.req.valid('query')
      const { journal, options } = c.get('deps')
      const found = options.journal
        ? journal.find(c.get('tenant').id, { method, path, status })
        : []
      const { page, perPage } = toPage(paging)
      const rows = found.slice((page - 1) * perPage, page * perPage)
      return ok(c, options.journal ? 'Requests' : JOURNAL_OFF, {
        data: rows.map(journalEntryJson),
        meta: pageMeta({ rows, total: found.length, page, perPage }),
      })
    },
  )
  .delete('/', describeRoute({ auth: 'bearer', summary: 'Empty the request journal' }), (c) => {
    c.get('deps').journal.clear(c.get('tenant').id)
    return ok(c, 'Request journal cleared', { data: [] })
  })
