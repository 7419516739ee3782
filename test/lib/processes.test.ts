/** What the command reads of other processes (src/lib/processes.ts), against real processes. */
import { spawn, spawnSync } from 'node:child_process'
import { closeSync, constants, existsSync, openSync, readFileSync, writeFileSync } from 'node:fs'
import { Socket } from 'node:net'
import { join } from 'node:path'
import { createInterface } from 'node:readline'
import { PassThrough } from 'node:stream'
import { afterEach, describe, expect, it } from 'vitest'
import {
  isRunning,
  parentOf,
  startedAt,
  watchParent,
  watchStdinEnd,
} from '../../src/lib/processes.js'
import { until } from '../webhooks/receiver.js'
import { tempDir } from '../temp-dir.js'

const cleanups: (() => unknown)[] = []
afterEach(() => {
  for (const cleanup of cleanups.splice(0).reverse()) cleanup()
})

/** Kills `pid` when the test ends, if it still runs. */
const killAfterwards = (pid: number) =>
  cleanups.push(() => isRunning(pid) && process.kill(pid, 'SIGKILL'))

/** The tsc build of src/lib/processes.ts (`npm test` builds first), for a process of its own. */
const BUILT_PROCESSES = new URL('../../dist/lib/processes.js', import.meta.url).href

