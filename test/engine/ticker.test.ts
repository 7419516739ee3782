/** The one ticker (src/engine/ticker.ts): what it says when a task fails. */
import { afterEach, expect, it, vi } from 'vitest'
import { startTicker } from '../../src/engine/ticker.js'

const stops: (() => void)[] = []
afterEach(() => {
  for (const stop of stops.splice(0)) stop()
  vi.restoreAllMocks()
})

const until = async (ready: () => boolean) => {
  for (let i = 0; i < 500 && !ready(); i++) await new Promise((r) => setTimeout(r, 5))
}

it('says once that the database is unreachable while a task keeps failing on it, and once that it is back', async () => {
  const logged = vi.spyOn(console, 'error').mockImplementation(() => {})
  let runs = 0
  const unreachable = Object.assign(new Error('connect ECONNREFUSED 127.0.0.1:5432'), {
    code: 'ECONNREFUSED',
  })
  stops.push(
    startTicker(
      [
        {
          name: 'due work',
          run: async () => {
            runs++
            // drizzle wraps the driver's error as its cause
            if (runs <= 5) throw new Error('Failed query: select …', { cause: unreachable })
          },
        },
      ],
      5,
    ),
  )
  await until(() => runs >= 8)
  expect(logged.mock.calls.map((call) => call.join(' '))).toEqual([
    'card-sandbox: due work waits: the database is unreachable (connect ECONNREFUSED 127.0.0.1:5432)',
    'card-sandbox: due work runs again: the database is back',
  ])
})

it('reports every other failure of a task, each time, and runs the next task anyway', async () => {
  const logged = vi.spyOn(console, 'error').mockImplementation(() => {})
  let after = 0
  stops.push(
    startTicker(
      [
        { name: 'sweep', run: () => Promise.reject(new Error('no such table')) },
        { name: 'delivery', run: async () => void after++ },
      ],
      5,
    ),
  )
  await until(() => after >= 3)
  expect(logged.mock.calls.length).toBeGreaterThanOrEqual(2)
  for (const call of logged.mock.calls) expect(call[0]).toBe('card-sandbox: sweep tick failed')
})

it('never runs a tick while the last is still running: a slow task makes the next ticks skip', async () => {
  let running = 0
  let most = 0
  let runs = 0
  stops.push(
    startTicker(
      [
        {
          name: 'slow',
          run: async () => {
            runs++
            most = Math.max(most, ++running)
            await new Promise((r) => setTimeout(r, 30)) // six intervals
            running--
          },
        },
      ],
      5,
    ),
  )
  await until(() => runs >= 3)
  expect(most).toBe(1)
})

it('once stopped, runs no further task of the tick under way and reports no failure', async () => {
  const logged = vi.spyOn(console, 'error').mockImplementation(() => {})
  let later = 0
  let failed = false
  let stop = () => {}
  stop = startTicker(
    [
      {
        name: 'closing',
        run: async () => {
          // the database closes under the task: the sandbox stopped the ticker meanwhile
          stop()
          failed = true
          throw new Error('The database connection is not open')
        },
      },
      { name: 'delivery', run: async () => void later++ },
    ],
    5,
  )
  stops.push(stop)
  await until(() => failed)
  await new Promise((r) => setTimeout(r, 50))
  expect(later).toBe(0)
  expect(logged).not.toHaveBeenCalled()
})

it('stops ticking when stopped', async () => {
  let runs = 0
  const stop = startTicker([{ name: 'count', run: async () => void runs++ }], 5)
  stops.push(stop)
  await until(() => runs >= 2)
  stop()
  const at = runs
  await new Promise((r) => setTimeout(r, 50))
  expect(runs).toBe(at)
})
