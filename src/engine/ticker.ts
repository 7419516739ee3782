/**
 * The one ticker of a sandbox: everything periodic runs from it, every TICK_MS of wall time, in
 * the order given (the scheduler's due jobs, the sweep of reset tenants' rows, webhook
 * delivery, the trim of the webhook logs: sandbox.ts), each awaited before the next. A tick
 * still running when the next is due makes that one skip. A task that throws is reported and
 * the others still run; once stopped (the database closing under a task), nothing more is run or
 * reported. A database that cannot be reached (PostgreSQL restarting) is said once per task, and
 * its return once. The timer never keeps the process alive.
 */
import { describeCause, storeUnreachable } from '../store/open.js'

export const TICK_MS = 100

export type Task = { name: string; run: () => Promise<unknown> }

/** Starts ticking; returns what stops it. */
export function startTicker(tasks: readonly Task[], everyMs = TICK_MS): () => void {
  let ticking = false
  let stopped = false
  /** Tasks whose last run found the database unreachable: said once, not every tick. */
  const unreachable = new Set<string>()
  async function tick(): Promise<void> {
    for (const task of tasks) {
      if (stopped) return
      try {
        await task.run()
        if (unreachable.delete(task.name))
          console.error(`card-sandbox: ${task.name} runs again: the database is back`)
      } catch (error) {
        if (stopped) continue
        if (!storeUnreachable(error)) console.error(`card-sandbox: ${task.name} tick failed`, error)
        else if (!unreachable.has(task.name)) {
          unreachable.add(task.name)
          console.error(
            `card-sandbox: ${task.name} waits: the database is unreachable (${describeCause(error)})`,
          )
        }
      }
    }
  }
  const timer = setInterval(() => {
    if (ticking) return
    ticking = true
    void tick().finally(() => (ticking = false))
  }, everyMs)
  timer.unref()
  return () => {
    stopped = true
    clearInterval(timer)
  }
}
