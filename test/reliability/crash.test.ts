/**
 * Crashes (issue: reliability): under load with `--db file`, the CLI is killed with SIGKILL and
 * started again. Every write answered 200 is there, pending transitions and webhook deliveries
 * resume, and SQLite's integrity check passes. CRASH_ROUNDS sets how many kills (stress: more).
 */
import Database from 'better-sqlite3'
import { spawn, type ChildProcess } from 'node:child_process'
import { join } from 'node:path'
import { afterEach, expect, it } from 'vitest'
import { fullIdentity } from '../helpers.js'
import { startReceiver, until } from '../webhooks/receiver.js'
import { tempDir } from '../temp-dir.js'

const CLI = new URL('../../dist/bin/card-sandbox.js', import.meta.url).pathname
const ROUNDS = Number(process.env.CRASH_ROUNDS ?? 2)
const headers = { Authorization: 'Bearer crash', 'Content-Type': 'application/json' }

const cleanups: (() => unknown)[] = []
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup()
})

async function startCli(db: string, webhookUrl: string) {
  const child = spawn(
    process.execPath,
    [
      CLI,
      '--port',
      '0',
      '--db',
      db,
      '--clock',
      'manual',
      '--log',
      'silent',
      '--webhook-url',
      webhookUrl,
    ],
    { stdio: ['ignore', 'pipe', 'inherit'] },
  )
  cleanups.push(() => child.kill('SIGKILL'))
  let output = ''
  const url = await new Promise<string>((resolve, reject) => {
    child.stdout!.on('data', (chunk) => {
      output += chunk
      const match = /API\s+(http:\/\/\S+)\/v1/.exec(output)
      if (match) resolve(match[1])
    })
    child.once('exit', (code) => reject(new Error(`exited ${code}: ${output}`)))
  })
  return { child, url }
}

function killed(child: ChildProcess) {
  return new Promise((resolve) => {
    child.once('exit', resolve)
    child.kill('SIGKILL')
  })
}

it(`keeps every acknowledged write and resumes pending work across ${ROUNDS} SIGKILLs`, async () => {
  const dir = tempDir('card-sandbox-crash-')
  const db = join(dir, 'sandbox.sqlite')
  const receiver = await startReceiver([200])
  cleanups.push(() => receiver.close())
  const acknowledged = new Set<string>()

  for (let round = 0; round < ROUNDS; round++) {
    const { child, url } = await startCli(db, receiver.url)
    // load: waves of full-data card users; kill while a wave is in flight
    let stop = false
    const load = (async () => {
      for (let i = 0; !stop && i < 10_000; i++) {
        const res = await fetch(`${url}/v1/card-users/create`, {
          method: 'POST',
          headers,
          body: JSON.stringify(
            fullIdentity({ phone: `+22177${String(round * 100_000 + i).padStart(7, '0')}` }),
          ),
        }).catch(() => null)
        if (res?.status === 200)
          acknowledged.add(((await res.json().catch(() => null)) as any)?.data?.userCard?.reference)
        if (!res) return
      }
    })()
    await until(() => acknowledged.size >= (round + 1) * 40, 20_000, 'load')
    await killed(child)
    stop = true
    await load
  }
  acknowledged.delete(undefined as never)

  // after the last kill: everything acknowledged is there, pending verifications resume
  const { url } = await startCli(db, receiver.url)
  const seen = new Map<string, string>()
  for (let page = 1; ; page++) {
    const res = (await (
      await fetch(`${url}/v1/card-users?per_page=100&page=${page}`, { headers })
    ).json()) as any
    for (const user of res.data[0].data) seen.set(user.reference, user.status)
    if (page >= res.data[0].meta.last_page) break
  }
  for (const reference of acknowledged) expect(seen.has(reference), reference).toBe(true)

  await fetch(`${url}/__sandbox/clock/advance`, {
    method: 'POST',
    headers,
    body: JSON.stringify({ by: '3s' }),
  })
  const users = (await (
    await fetch(`${url}/v1/card-users?per_page=100`, { headers })
  ).json()) as any
  expect(users.data[0].data.every((u: any) => u.status === 'passed')).toBe(true)

  // every verified user's webhook goes out, at least once
  await until(
    () =>
      new Set(receiver.requests.map((r) => JSON.parse(r.body).data.reference)).size >= seen.size,
    20_000,
    'webhooks',
  )

  const check = new Database(db, { readonly: true })
  expect(check.pragma('integrity_check', { simple: true })).toBe('ok')
  check.close()
  console.log(
    `crash test: ${ROUNDS} SIGKILLs survived, ${acknowledged.size} acknowledged writes checked`,
  )
})
