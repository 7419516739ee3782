/** What the command reads of other processes (src/processes.ts), against real processes. */
import { spawn, spawnSync } from 'node:child_process'
import { readFileSync } from 'node:fs'
import { describe, expect, it } from 'vitest'
import { isRunning, parentOf, startedAt } from '../src/processes.js'

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
})
