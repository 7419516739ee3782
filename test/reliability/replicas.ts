/**
 * Sandbox processes sharing one database, as a team runs them behind a load balancer (issue
 * 20): the built command started `count` times on the same store, and a client that spreads
 * its calls over them in turn. With CARD_SANDBOX_TEST_PG, three processes on a fresh schema of
 * that PostgreSQL; without it, one process on a SQLite file (a second one on the same file is
 * refused: the database lock).
 */
import { spawn, type ChildProcess } from 'node:child_process'
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { freshSchema, TEST_PG } from '../pg.js'

const CLI = new URL('../../dist/bin/card-sandbox.js', import.meta.url).pathname

export type Replicas = {
  urls: string[]
  children: ChildProcess[]
  /** The PostgreSQL schema they share (undefined on SQLite). */
  schema?: string
  /** What each process has written to stderr so far (also passed on to the test's stderr). */
  stderr: string[]
  stop(): Promise<void>
}

/** How many processes share the store in these tests: one SQLite file has one writer process. */
export const REPLICAS = TEST_PG ? 3 : 1

/** What the store is, as the tests' titles say it. */
export const STORE = TEST_PG ? `PostgreSQL, ${REPLICAS} replicas` : 'SQLite, 1 process'

/**
 * `count` processes of the built command on one database, started at once (on PostgreSQL they
 * migrate one after the other), each with `flags(i)` and, on PostgreSQL, `connection(i)` added
 * to its URL's parameters (node-postgres takes them as connection settings).
 */
export async function startReplicas(
  flags: (replica: number) => string[],
  connection: (replica: number) => Record<string, string> = () => ({}),
  count = REPLICAS,
): Promise<Replicas> {
  const dir = mkdtempSync(join(tmpdir(), 'card-sandbox-replicas-'))
  const schema = TEST_PG ? await freshSchema() : undefined
  const dbOf = (i: number) => {
    if (!schema) return join(dir, 'sandbox.sqlite')
    const url = new URL(schema.url)
    for (const [name, value] of Object.entries(connection(i))) url.searchParams.set(name, value)
    return url.toString()
  }
  const children: ChildProcess[] = []
  const stderr: string[] = []
  const stop = async () => {
    await Promise.all(children.map(killed))
    rmSync(dir, { recursive: true, force: true })
    await schema?.drop()
  }
  try {
    for (let i = 0; i < count; i++) {
      const child = spawn(
        process.execPath,
        [CLI, '--port', '0', '--db', dbOf(i), '--log', 'silent', ...flags(i)],
        { stdio: ['ignore', 'pipe', 'pipe'] },
      )
      stderr.push('')
      child.stderr!.on('data', (chunk: Buffer) => {
        stderr[i] += chunk.toString()
        process.stderr.write(chunk)
      })
      children.push(child)
    }
    const urls = await Promise.all(children.map(listening))
    return { urls, children, schema: schema?.name, stderr, stop }
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

/** Kills the process at once (SIGKILL), as a crash or an OOM killer would. */
export function killed(child: ChildProcess): Promise<void> {
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
