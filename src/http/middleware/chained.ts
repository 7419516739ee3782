/**
 * Stages that act only before the route (each does its work, then returns `next()` and does
 * nothing once the answer is made), run in one Hono layer. Hono's compose costs every layer an
 * async dispatch and a promise resolved with the Context, about a thousand machine instructions
 * (bench/HISTORY.md); a request to /v1 crossed a dozen layers before its stages were chained.
 * Chained, a stage that throws or answers early ends the request exactly as it would in compose:
 * none of the stages around it has anything left to do, and the layer hands the error to
 * app.onError.
 *
 * Stages with work after `next()` (answered.ts, for the journal and the webhook kick;
 * scenarios) may be chained too, at the end, after every stage that may throw or answer early:
 * the `next()` they wait for is then compose's, which renders any error below as the answer
 * before it returns, so their work after it always runs and sees that answer. A stage that may
 * throw, placed after one of them, would end the request without that work.
 */
import type { Env, MiddlewareHandler, Next } from 'hono'

export function chained<E extends Env>(
  ...stages: [MiddlewareHandler<E>, ...MiddlewareHandler<E>[]]
): MiddlewareHandler<E> {
  return stages.reduceRight(
    (inner, stage): MiddlewareHandler<E> =>
      (c, next) =>
        stage(c, (() => inner(c, next)) as Next),
  )
}
