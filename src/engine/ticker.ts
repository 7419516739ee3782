/**
 * The one ticker of a sandbox: everything periodic runs from it, every TICK_MS of wall time, in
 * the order given (the scheduler's due jobs, the sweep of reset tenants' rows, webhook
 * delivery: sandbox.ts). A task that throws is reported and the others still run; the timer
 * never keeps the process alive.
 */

export const TICK_MS = 100

export type Task = { name: string; run: () => void }

/** Starts ticking; returns what stops it. */
export function startTicker(tasks: readonly Task[], everyMs = TICK_MS): () => void {
  const timer = setInterval(() => {
    for (const task of tasks) {
      try {
        task.run()
      } catch (error) {
        console.error(`card-sandbox: ${task.name} tick failed`, error)
      }
    }
  }, everyMs)
  timer.unref()
  return () => clearInterval(timer)
}
