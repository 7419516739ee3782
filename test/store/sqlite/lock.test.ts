/**
 * One served sandbox per database file: `<file>.lock` names the holder; a second
 * sandbox is refused while the holder runs, and a lock whose holder is gone (or whose pid now
 * belongs to a later process) is taken over. In-process sandboxes (createSandbox) take none.
 */
import { spawnSync } from 'node:child_process'
import { existsSync, readFileSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { afterEach, describe, expect, it } from 'vitest'
import { DatabaseInUseError, lockDatabase } from '../../../src/store/sqlite/lock.js'
import { startedAt } from '../../../src/lib/processes.js'
import { createSandbox, startSandbox } from '../../../src/server/sandbox.js'
import { tempDir } from '../../temp-dir.js'

const cleanups: (() => unknown)[] = []
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup()
})

const serve = (db: string) => startSandbox({ db, port: 0 })

function databaseFile() {
  return join(tempDir('card-sandbox-lock-'), 'sandbox.sqlite')
}

/** The pid of a process that has ended. */
function deadPid(): number {
  return Number(spawnSync(process.execPath, ['-e', 'console.log(process.pid)']).stdout)
}

describe('the database lock', () => {
  it('refuses a second sandbox on a file the first holds, naming the file and the holder', async () => {
    const file = databaseFile()
    const first = await serve(file)
    cleanups.push(() => first.close())
    expect(JSON.parse(readFileSync(`${file}.lock`, 'utf8'))).toEqual({
      pid: process.pid,
      startedAt: startedAt(process.pid),
    })
    await expect(serve(file)).rejects.toThrow(DatabaseInUseError)
    await expect(serve(file)).rejects.toThrow(
      `the database ${file} is in use by another sandbox (pid ${process.pid}`,
    )
  })

  it('is let go when the sandbox closes', async () => {
    const file = databaseFile()
    await (await serve(file)).close()
    expect(existsSync(`${file}.lock`)).toBe(false)
    const again = await serve(file)
    await again.close()
  })

  it('takes over the lock of a process that has ended', async () => {
    const file = databaseFile()
    writeFileSync(`${file}.lock`, JSON.stringify({ pid: deadPid(), startedAt: 0 }))
    const sandbox = await serve(file)
    cleanups.push(() => sandbox.close())
    expect(JSON.parse(readFileSync(`${file}.lock`, 'utf8')).pid).toBe(process.pid)
  })

  it('takes over a lock whose pid now names a process started later (a reused pid)', () => {
    const file = databaseFile()
    const mine = startedAt(process.pid)!
    writeFileSync(`${file}.lock`, JSON.stringify({ pid: process.pid, startedAt: mine - 60_000 }))
    const release = lockDatabase(file)
    cleanups.push(release)
    expect(JSON.parse(readFileSync(`${file}.lock`, 'utf8')).startedAt).toBe(mine)
  })

  it('takes over a lock file that names nobody', () => {
    const file = databaseFile()
    writeFileSync(`${file}.lock`, 'garbage')
    const release = lockDatabase(file)
    cleanups.push(release)
    expect(JSON.parse(readFileSync(`${file}.lock`, 'utf8')).pid).toBe(process.pid)
  })

  it('leaves a lock it no longer holds in place when it lets go', () => {
    const file = databaseFile()
    const release = lockDatabase(file)
    const other = JSON.stringify({ pid: 1, startedAt: 0 })
    writeFileSync(`${file}.lock`, other)
    release()
    expect(readFileSync(`${file}.lock`, 'utf8')).toBe(other)
  })

  it('needs no lock for an in-memory database', async () => {
    const first = await serve(':memory:')
    const second = await serve(':memory:')
    await first.close()
    await second.close()
  })

  it('is not taken by in-process sandboxes, which a test may open two of on one file', () => {
    const file = databaseFile()
    const one = createSandbox({ db: file })
    const two = createSandbox({ db: file })
    expect(existsSync(`${file}.lock`)).toBe(false)
    one.close()
    two.close()
  })
})
