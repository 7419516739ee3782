/**
 * Once a request has answered (answered.ts), whatever was written to the webhook outbox since
 * the last kick (by this request, its catch-up or its --fixtures seeding, or a request answered
 * meanwhile) goes out at once rather than on the next tick (engine/ticker.ts).
 */
import { eventsWritten } from '../../domain/outbox.js'
import type { OnAnswer } from './answered.js'

export function webhookKick(): OnAnswer {
  let kickedAt = 0
  return function webhookKick(c) {
    const { db, deliverer } = c.get('deps')
    const written = eventsWritten(db)
    if (written === kickedAt) return
    kickedAt = written
    deliverer.kick()
  }
}
