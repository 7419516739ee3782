/**
 * A reset empties the tenant at once by giving it a new id; the rows left under the old id are
 * swept by the tick, a batch at a time, and no other tenant's rows are touched.
 */
import Database from 'better-sqlite3'
import { request } from 'node:http'
import { join } from 'node:path'
import { describe, expect, it } from 'vitest'
import { nextTenantId } from '../../src/domain/tenants.js'
import { sweepRetiredTenants } from '../../src/store/retired-tenants.js'
import { startSandbox } from '../../src/server/sandbox.js'
import { TOKEN, newSandbox, sqlRows, storeOfTest } from '../helpers.js'
import { tempDir } from '../temp-dir.js'

async function rowsOf(s: ReturnType<typeof newSandbox>, tenantId: string): Promise<number> {
  const tables = ['card_users', 'cards', 'transactions', 'payments', 'jobs', 'postings', 'accounts']
  let rows = 0
  for (const table of tables) {
    const [{ n }] = (await sqlRows(
      s.deps.db,
      `SELECT COUNT(*) AS n FROM ${table} WHERE tenant_id = ?`,
      tenantId,
    )) as { n: number }[]
    rows += Number(n)
  }
  return rows
}

describe('reset', () => {
  it('empties the tenant at once, then sweeps its old rows in batches, and only its own', async () => {
    const s = newSandbox({ ticking: false }) // the test sweeps, not the tick
    await s.fundedCard('visa', 'other')
    const card = await s.fundedCard()
    await s.call('POST', '/v1/transactions/create/card-to-wallet', {
      amount: 1000,
      card_reference: card.reference,
      phone: '+221770000001',
      network: 'wave-sn',
    })
    const before = (await s.deps.tenants.forToken('test-token'))!
    const other = (await s.deps.tenants.forToken('other'))!
    const otherRows = await rowsOf(s, other.id)
    const oldRows = await rowsOf(s, before.id)
    expect(oldRows).toBeGreaterThan(5)

    // the reset itself deletes nothing (checked synchronously, before any tick can sweep)
    const { tenant: fresh, retiredId } = await s.deps.tenants.reset(before.token)
    expect(retiredId).toBe(before.id)
    expect(fresh.id).toBe(nextTenantId(before.id))
    expect(await rowsOf(s, before.id)).toBe(oldRows)
    expect((await s.call('GET', '/v1/cards')).body.data).toEqual([])

    const left = await rowsOf(s, before.id)
    expect(await sweepRetiredTenants(s.deps.db, 3)).toBe(Math.min(3, left))
    expect(await rowsOf(s, before.id)).toBe(Math.max(0, left - 3))
    while ((await sweepRetiredTenants(s.deps.db, 3)) > 0);
    expect(await rowsOf(s, before.id)).toBe(0)
    expect(await rowsOf(s, other.id)).toBe(otherRows)
    expect(await sqlRows(s.deps.db, 'SELECT id FROM retired_tenants')).toEqual([])

    const again = await s.call('POST', '/__sandbox/reset')
    expect(again.body.data.tenant).toBe(nextTenantId(fresh.id))
  })

  it('derives the new id from the old one, so a seeded run keeps its randomness', () => {
    expect(nextTenantId('ten_abc')).toBe('ten_abc.1')
    expect(nextTenantId('ten_abc.1')).toBe('ten_abc.2')
  })
})

type Sandbox = ReturnType<typeof newSandbox>

/**
 * Sends `body` to `path` as a stream that the server pulls only once it reads the body, that
 * is after it has resolved the request's tenant; the pull first resets that tenant. So the
 * reset falls, every time, between the request's tenant lookup and its write.
 */
async function resetWhileBodyIsRead(s: Sandbox, method: string, path: string, body: unknown) {
  let reset: { status: number; body: any } | undefined
  const stream = new ReadableStream<Uint8Array>(
    {
      async pull(controller) {
        reset = await s.call('POST', '/__sandbox/reset')
        controller.enqueue(new TextEncoder().encode(JSON.stringify(body)))
        controller.close()
      },
    },
    { highWaterMark: 0 },
  )
  const res = await s.app.request(path, {
    method,
    headers: { Authorization: `Bearer ${TOKEN}`, 'Content-Type': 'application/json' },
    body: stream,
    duplex: 'half',
  } as RequestInit)
  expect(reset?.status, 'the reset ran while the body was read').toBe(200)
  return { status: res.status, body: (await res.json()) as any }
}

