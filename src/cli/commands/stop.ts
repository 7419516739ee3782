/**
 * `card-sandbox stop [--pid-file <file>]`: stops the sandbox that was started with
 * `--pid-file <file>` (or CARD_SANDBOX_PID_FILE, read by both), the way Ctrl-C does: SIGTERM,
 * then it waits until the process is gone. For scripts that start the sandbox in the background.
 */
import { parseArgs } from 'node:util'
import { envName } from '../flags.js'
import { helpRow } from '../help.js'
import { flagErrorMessage } from '../suggest.js'
import { isRunning } from '../../lib/processes.js'
import { readPidFile, removePidFile } from './pid-file.js'
import type { Command } from './command.js'

/** Longer than a shutdown takes: in-flight requests (5 s grace) and webhook attempts (5 s). */
const STOP_TIMEOUT_MS = 15_000

export const stopCommand: Command = {
  name: 'stop',
  usage: 'stop [--pid-file <file>]',
  summary: 'stop the sandbox started with --pid-file <file>, and wait until it is gone',
  help: [
    helpRow(
      '--pid-file <file>',
      'the file the sandbox was started with',
      `env ${envName('pid-file')}`,
    ),
  ],
  run: stop,
}

async function stop(args: string[], env: NodeJS.ProcessEnv): Promise<number> {
  let file: string | undefined
  try {
    const { values } = parseArgs({
      args,
      strict: true,
      allowPositionals: false,
      options: { 'pid-file': { type: 'string' } },
    })
    file = values['pid-file'] ?? env[envName('pid-file')]
  } catch (error) {
    return fail(2, `${flagErrorMessage(error, ['pid-file'])}\nRun 'npx card-sandbox help stop'.`)
  }
  if (!file) {
    return fail(
      2,
      `stop needs --pid-file <file> (or ${envName('pid-file')}): the file the sandbox was started with`,
    )
  }
  const pidFile = readPidFile(file)
  if (pidFile.state === 'missing') return fail(1, `no sandbox to stop: ${file} does not exist`)
  if (pidFile.state === 'invalid') return fail(1, `no sandbox to stop: ${file} holds no process id`)
  if (pidFile.state === 'stale') {
    removePidFile(file)
    return fail(
      1,
      `no sandbox to stop: process ${pidFile.pid} of ${file} is not running (stale file removed)`,
    )
  }
  const { pid } = pidFile
  try {
    process.kill(pid, 'SIGTERM')
  } catch (error) {
    return fail(1, `could not stop process ${pid}: ${(error as Error).message}`)
  }
  // a wait, measured on the monotonic clock: no instant of any sandbox clock
  const deadline = performance.now() + STOP_TIMEOUT_MS
  while (isRunning(pid)) {
    if (performance.now() > deadline)
      return fail(1, `process ${pid} is still running ${STOP_TIMEOUT_MS / 1000} s after SIGTERM`)
    await new Promise((resolve) => setTimeout(resolve, 50))
  }
  // a server stopped cleanly removed its file; one killed on the way left it
  const left = readPidFile(file)
  if (left.state === 'stale' && left.pid === pid) removePidFile(file)
  process.stdout.write(`card-sandbox: stopped the sandbox of ${file} (pid ${pid})\n`)
  return 0
}

function fail(code: number, message: string): number {
  process.stderr.write(`card-sandbox: ${message}\n`)
  return code
}
