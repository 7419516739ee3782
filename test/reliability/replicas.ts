/**
 * Sandbox processes sharing one database, as a team runs them behind a load balancer (issue
 * 20): the built command started `count` times on the same store, and a client that spreads
 * its calls over them in turn. On SQLite that is one process (a second one on the same file is
 * refused: the database lock); the multi-replica tests run the same code on PostgreSQL once the
 * sandbox runs there.
 */
import { spawn, type ChildProcess } from 'node:child_process'
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'

const CLI = new URL('../../dist/bin/card-sandbox.js', import.meta.url).pathname

export type Replicas = {
  urls: string[]
  children: ChildProcess[]
  /** What the store is, as the tests' titles say it. */
  store: string
  stop(): Promise<void>
}

/** How many processes the store lets share it: one SQLite file has one writer process. */
export const REPLICAS_ON_SQLITE = 1

/** `count` processes of the built command on one SQLite file, with `flags`. */
export async function startReplicas(count: number, flags: string[]): Promise<Replicas> {
  const dir = mkdtempSync(join(tmpdir(), 'card-sandbox-replicas-'))
  const db = join(dir, 'sandbox.sqlite')
  const children: ChildProcess[] = []
  const stop = async () => {
    await Promise.all(children.map(stopped))
    rmSync(dir, { recursive: true, force: true })
  }
  try {
    const urls: string[] = []
    for (let i = 0; i < count; i++) {
      const child = spawn(
        process.execPath,
        [CLI, '--port', '0', '--db', db, '--log', 'silent', ...flags],
        { stdio: ['ignore', 'pipe', 'inherit'] },
      )
      children.push(child)
      urls.push(await listening(child))
    }
    return { urls, children, store: `SQLite (${count} process)`, stop }
  } catch (error) {
    await stop()
    throw error
  }
}

function listening(child: ChildProcess): Promise<string> {
  return new Promise((resolve, reject) => {
    let output = ''
    child.stdout!.on('data', (chunk: Buffer) => {
      output += chunk.toString()
      const match = /API\s+(http:\/\/\S+)\/v1/.exec(output)
      if (match) resolve(match[1])
    })
    child.once('exit', (code) => reject(new Error(`exited ${code}: ${output}`)))
  })
}

function stopped(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return Promise.resolve()
  return new Promise((resolve) => {
    child.once('exit', () => resolve())
    child.kill('SIGKILL')
  })
}

export type Answer = { status: number; body: any }

/** A client of one tenant (its bearer token) that sends each call to the next replica in turn. */
export function roundRobin(urls: string[], token: string) {
  let next = 0
  const headers = { Authorization: `Bearer ${token}`, 'Content-Type': 'application/json' }
  return async function call(method: string, path: string, body?: unknown): Promise<Answer> {
    const url = urls[next++ % urls.length]
    const res = await fetch(url + path, {
      method,
      headers,
      body: body === undefined ? undefined : JSON.stringify(body),
    })
    return { status: res.status, body: await res.json() }
  }
}

/** Runs `fn(i)` for i < n, `width` at a time; the answers in order. */
export async function inParallel<T>(
  n: number,
  width: number,
  fn: (i: number) => Promise<T>,
): Promise<T[]> {
  const answers: T[] = new Array(n)
  let next = 0
  await Promise.all(
    Array.from({ length: Math.min(width, n) }, async () => {
      while (next < n) {
        const i = next++
        answers[i] = await fn(i)
      }
    }),
  )
  return answers
}
