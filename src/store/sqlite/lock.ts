/**
 * One sandbox per database file: a second sandbox on a file that another one serves
 * would run a second scheduler and webhook deliverer over the same rows, firing every job and
 * delivering every webhook twice. `<file>.lock` names the holder (pid and start time); a lock
 * whose holder is gone (a crash, SIGKILL) is taken over, so a restart right after a kill works.
 * Not SQLite's exclusive locking mode: other connections (a test's, sqlite3's) stay welcome.
 */
import { existsSync, linkSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { dirname, resolve } from 'node:path'
import { isRunning, startedAt } from '../../lib/processes.js'

export class DatabaseInUseError extends Error {
  readonly code = 'EDBINUSE'
  constructor(
    readonly file: string,
    readonly holder: { pid: number; startedAt?: number },
  ) {
    const since = holder.startedAt ? `, started ${new Date(holder.startedAt).toISOString()}` : ''
    super(
      `the database ${file} is in use by another sandbox (pid ${holder.pid}${since}); ` +
        'stop it, or use another database file',
    )
    this.name = 'DatabaseInUseError'
  }
}

type Holder = { pid: number; startedAt?: number }

/** Start times read twice may differ by rounding (ps gives seconds); a reused pid starts later. */
const SAME_START_MS = 1_000

/**
 * Takes the lock of a database file, or throws DatabaseInUseError naming its holder. Returns
 * the release, which the sandbox calls when it closes (and the process on exit).
 */
export function lockDatabase(file: string): () => void {
  if (file === ':memory:' || file === '') return () => {}
  // a missing directory is SQLite's error to report, in its words
  if (!existsSync(dirname(resolve(file)))) return () => {}
  const lockFile = `${file}.lock`
  const mine: Holder = { pid: process.pid, startedAt: startedAt(process.pid) }
  const text = JSON.stringify(mine) + '\n'
  for (let attempt = 0; ; attempt++) {
    if (create(lockFile, text)) break
    const holder = holderOf(lockFile)
    if (holder && isAlive(holder)) throw new DatabaseInUseError(file, holder)
    if (attempt === 2) throw new Error(`could not lock the database ${file} (${lockFile})`)
    // the holder is gone: its lock is stale
    rmSync(lockFile, { force: true })
  }
  const release = () => {
    process.off('exit', release)
    if (readFileSafe(lockFile) === text) rmSync(lockFile, { force: true })
  }
  process.on('exit', release)
  return release
}

/** Creates the lock file with its whole content at once, or finds it there (false). */
function create(lockFile: string, text: string): boolean {
  // written aside, then linked in: nobody ever reads a half-written lock
  const aside = `${lockFile}.${process.pid}`
  writeFileSync(aside, text)
  try {
    linkSync(aside, lockFile)
    return true
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'EEXIST') return false
    // a file system without hard links
    try {
      writeFileSync(lockFile, text, { flag: 'wx' })
      return true
    } catch (inner) {
      if ((inner as NodeJS.ErrnoException).code === 'EEXIST') return false
      throw inner
    }
  } finally {
    rmSync(aside, { force: true })
  }
}

function holderOf(lockFile: string): Holder | undefined {
  try {
    const holder = JSON.parse(readFileSafe(lockFile) ?? '') as Holder
    return Number.isSafeInteger(holder.pid) ? holder : undefined
  } catch {
    return undefined
  }
}

/** The holder's process still runs: the same pid, started at the same time. */
function isAlive(holder: Holder): boolean {
  if (!isRunning(holder.pid)) return false
  if (holder.startedAt === undefined) return true
  const now = startedAt(holder.pid)
  return now === undefined || Math.abs(now - holder.startedAt) <= SAME_START_MS
}

function readFileSafe(file: string): string | undefined {
  try {
    return readFileSync(file, 'utf8')
  } catch {
    return undefined
  }
}
