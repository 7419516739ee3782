/**
 * Running the CLI's code in this process, as the built command would run it: a command's
 * `run(args, env)` (or `main`) with stdout and stderr captured, Ctrl-C sent to the listeners it
 * added and to no other, and the `process.exit` it calls once stopped seen instead of done (it
 * would end the test run). So a mutation of src/ is seen (vitest.mutation.config.ts).
 */
import { vi } from 'vitest'
import { until } from '../../webhooks/receiver.js'

export type Output = { code: number; stdout: string; stderr: string }

/** What this process writes to stdout and stderr, from now until `restore()`. */
export function captureOutput() {
  const live = { stdout: '', stderr: '' }
  const spies = (['stdout', 'stderr'] as const).map((stream) =>
    vi.spyOn(process[stream], 'write').mockImplementation((chunk: string | Uint8Array) => {
      live[stream] += String(chunk)
      return true
    }),
  )
  return { live, restore: () => spies.forEach((spy) => spy.mockRestore()) }
}

/**
 * Runs `run(args, env)` with its output captured until it resolves; `live` sees the output as
 * it is written.
 */
export function startRun(
  run: (args: string[], env: NodeJS.ProcessEnv) => Promise<number>,
  args: string[],
  env: NodeJS.ProcessEnv,
) {
  const { live, restore } = captureOutput()
  const done: Promise<Output> = run(args, env)
    .then((code) => ({ code, ...live }))
    .finally(restore)
  return { done, live }
}

/** The listeners of the signals that stop a command, to tell the ones it adds. */
export const signalListeners = () => [
  ...process.rawListeners('SIGINT'),
  ...process.rawListeners('SIGTERM'),
  ...process.rawListeners('SIGHUP'),
]

/**
 * Stops a command that runs until Ctrl-C as `signal` would: calls the listeners of it added
 * since `before`, and takes away those it added for the other stop signal.
 */
export function interrupt(before: unknown[], signal: 'SIGINT' | 'SIGTERM' = 'SIGINT') {
  const other = signal === 'SIGINT' ? 'SIGTERM' : 'SIGINT'
  for (const listener of process.rawListeners(signal))
    if (!before.includes(listener)) (listener as (signal: string) => void)(signal)
  for (const listener of process.rawListeners(other))
    if (!before.includes(listener)) process.off(other, listener as () => void)
}

/** The codes `process.exit` is called with, from now until `restore()`; the process goes on. */
export function catchExit() {
  const codes: unknown[] = []
  const spy = vi.spyOn(process, 'exit').mockImplementation(((code?: number) => {
    codes.push(code)
  }) as typeof process.exit)
  return { codes, restore: () => spy.mockRestore() }
}

/**
 * A command that serves until Ctrl-C (serve, proxy) run in this process: resolves once its
 * run() has, with its code, what it prints (`live`, as it is printed), `stop(signal)`, which
 * stops it as the signal would and resolves with the codes it then called process.exit with,
 * and `end()`, which stops it if it still serves and gives the process back its output and exit.
 */
export async function startService(
  run: (args: string[], env: NodeJS.ProcessEnv) => Promise<number>,
  args: string[],
  env: NodeJS.ProcessEnv,
) {
  const before = signalListeners()
  const stdoutErrorListeners = process.stdout.listeners('error')
  const output = captureOutput()
  const exit = catchExit()
  let serving = false
  const stop = async (signal: 'SIGINT' | 'SIGTERM' = 'SIGTERM') => {
    serving = false
    interrupt(before, signal)
    await until(() => exit.codes.length > 0, 10_000, 'the command to stop')
    return exit.codes
  }
  const end = async () => {
    try {
      if (serving) await stop()
    } finally {
      output.restore()
      exit.restore()
      // a command that serves keeps writing whatever happens to stdout: not past its test
      for (const listener of process.stdout.listeners('error'))
        if (!stdoutErrorListeners.includes(listener))
          process.stdout.off('error', listener as () => void)
    }
  }
  let code: number
  try {
    code = await run(args, env)
  } catch (error) {
    await end()
    throw error
  }
  serving = code === 0
  return { code, live: output.live, stop, end }
}