describe("a reset racing the same tenant's requests", () => {
  it('lets a tenant update that resolved the tenant before the reset act on the fresh tenant', async () => {
    const s = newSandbox()
    const start = (await s.call('GET', '/__sandbox/clock')).body.data.now_ms

    const mode = await resetWhileBodyIsRead(s, 'PUT', '/__sandbox/clock', { mode: 'real' })
    expect(mode.status).toBe(200)
    expect((await s.call('GET', '/__sandbox/clock')).body.data.mode).toBe('real')

    const webhook = await resetWhileBodyIsRead(s, 'PUT', '/__sandbox/webhook', {
      url: 'http://127.0.0.1:9/hooks',
    })
    expect(webhook.status).toBe(200)
    expect((await s.call('GET', '/__sandbox/webhook')).body.data.url).toBe(
      'http://127.0.0.1:9/hooks',
    )

    const delays = await resetWhileBodyIsRead(s, 'PUT', '/__sandbox/delays', {
      card_issuing: '1s',
    })
    expect(delays.status).toBe(200)
    expect((await s.call('GET', '/__sandbox/delays')).body.data.card_issuing).toBe(1000)

    // the reset puts the clock back in manual mode at its start; the advance counts from there
    const advanced = await resetWhileBodyIsRead(s, 'POST', '/__sandbox/clock/advance', {
      by: '1h',
    })
    expect(advanced.status).toBe(200)
    const clock = (await s.call('GET', '/__sandbox/clock')).body.data
    expect(clock.mode).toBe('manual')
    expect(clock.now_ms).toBeGreaterThanOrEqual(start + 3_600_000)
    expect(clock.now_ms).toBeLessThan(start + 3_600_000 + 60_000)
  })

  it('writes what a request creates to the fresh tenant, not to the retired id', async () => {
    const s = newSandbox()
    const float = (await s.call('GET', '/__sandbox/business')).body.data.float_balance

    const user = await resetWhileBodyIsRead(s, 'POST', '/v1/card-users/create', {
      phone: '+221770000000',
    })
    expect(user.status).toBe(200)
    const users = (await s.call('GET', '/v1/card-users')).body
    expect(users.meta.total).toBe(1)
    expect(users.data[0].data[0].reference).toBe(user.body.userCard.reference)

    const funded = await resetWhileBodyIsRead(s, 'POST', '/__sandbox/business/fund', {
      amount: 5000,
    })
    expect(funded.body.data.float_balance).toBe(float + 5000)
    expect((await s.call('GET', '/__sandbox/business')).body.data.float_balance).toBe(float + 5000)

    const scenario = await resetWhileBodyIsRead(s, 'POST', '/__sandbox/scenarios', {
      name: 'slow-cards',
      rules: [{ match: { path: '/v1/cards' }, latency: 1 }],
    })
    expect(scenario.status).toBe(200)
    const inForce = (await s.call('GET', '/__sandbox/scenarios')).body.data
    expect(inForce.map((x: any) => x.name)).toEqual(['slow-cards'])
  })

  it('writes to the fresh tenant when, over a socket, the reset came after the tenant was read and before the body', async () => {
    const served = await startSandbox({
      port: 0,
      clock: 'manual',
      log: 'silent',
      db: storeOfTest(),
    })
    try {
      const call = async (method: string, path: string, body?: unknown) => {
        const res = await fetch(served.url + path, {
          method,
          headers: { Authorization: `Bearer ${TOKEN}`, 'Content-Type': 'application/json' },
          body: body === undefined ? undefined : JSON.stringify(body),
        })
        return { status: res.status, body: (await res.json()) as any }
      }
      expect((await call('GET', '/v1/card-users')).status).toBe(200)
      // the body waits for `100 Continue`, which the server sends as it dispatches the request
      const payload = JSON.stringify({ phone: '+221770000000' })
      const created = await new Promise<number>((resolve, reject) => {
        const req = request(`${served.url}/v1/card-users/create`, {
          method: 'POST',
          headers: {
            Authorization: `Bearer ${TOKEN}`,
            'Content-Type': 'application/json',
            'Content-Length': Buffer.byteLength(payload),
            Expect: '100-continue',
          },
        })
        req.on('continue', () => {
          call('POST', '/__sandbox/reset').then(() => req.end(payload), reject)
        })
        req.on('response', (res) => {
          res.resume()
          res.on('end', () => resolve(res.statusCode ?? 0))
        })
        req.on('error', reject)
      })
      expect(created).toBe(200)
      const users = (await call('GET', '/v1/card-users')).body
      expect(users.meta.total).toBe(1)
    } finally {
      await served.close()
    }
  })

  it("reads the fresh tenant after a scenario's latency during which the tenant was reset", async () => {
    const s = newSandbox()
    await s.call('POST', '/__sandbox/scenarios', {
      name: 'slow-list',
      rules: [{ match: { method: 'GET', path: '/v1/card-users' }, latency: 1000 }],
    })
    await s.verifiedUser()
    // the list waits on its latency's timer; the reset is done long before it fires, even on
    // PostgreSQL on a busy machine (a list answered first would rightly show the old tenant)
    let listAnswered = false
    const list = s.call('GET', '/v1/card-users').finally(() => (listAnswered = true))
    expect((await s.call('POST', '/__sandbox/reset')).status).toBe(200)
    expect(listAnswered).toBe(false)
    const listed = await list
    expect(listed.headers.get('x-card-sandbox-scenario')).toBe('slow-list/rule 1')
    expect(listed.body.meta.total).toBe(0)
  })

  it('updates the tenant another process reset, by its token, not by the id it cached', async () => {
    const dir = tempDir('card-sandbox-reset-')
    const file = join(dir, 'db.sqlite')
    const one = newSandbox({ db: file })
    const two = newSandbox({ db: file })
    try {
      await one.call('GET', '/__sandbox/clock')
      const stale = (await one.deps.tenants.forToken(TOKEN))!
      const reset = await two.call('POST', '/__sandbox/reset')
      expect(reset.body.data.tenant).toBe(nextTenantId(stale.id))

      const mode = await one.call('PUT', '/__sandbox/clock', { mode: 'real' })
      expect(mode.status).toBe(200)
      const webhook = await one.call('PUT', '/__sandbox/webhook', { url: 'http://127.0.0.1:9/h' })
      expect(webhook.status).toBe(200)
      const store = new Database(file, { readonly: true })
      const row = store
        .prepare('SELECT id, clock_mode, webhook_url FROM tenants WHERE token = ?')
        .get(TOKEN)
      store.close()
      expect(row).toEqual({
        id: reset.body.data.tenant,
        clock_mode: 'real',
        webhook_url: 'http://127.0.0.1:9/h',
      })
    } finally {
      one.close()
      two.close()
    }
  })
})
