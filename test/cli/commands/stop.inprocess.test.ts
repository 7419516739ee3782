/**
 * `card-sandbox stop` and the pid file, run in this process (in-process.ts) against real
 * processes: a child that takes its time to stop, one that never does, one that leaves its pid
 * file to another. commands.inprocess.test.ts has the plain cases (a process that stops at once,
 * a missing, invalid or stale file); these are what those cannot tell apart.
 */
import { spawn, type ChildProcessWithoutNullStreams } from 'node:child_process'
import { existsSync, readFileSync, statSync, utimesSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { describe, expect, it } from 'vitest'
import { readPidFile, writePidFile } from '../../../src/cli/commands/pid-file.js'
import { stopCommand } from '../../../src/cli/commands/stop.js'
import { isRunning, startedAt } from '../../../src/lib/processes.js'
import { tempDir } from '../../temp-dir.js'
import { startRun } from './in-process.js'

const stop = (args: string[], env: NodeJS.ProcessEnv = {}) =>
  startRun((a, e) => stopCommand.run(a, e), args, env).done

/**
 * A child process and its pid file (written as a sandbox writes it). `onTerm` is its SIGTERM
 * handler's body: the child says `term` on stdout first. Resolves once the handler is in place.
 */
async function child(dir: string, onTerm: string) {
  const script = [
    `process.on('SIGTERM', () => { process.stdout.write('term\\n'); ${onTerm} })`,
    'setInterval(() => {}, 1000)',
    "process.stdout.write('ready\\n')",
  ].join('\n')
  const proc = spawn(process.execPath, ['-e', script], { stdio: 'pipe' })
  const pid = proc.pid!
  const file = join(dir, 'sandbox.pid')
  const exited = new Promise<void>((resolve) => proc.once('exit', () => resolve()))
  await said(proc, 'ready')
  writeFileSync(file, `${pid}\n`)
  const kill = async () => {
    if (proc.exitCode === null && proc.signalCode === null) proc.kill('SIGKILL')
    await exited
  }
  return { proc, pid, file, exited, kill }
}

/** Resolves once `proc` has written the line `word` on its stdout. */
function said(proc: ChildProcessWithoutNullStreams, word: string): Promise<void> {
  return new Promise((resolve, reject) => {
    let out = ''
    const onData = (chunk: Buffer) => {
      out += chunk.toString()
      if (!out.split('\n').includes(word)) return
      proc.stdout.off('data', onData)
      resolve()
    }
    proc.stdout.on('data', onData)
    proc.once('exit', () => reject(new Error(`the child exited before saying ${word}`)))
  })
}

/** A child that, told to stop, waits for a line on its stdin before it exits (5 s at most). */
const slowToStop = (dir: string) =>
  child(
    dir,
    "process.stdin.once('data', () => process.exit(0)); setTimeout(() => process.exit(0), 5000)",
  )

describe('stop', () => {
  it('waits until the process has gone, however long its shutdown takes', async () => {
    const dir = tempDir()
    const { proc, pid, file, kill } = await slowToStop(dir)
    try {
      const order: string[] = []
      const stopping = stop(['--pid-file', file]).then((output) => {
        order.push('stop returned')
        return output
      })
      await said(proc, 'term')
      order.push('the process got SIGTERM')
      // still shutting down: stop has not returned
      expect(isRunning(pid)).toBe(true)
      expect(order).toEqual(['the process got SIGTERM'])
      proc.stdin.write('exit\n')
      expect(await stopping).toEqual({
        code: 0,
        stdout: `card-sandbox: stopped the sandbox of ${file} (pid ${pid})\n`,
        stderr: '',
      })
      expect(order).toEqual(['the process got SIGTERM', 'stop returned'])
      expect(isRunning(pid)).toBe(false)
      // it left its file (killed on the way, as it were): stop removed it
      expect(existsSync(file)).toBe(false)
    } finally {
      await kill()
    }
  })

  it('leaves a pid file another process wrote while the stopped one shut down', async () => {
    // the new file names a pid no process has (above any pid_max) or a running one (this process)
    for (const other of [99_999_999, process.pid]) {
      const dir = tempDir()
      const { proc, pid, file, kill } = await slowToStop(dir)
      try {
        const stopping = stop(['--pid-file', file])
        await said(proc, 'term')
        writeFileSync(file, `${other}\n`)
        proc.stdin.write('exit\n')
        expect((await stopping).code).toBe(0)
        expect(isRunning(pid)).toBe(false)
        expect(readFileSync(file, 'utf8'), `a file naming ${other}`).toBe(`${other}\n`)
      } finally {
        await kill()
      }
    }
  })

  it('suggests --pid-file for a mistyped flag', async () => {
    const typo = await stop(['--pid-fil', 'x.pid'])
    expect(typo).toEqual({
      code: 2,
      stdout: '',
      stderr:
        "card-sandbox: unknown flag --pid-fil; did you mean --pid-file?\nRun 'npx card-sandbox help stop'.\n",
    })
  })

  // last: it waits out the whole 15 s
  it('gives up 15 s after SIGTERM on a process that will not stop, and leaves it and its file', async () => {
    const dir = tempDir()
    const { proc, pid, file, kill } = await child(dir, '/* ignored */')
    try {
      const began = performance.now()
      const stopping = stop(['--pid-file', file])
      await said(proc, 'term')
      expect(await stopping).toEqual({
        code: 1,
        stdout: '',
        stderr: `card-sandbox: process ${pid} is still running 15 s after SIGTERM\n`,
      })
      expect(performance.now() - began).toBeGreaterThanOrEqual(15_000)
      expect(isRunning(pid)).toBe(true)
      expect(readFileSync(file, 'utf8')).toBe(`${pid}\n`)
    } finally {
      await kill()
    }
  }, 30_000)
})

describe('the pid file', () => {
  it('is removed when this process exits, and its removal stops watching for the exit', () => {
    const dir = tempDir()
    const file = join(dir, 'own.pid')
    const before = process.listeners('exit')
    writePidFile(file)
    const added = process.listeners('exit').filter((listener) => !before.includes(listener))
    expect(added).toHaveLength(1)
    // what happens at exit, without exiting
    ;(added[0] as () => void)()
    expect(existsSync(file)).toBe(false)
    expect(process.listeners('exit')).toEqual(before)

    // removed by hand first: no listener is left for the exit either
    const remove = writePidFile(file)
    remove()
    expect(existsSync(file)).toBe(false)
    expect(process.listeners('exit')).toEqual(before)
  })

  it('counts a process started up to 1 s after the file was written as the file’s own', () => {
    const dir = tempDir()
    const file = join(dir, 'clock.pid')
    const started = startedAt(process.pid)!
    expect(started).toBeDefined()
    /** Writes this process's pid with the time `ms` (utimes keeps microseconds: half of one more). */
    const writtenAt = (ms: number) => {
      writeFileSync(file, `${process.pid}\n`)
      utimesSync(file, (ms + 0.0005) / 1000, (ms + 0.0005) / 1000)
      expect(statSync(file).mtimeMs).toBe(ms)
      return readPidFile(file).state
    }
    expect(writtenAt(started - 1_000)).toBe('running')
    expect(writtenAt(started - 1_001)).toBe('stale')
  })
})
