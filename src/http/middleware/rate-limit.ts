/**
 * The rate-limit stage (/v1 only, once the tenant is known): counts the request in its tenant's
 * minute (domain/rate-limit.ts) for the `X-RateLimit-*` headers every /v1 answer carries
 * (envelope.ts), and under `--rate-limit` refuses one past the limit with a 429 and
 * `Retry-After` in seconds of the tenant's clock.
 */
import type { MiddlewareHandler } from 'hono'
import type { AppEnv } from '../../wiring/env.js'
import { SandboxError, TOO_MANY_ATTEMPTS } from '../../domain/errors.js'
import { createRateCounter } from '../../domain/rate-limit.js'

export function rateLimit(enforced: number | false): MiddlewareHandler<AppEnv> {
  const count = createRateCounter(enforced)
  return function rateLimit(c, next) {
    const ctx = c.get('ctx')
    const place = count(ctx.tenant.id, ctx.now)
    c.set('rateLimit', place)
    // Laravel's throttle message
    if (place.retryAfterSeconds !== undefined)
      throw new SandboxError('too_many_requests', TOO_MANY_ATTEMPTS)
    return next()
  }
}
