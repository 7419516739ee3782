/**
 * Once a request has answered, whatever it (or its catch-up) wrote to the webhook outbox goes out
 * at once rather than on the next tick (engine/ticker.ts).
 */
import type { MiddlewareHandler } from 'hono'
import { eventsWritten } from '../../domain/outbox.js'
import type { AppEnv } from '../../env.js'

export function webhookKick(): MiddlewareHandler<AppEnv> {
  return async function webhookKick(c, next) {
    const { db, deliverer } = c.get('deps')
    const written = eventsWritten(db)
    await next()
    if (eventsWritten(db) !== written) deliverer.kick()
  }
}
