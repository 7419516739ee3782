/**
 * The real service's throttle (its answers carry `X-RateLimit-Limit: 60`): each tenant's /v1
 * requests are counted in a window of one minute of the tenant's clock that opens with the first
 * request after the last one closed, as Laravel's rate limiter counts. Kept in memory: one
 * process owns a store, and a count costs a Map lookup.
 */

/** What the real service allows a minute, shown when nothing is enforced. */
export const REAL_LIMIT_PER_MINUTE = 60
export const RATE_WINDOW_MS = 60_000
/** Windows kept before the closed ones are dropped (tenants seen within a minute stay). */
const MAX_WINDOWS = 10_000

/** A request's place in its tenant's minute; `retryAfterSeconds` only when it is refused. */
export type RateCount = { limit: number; remaining: number; retryAfterSeconds?: number }

type Window = { openedAt: number; count: number }

/**
 * A counter of requests per tenant. With `enforced` (a number of requests a minute), a request
 * past it is refused and not counted; without, the real service's 60 is shown and never enforced.
 */
export function createRateCounter(enforced: number | false) {
  const limit = enforced === false ? REAL_LIMIT_PER_MINUTE : enforced
  const windows = new Map<string, Window>()

  const closed = (window: Window, now: number) =>
    now >= window.openedAt + RATE_WINDOW_MS || now < window.openedAt

  return function count(tenantId: string, now: number): RateCount {
    let window = windows.get(tenantId)
    if (window === undefined || closed(window, now)) {
      if (windows.size >= MAX_WINDOWS)
        for (const [id, w] of windows) if (closed(w, now)) windows.delete(id)
      window = { openedAt: now, count: 0 }
      windows.set(tenantId, window)
    }
    if (enforced !== false && window.count >= limit) {
      const msLeft = window.openedAt + RATE_WINDOW_MS - now
      return { limit, remaining: 0, retryAfterSeconds: Math.max(1, Math.ceil(msLeft / 1000)) }
    }
    window.count += 1
    return { limit, remaining: Math.max(0, limit - window.count) }
  }
}
