/**
 * The success envelope (SPEC §2.1), the pagination meta (SPEC §2.2) and the timestamp formats
 * of the real service (PRODUCT §2), shared by every resource module.
 */
import type { Context } from 'hono'
import type { ContentfulStatusCode } from 'hono/utils/http-status'
import { z } from 'zod'
import type { AppEnv } from '../wiring/env.js'
import { brandName } from '../domain/webhook-events.js'
import { cachedNow, readThrough } from '../store/read-cache.js'
import { DEFAULT_PER_PAGE, MAX_PER_PAGE, type Page, type PageOf } from '../store/rows.js'

/**
 * How a response is shaped: with the real service's quirks or clean, with or without the keys
 * only the official SDKs read (`--sdk-compat`, http/sdk-compat.ts), and where links point: the
 * sandbox's own origin (PRODUCT §10: `--public-url`, else the listener), never the Host the
 * request names.
 */
export type Presenting = { quirks: boolean; sdkCompat: boolean; origin: string }

export function presenting(c: Context): Presenting {
  const deps = c.get('deps')
  return { quirks: deps.options.quirks, sdkCompat: deps.options.sdkCompat, origin: deps.publicUrl }
}

export function ok(c: Context, message: string, fields: Record<string, unknown>): Response {
  return sendJson(c, { message, statusCode: 200, ...fields }, 200)
}

/**
 * A list page's answer (SPEC §2.2), serialised once: the same text is sent again, without a
 * read or a serialisation, until anything is written (store/read-cache.ts). `key` names what
 * the page depends on besides the tenant and how answers are presented (the list, page,
 * per_page, a filter), its free-form part last.
 */
export function okList(
  c: Context<AppEnv>,
  key: string,
  message: string,
  fields: () => Promise<Record<string, unknown>> | Record<string, unknown>,
): Response | Promise<Response> {
  const p = presenting(c)
  const db = c.get('ctx').db
  // spaces part the key: no origin (an http URL), tenant id or page number holds one
  const cacheKey = `answer ${p.quirks} ${p.sdkCompat} ${p.origin} ${c.get('tenant').id} ${key}`
  const cached = cachedNow<ListAnswer>(db, cacheKey)
  if (cached) return sendList(c, cached)
  return readThrough(db, cacheKey, async (): Promise<ListAnswer> => {
    const text = JSON.stringify({ message, statusCode: 200, ...(await fields()) })
    return { text, bytes: Buffer.from(text) }
  }).then((answer) => sendList(c, answer))
}

type ListAnswer = { text: string; bytes: Buffer }

function sendList(c: Context<AppEnv>, answer: ListAnswer): Response {
  c.set('responseJson', answer.text)
  return new Response(answer.bytes, { status: 200, headers: jsonHeaders(c) })
}

/**
 * The JSON answer, keeping its text for the request journal (no second read of the body). A
 * Response made here with a constant header object, not through c.json()/c.body(), which build
 * a Fetch `Headers` for more than one header, that node-server then reads back into an object.
 * A stage that adds a header does so on `c.res` once the answer is made (security-headers.ts,
 * scenarios.ts); `headers` are the answer's own (a 405's `Allow`, a scenario's), under the JSON
 * ones.
 */
export function sendJson(
  c: Context,
  body: unknown,
  status: ContentfulStatusCode,
  headers?: Headers,
): Response {
  const text = JSON.stringify(body)
  c.set('responseJson', text)
  if (!headers) return new Response(text, { status, headers: jsonHeaders(c) })
  for (const [name, value] of Object.entries(jsonHeaders(c))) headers.set(name, value)
  return new Response(text, { status, headers })
}

/**
 * The JSON answer's headers: the constant pair, and on /v1 the request's rate-limit count as the
 * real service sends it (`Retry-After` on a 429), in a plain object (no Fetch `Headers`).
 */
function jsonHeaders(c: Context): Readonly<Record<string, string>> {
  const rate = (c as Context<AppEnv>).get('rateLimit')
  if (rate === undefined) return JSON_HEADERS
  return {
    ...JSON_HEADERS,
    'X-RateLimit-Limit': String(rate.limit),
    'X-RateLimit-Remaining': String(rate.remaining),
    ...(rate.retryAfterSeconds !== undefined && { 'Retry-After': String(rate.retryAfterSeconds) }),
  }
}

// nosniff here rather than from a middleware: one constant, no per-request header list on /v1
const JSON_HEADERS: Readonly<Record<string, string>> = Object.freeze({
  'Content-Type': 'application/json',
  'X-Content-Type-Options': 'nosniff',
})

const positiveInteger = (max: number) =>
  z
    .string()
    .regex(/^\d{1,9}$/)
    .transform(Number)
    .pipe(z.number().int().min(1).max(max))

/** `page` and `per_page` (max 100, a sandbox limit: SPEC §8 gives none). */
export const pageQuery = z.object({
  page: positiveInteger(1_000_000).optional(),
  per_page: positiveInteger(MAX_PER_PAGE).optional(),
})

export function toPage(query: z.infer<typeof pageQuery>): Page {
  return { page: query.page ?? 1, perPage: query.per_page ?? DEFAULT_PER_PAGE }
}

export function pageMeta(page: PageOf<unknown>) {
  const from = page.rows.length ? (page.page - 1) * page.perPage + 1 : null
  return {
    current_page: page.page,
    // Laravel's paginator: null bounds on an empty page.
    from,
    last_page: lastPage(page),
    per_page: page.perPage,
    to: from === null ? null : from + page.rows.length - 1,
    total: page.total,
  }
}

function lastPage(page: PageOf<unknown>): number {
  return Math.max(1, Math.ceil(page.total / page.perPage))
}

/** Laravel's full paginator, as the card-user list shows it (SPEC §2.2, §4.1). */
export function laravelPaginator<T>(page: PageOf<unknown>, data: T[], path: string) {
  const last = lastPage(page)
  const url = (n: number) =>
    `${path}?page=${n}` + (page.perPage === DEFAULT_PER_PAGE ? '' : `&per_page=${page.perPage}`)
  const { current_page, from, last_page, per_page, to, total } = pageMeta(page)
  const numbered = Array.from({ length: last }, (_, i) => ({
    url: url(i + 1),
    label: String(i + 1),
    active: i + 1 === page.page,
  }))
  return {
    data,
    links: {
      first: url(1),
      last: url(last),
      prev: page.page > 1 ? url(page.page - 1) : null,
      next: page.page < last ? url(page.page + 1) : null,
    },
    meta: {
      current_page,
      from,
      last_page,
      links: [
        {
          url: page.page > 1 ? url(page.page - 1) : null,
          label: '&laquo; Previous',
          active: false,
        },
        ...numbered,
        { url: page.page < last ? url(page.page + 1) : null, label: 'Next &raquo;', active: false },
      ],
      path,
      per_page,
      to,
      total,
    },
  }
}

/**
 * PRODUCT §2: transaction (and other Laravel) `created_at` carries microseconds
 * (`.000000Z`) and `expired_at` milliseconds (`.000Z`); quirks off gives plain ISO 8601.
 */
export function createdAtJson(ms: number, p: Presenting): string {
  const iso = new Date(ms).toISOString()
  return p.quirks ? iso.replace(/\.(\d{3})Z$/, '.$1000Z') : iso
}

export function expiredAtJson(ms: number): string {
  return new Date(ms).toISOString()
}

/** PRODUCT §2: brands are capitalised in responses with quirks on ("Visa"). */
export function brandJson(brand: string, p: Presenting): string {
  return p.quirks ? brandName(brand) : brand
}