describe.runIf(process.platform === 'linux')('processes (Linux: /proc)', () => {
  it('tells a running process from one that has ended', () => {
    expect(isRunning(process.pid)).toBe(true)
    const ended = Number(spawnSync(process.execPath, ['-e', 'console.log(process.pid)']).stdout)
    expect(isRunning(ended)).toBe(false)
    expect(isRunning(0)).toBe(false)
    expect(isRunning(-1)).toBe(false)
  })

  it('counts a process that has ended but is not yet reaped (a zombie) as ended', () => {
    const child = spawn('true')
    // node reaps its children from the event loop: until this test yields, `true` stays a zombie
    const state = () => readFileSync(`/proc/${child.pid}/stat`, 'utf8').split(') ')[1][0]
    const deadline = Date.now() + 5_000
    while (state() !== 'Z' && Date.now() < deadline);
    expect(state()).toBe('Z')
    expect(() => process.kill(child.pid!, 0)).not.toThrow()
    expect(isRunning(child.pid!)).toBe(false)
  })

  it('reads when a process started and who its parent is', async () => {
    const started = startedAt(process.pid)!
    const fromUptime = Date.now() - process.uptime() * 1000
    expect(Math.abs(started - fromUptime)).toBeLessThan(2_000)
    expect(parentOf(process.pid)).toBe(process.ppid)

    const child = spawn(process.execPath, ['-e', 'setTimeout(() => {}, 10000)'])
    try {
      await new Promise((resolve) => child.once('spawn', resolve))
      expect(parentOf(child.pid!)).toBe(process.pid)
      expect(startedAt(child.pid!)).toBeGreaterThanOrEqual(started)
    } finally {
      child.kill('SIGKILL')
    }
  })

  it("calls back once a process's parent has gone (SIGKILL), not while it lives", async () => {
    // a parent of our own that starts a child and prints its pid
    const parent = spawn(
      process.execPath,
      [
        '-e',
        `const child = require('node:child_process').spawn(process.execPath, ['-e', 'setTimeout(() => {}, 30000)'], { stdio: 'ignore' })
console.log(child.pid)
setInterval(() => {}, 1000)`,
      ],
      { stdio: ['ignore', 'pipe', 'inherit'] },
    )
    killAfterwards(parent.pid!)
    const lines = createInterface({ input: parent.stdout })[Symbol.asyncIterator]()
    const child = Number((await lines.next()).value)
    killAfterwards(child)
    expect(parentOf(child)).toBe(parent.pid)
    // this process and its parent, which lives on: watched first, so each of its polls comes
    // before the other watch's
    let ours = 0
    cleanups.push(watchParent(() => ours++, [process.pid, process.ppid]))
    let gone = 0
    cleanups.push(watchParent(() => gone++, [child, parent.pid!]))
    parent.kill('SIGKILL')
    await until(() => gone > 0, 5_000, 'the watch to notice')
    expect(isRunning(child)).toBe(true)
    expect([gone, ours]).toEqual([1, 0])
  })

  it('calls back once a pipe ends, when the process holding its other end dies, having read what came', async () => {
    const fifo = join(tempDir('card-sandbox-stdin-'), 'stdin')
    expect(spawnSync('mkfifo', [fifo]).status).toBe(0)
    const fd = openSync(fifo, constants.O_RDONLY | constants.O_NONBLOCK)
    const writeEnd = openSync(fifo, constants.O_WRONLY)
    // more than a pipe holds (64 KiB): the writer waits for each part to be read
    const writer = spawn(
      process.execPath,
      ['-e', "process.stdout.write('x'.repeat(200_000)); setInterval(() => {}, 1000)"],
      { stdio: ['ignore', writeEnd, 'ignore'] },
    )
    closeSync(writeEnd)
    killAfterwards(writer.pid!)
    const stream = new Socket({ fd, readable: true, writable: false })
    cleanups.push(() => stream.destroy())
    let ended = 0
    watchStdinEnd(() => ended++, { fd, stream })
    await until(() => stream.bytesRead === 200_000, 5_000, 'what the writer sent')
    expect(ended).toBe(0)
    writer.kill('SIGKILL')
    await until(() => ended > 0, 5_000, 'the end of the pipe')
    expect(ended).toBe(1)
  })

  it('watches no file and no /dev/null', () => {
    const file = join(tempDir('card-sandbox-stdin-'), 'input.txt')
    writeFileSync(file, 'text')
    for (const path of [file, '/dev/null']) {
      const fd = openSync(path, 'r')
      cleanups.push(() => closeSync(fd))
      const stream = new PassThrough()
      watchStdinEnd(() => {}, { fd, stream })
      expect(stream.listenerCount('end'), path).toBe(0)
    }
  })

  // runs the built module in a process of its own: skipped where dist/ is absent (the mutation
  // tool's copy of the tree), where that process could not see a mutant of src/ anyway
  it.skipIf(!existsSync(new URL(BUILT_PROCESSES)))(
    'notices that npm went away even before the watch began (process.ppid is read lazily)',
    async () => {
      const dir = tempDir('card-sandbox-launcher-')
      // a stand-in for the command: notes its parent on load, watches when told to
      const script = join(dir, 'command.mjs')
      writeFileSync(
        script,
        `const { watchLauncher } = await import(${JSON.stringify(BUILT_PROCESSES)})
process.on('SIGUSR2', () => watchLauncher(process.env, () => { console.log('gone'); process.exit(0) }))
console.log('ready', process.pid)
setInterval(() => {}, 1000)
`,
      )
      // npm → sh -c → node; `; true` keeps sh from exec-ing node in its place
      const shell = spawn('sh', ['-c', `"${process.execPath}" "${script}"; true`], {
        env: { ...process.env, npm_lifecycle_event: 'test' },
        stdio: ['ignore', 'pipe', 'inherit'],
      })
      let output = ''
      shell.stdout.on('data', (chunk) => (output += chunk))
      await until(() => /ready \d+/.test(output), 10_000, 'the command')
      const command = Number(/ready (\d+)/.exec(output)![1])
      try {
        // the shell goes first, then the watch begins
        shell.kill('SIGKILL')
        await until(() => parentOf(command) !== shell.pid, 5_000, 'the command to be adopted')
        process.kill(command, 'SIGUSR2')
        await until(() => output.includes('gone'), 5_000, 'the watch to notice')
      } finally {
        if (isRunning(command)) process.kill(command, 'SIGKILL')
      }
    },
  )
})
