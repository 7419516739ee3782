/**
 * The pid file of `--pid-file`: the server's process id and a newline, as `kill
 * $(cat file)` expects, written once the sandbox listens and removed when it stops.
 * `card-sandbox stop` reads it. A file whose process is gone, or began after the file was
 * written (its pid reused by another program), is stale.
 */
import { readFileSync, renameSync, rmSync, statSync, writeFileSync } from 'node:fs'
import { isRunning, startedAt } from '../../lib/processes.js'

export type PidFile =
  | { state: 'missing' }
  | { state: 'invalid' }
  | { state: 'stale'; pid: number }
  | { state: 'running'; pid: number }

/** Start times are read to the second on some systems. */
const CLOCK_SLACK_MS = 1_000

export function readPidFile(file: string): PidFile {
  let text: string
  let writtenAt: number
  try {
    text = readFileSync(file, 'utf8')
    writtenAt = statSync(file).mtimeMs
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return { state: 'missing' }
    throw error
  }
  if (!/^\d+\s*$/.test(text)) return { state: 'invalid' }
  const pid = Number(text)
  const started = startedAt(pid)
  const reused = started !== undefined && started > writtenAt + CLOCK_SLACK_MS
  return { state: isRunning(pid) && !reused ? 'running' : 'stale', pid }
}

/** Writes this process's pid (all at once: no reader sees half a file); returns the removal. */
export function writePidFile(file: string): () => void {
  const text = `${process.pid}\n`
  const aside = `${file}.${process.pid}.tmp`
  try {
    writeFileSync(aside, text)
    renameSync(aside, file)
  } catch (error) {
    rmSync(aside, { force: true })
    throw error
  }
  const remove = () => {
    process.off('exit', remove)
    try {
      if (readFileSync(file, 'utf8') === text) rmSync(file, { force: true })
    } catch {
      // already gone
    }
  }
  process.on('exit', remove)
  return remove
}

/** Removes a stale pid file. */
export function removePidFile(file: string): void {
  rmSync(file, { force: true })
}
