/**
 * The due-work stage (PRODUCT §6): before a real-clock tenant's request is handled, what fell due
 * on its clock since the last tick runs, so that a client never reads a state that should have
 * moved. Nothing is asked of SQL unless the tenant's earliest due instant, kept in memory
 * (store/jobs.ts dueAt), has passed (engine/scheduler.ts catchUp).
 */
import type { MiddlewareHandler } from 'hono'
import type { AppEnv } from '../../wiring/env.js'
import { catchUp } from '../../engine/scheduler.js'

export function dueWork(): MiddlewareHandler<AppEnv> {
  return function dueWork(c, next) {
    const ctx = c.get('ctx')
    const running = catchUp(c.get('deps'), ctx.tenant, ctx.now)
    return running ? running.then(next) : next()
  }
}
