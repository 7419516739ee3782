/**
 * An idle replica on PostgreSQL (no requests, nothing due, no lease held, no retired tenant left
 * to sweep) sends at most 2 statements a second, however many jobs are pending: counted at the
 * wire, by a relay between the replica and PostgreSQL that counts the frontend's Query and
 * Execute messages (a simple query, or a run of an extended-protocol statement), whatever the
 * driver does.
 */
import { createServer, connect, type Server, type Socket } from 'node:net'
import pg from 'pg'
import { afterEach, describe, expect, it } from 'vitest'
import { startSandbox, type RunningSandbox } from '../../../src/sandbox.js'
import { SLOW_POLL_MS } from '../../../src/store/postgres/listener.js'
import { fullIdentity } from '../../helpers.js'
import { freshSchema, TEST_PG } from '../../pg.js'

/** A relay to TEST_PG that counts, while `counting`, the statements its clients send. */
async function statementRelay(): Promise<{
  port: number
  statements: () => number
  count: (on: boolean) => void
  close: () => Promise<void>
}> {
  const target = new URL(TEST_PG!)
  let counting = false
  let statements = 0
  const sockets = new Set<Socket>()
  const server: Server = createServer((client) => {
    const upstream = connect(Number(target.port || 5432), target.hostname)
    sockets.add(client).add(upstream)
    upstream.pipe(client)
    let buffered = Buffer.alloc(0)
    let started = false // the startup message has no type byte
    client.on('data', (chunk: Buffer) => {
      upstream.write(chunk)
      buffered = Buffer.concat([buffered, chunk])
      for (;;) {
        const header = started ? 5 : 4
        if (buffered.length < header) break
        const length = started ? buffered.readInt32BE(1) + 1 : buffered.readInt32BE(0)
        if (buffered.length < length) break
        const type = started ? String.fromCharCode(buffered[0]) : ''
        if (counting && (type === 'Q' || type === 'E')) statements++
        started = true
        buffered = buffered.subarray(length)
      }
    })
    const end = () => {
      client.destroy()
      upstream.destroy()
    }
    client.on('error', end).on('close', end)
    upstream.on('error', end).on('close', end)
  })
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  return {
    port: (server.address() as { port: number }).port,
    statements: () => statements,
    count(on) {
      counting = on
    },
    async close() {
      for (const socket of sockets) socket.destroy()
      await new Promise((resolve) => server.close(resolve))
    },
  }
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms))

describe.skipIf(!TEST_PG)('an idle replica on PostgreSQL', () => {
  const cleanups: (() => Promise<unknown>)[] = []
  afterEach(async () => {
    for (const cleanup of cleanups.splice(0).reverse()) await cleanup()
  })

  it('sends at most 2 statements a second, with 10,000 jobs pending on real and manual clocks', async () => {
    const schema = await freshSchema()
    cleanups.push(schema.drop)
    const relay = await statementRelay()
    cleanups.push(relay.close)
    const url = new URL(schema.url)
    url.host = `127.0.0.1:${relay.port}`
    const sandbox: RunningSandbox = await startSandbox({
      port: 0,
      db: url.toString(),
      clock: 'real',
    })
    cleanups.push(() => sandbox.close())
    const call = (token: string, method: string, path: string, body?: unknown) =>
      fetch(`${sandbox.url}${path}`, {
        method,
        headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
        body: body === undefined ? undefined : JSON.stringify(body),
      })
    // tenants with verifications a day ahead, one of them on a manual clock
    for (const token of ['idle-a', 'idle-b', 'idle-manual']) {
      await call(token, 'PUT', '/__sandbox/delays', { card_user_verification: '1d' })
      if (token === 'idle-manual') await call(token, 'PUT', '/__sandbox/clock', { mode: 'manual' })
      for (let i = 0; i < 3; i++) await call(token, 'POST', '/v1/card-users/create', fullIdentity())
    }
    // and 10,000 more jobs a day ahead, written by another process
    const other = new pg.Client({ connectionString: schema.url })
    await other.connect()
    await other.query(
      `INSERT INTO jobs (tenant_id, resource, key, action, due_at, resource_seq)
       SELECT j.tenant_id, j.resource, j.key, j.action, j.due_at + n, j.resource_seq
       FROM (SELECT * FROM jobs LIMIT 3) j, generate_series(1, 3334) n`,
    )
    const { rows } = await other.query<{ n: number }>('SELECT count(*)::int AS n FROM jobs')
    await other.end()
    expect(rows[0].n).toBeGreaterThan(10_000)
    await sleep(1_000) // what the writes announced is taken in

    relay.count(true)
    const seconds = (SLOW_POLL_MS + 1_000) / 1_000
    await sleep(seconds * 1_000)
    relay.count(false)
    console.log(`idle replica: ${relay.statements()} statements in ${seconds} s`)
    expect(relay.statements()).toBeLessThanOrEqual(2 * seconds)
  })
})
