/**
 * The stage that waits for the answer: once a request has answered, each of `onAnswer` runs
 * (the request journal, journal.ts; the webhook kick, webhook-kick.ts). One stage for all of
 * them, since each stage that awaits the answer costs every request an async frame of its own.
 * Chained last in its layer (chained.ts): the answer it waits for is then compose's, errors
 * already rendered.
 */
import type { Context, MiddlewareHandler } from 'hono'
import type { AppEnv } from '../../wiring/env.js'

/** Work done once the request has answered; `startedAt` is performance.now() at its arrival. */
export type OnAnswer = (c: Context<AppEnv>, startedAt: number) => void

export function answered(...onAnswer: OnAnswer[]): MiddlewareHandler<AppEnv> {
  return async function answered(c, next) {
    const startedAt = performance.now()
    await next()
    for (const run of onAnswer) run(c, startedAt)
  }
}
