/**
 * The scheduler (PRODUCT §6): due work is rows in SQLite, run in due order when a manual
 * clock is advanced, by a tick on a real clock, and picked up again after a restart.
 */
import type { SqliteDb } from '../../src/store/sqlite/driver.js'
import { eq } from 'drizzle-orm'
import { join } from 'node:path'
import { afterEach, describe, expect, it } from 'vitest'
import Database from 'better-sqlite3'
import {
  RunawayJobs,
  runDue,
  runDueOnRealClocks,
  runUntilIdle,
} from '../../src/engine/scheduler.js'
import {
  callAs,
  createSandbox as sandboxWithDeps,
  type SandboxOptions,
} from '../../src/server/sandbox.js'
import { claimDueJobs } from '../../src/store/due-sets.js'
import type { Db } from '../../src/store/driver.js'
import { dueInstants, insertJob } from '../../src/store/jobs.js'
import { query } from '../../src/store/statements.js'
import { createSandbox } from '../../src/index.js'
import { fullIdentity, newSandbox } from '../helpers.js'
import { freshSchema, TEST_PG, whileHeld } from '../pg.js'
import { tempDir } from '../temp-dir.js'

const tempDb = () => join(tempDir(), 'sandbox.sqlite')

async function statusOf(s: ReturnType<typeof newSandbox>, reference: string): Promise<string> {
  const row = (s.deps.db as SqliteDb).$client
    .prepare('SELECT status FROM card_users WHERE reference = ?')
    .get(reference) as { status: string }
  return row.status
}

async function request(
  app: ReturnType<typeof createSandbox>['app'],
  method: string,
  path: string,
  body?: unknown,
) {
  const res = await app.request(path, {
    method,
    headers: { Authorization: 'Bearer restart', 'Content-Type': 'application/json' },
    body: body === undefined ? undefined : JSON.stringify(body),
  })
  return { status: res.status, body: (await res.json()) as any }
}

describe('a restart with a file database', () => {
  it('resumes a pending transition where it left off', async () => {
    const db = tempDb()
    // before the restart: a card is issuing, its issue due 5 s later
    const first = createSandbox({ db, clock: 'manual', clockStart: '2026-01-01T00:00:00Z' })
    const user = (
      await request(first.app, 'POST', '/v1/card-users/create', { phone: '+221770000000' })
    ).body.userCard.reference
    await request(first.app, 'POST', `/__sandbox/card-users/${user}/transition`, { to: 'passed' })
    const card = (
      await request(first.app, 'POST', '/v1/cards/create', {
        card_user_reference: user,
        card_brand: 'visa',
        card_type: 'virtual',
      })
    ).body.data.card.reference
    await request(first.app, 'POST', '/__sandbox/clock/advance', { by: '2s' })
    first.close()

    // after: same tenant, same clock, the job still pending
    const second = createSandbox({ db, clock: 'manual', clockStart: '2026-01-01T00:00:00Z' })
    expect((await request(second.app, 'GET', '/__sandbox/clock')).body.data.now).toBe(
      '2026-01-01T00:00:02.000Z',
    )
    expect((await request(second.app, 'GET', '/v1/cards')).body.data[0].status).toBe('issuing')
    const advanced = await request(second.app, 'POST', '/__sandbox/clock/advance', { by: '3s' })
    expect(advanced.body.data.transitions_run).toBe(1)
    const cards = (await request(second.app, 'GET', '/v1/cards')).body.data
    expect(cards[0]).toMatchObject({
      reference: card,
      status: 'issued',
      last_four: expect.stringMatching(/^\d{4}$/),
    })
    second.close()
  })
})

describe('advancing a manual clock', () => {
  it('runs everything that falls due, in due order, at each job’s own time', async () => {
    // each transition writes a webhook event: the outbox shows the order the jobs ran in
    const s = newSandbox({ webhookExtensions: true })
    const { reference } = await s.fundedCard()
    await s.call('PUT', '/__sandbox/delays', {
      transaction_settlement: '10s',
      card_user_verification: '2s',
    })
    // a transfer due at +10 s, a verification due at +2 s, a payment expiring at +30 min
    const transfer = await s.call('POST', '/v1/transactions/create/card-to-wallet', {
      amount: 5,
      card_reference: reference,
      phone: '+221770000000',
      network: 'wave-sn',
    })
    await s.call('POST', '/v1/card-users/create', fullIdentity())
    await s.call('POST', '/v1/payments/create', {
      amount: 5,
      network: 'wave-sn',
      customer: { full_name: 'A B', phone: '+221770000000' },
    })
    const jobs = (await s.call('GET', '/__sandbox/jobs')).body.data.map((j: any) => j.resource)
    expect(jobs).toEqual(['card-users', 'transactions', 'payments'])

    const advanced = await s.call('POST', '/__sandbox/clock/advance', { by: '1h' })
    expect(advanced.body.data).toMatchObject({
      now: '2026-01-01T01:00:00.000Z',
      transitions_run: 3,
    })
    expect((await s.call('GET', '/__sandbox/jobs')).body.data).toEqual([])
    const list = await s.call('GET', '/v1/transactions')
    expect(
      list.body.data.transaction.find((t: any) => t.slug === transfer.body.data.transaction.slug)
        .status,
    ).toBe('success')
    const settled = (s.deps.db as SqliteDb).$client
      .prepare('SELECT updated_at FROM transactions WHERE slug = ?')
      .get(transfer.body.data.transaction.slug) as { updated_at: number }
    expect(new Date(settled.updated_at).toISOString()).toBe('2026-01-01T00:00:10.000Z')
    const ran = (await s.call('GET', '/__sandbox/webhooks?per_page=100')).body.data
      .reverse() // oldest first
      .filter((e: { created_at: string }) => e.created_at > '2026-01-01T00:00:00.000Z')
      .map((e: { type: string; created_at: string }) => [e.type, e.created_at])
    expect(ran).toEqual([
      ['card_user_verification.successful', '2026-01-01T00:00:02.000Z'],
      ['transaction.success', '2026-01-01T00:00:10.000Z'],
      ['payment.expired', '2026-01-01T00:30:00.001Z'],
    ])
  })

  it('moves nothing while a manual clock stands', async () => {
    // at ×1000, 250 ms of wall time would be 250 s on a clock that ran: far past the 3 s
    const s = newSandbox({ speed: 1000 })
    await s.call('POST', '/v1/card-users/create', fullIdentity())
    await new Promise((resolve) => setTimeout(resolve, 250)) // several ticks of wall time
    const users = await s.call('GET', '/v1/card-users')
    expect(users.body.data[0].data[0].status).toBe('pending')
    expect((await s.call('GET', '/__sandbox/clock')).body.data.now).toBe('2026-01-01T00:00:00.000Z')
    s.close()
  })

  it('accepts durations in every documented form and refuses the rest', async () => {
    const s = newSandbox()
    for (const [by, ms] of [
      ['500ms', 500],
      ['30s', 30_000],
      ['15m', 900_000],
      ['2h', 7_200_000],
      ['1d', 86_400_000],
      ['1h30m', 5_400_000],
      [250, 250],
      ['1000', 1000],
    ] as const) {
      const before = (await s.call('GET', '/__sandbox/clock')).body.data.now_ms
      const res = await s.call('POST', '/__sandbox/clock/advance', { by })
      expect(res.body.data.now_ms - before, String(by)).toBe(ms)
    }
    for (const by of ['soon', '-5m', '1.5h', '', -1, 1.5, null]) {
      const res = await s.call('POST', '/__sandbox/clock/advance', { by })
      expect(res.status, String(by)).toBe(422)
    }
  })
})

describe('a real clock', () => {
  it('settles by itself as wall time passes (×1000 speed), without any request', async () => {
    const s = newSandbox({ clock: 'real', speed: 1000 })
    const ref = (await s.call('POST', '/v1/card-users/create', fullIdentity())).body.data.userCard
      .reference
    // 3 s of sandbox time = 3 ms of wall time; the tick runs it within ~100 ms
    await new Promise((resolve) => setTimeout(resolve, 400))
    const status = (s.deps.db as SqliteDb).$client
      .prepare('SELECT status FROM card_users WHERE reference = ?')
      .get(ref) as { status: string }
    expect(status.status).toBe('passed')
    s.close()
  })

  it('never lets a request read a state that should have moved', async () => {
    // 5 ms of wall time is 5,000 s here: well past the 3 s verification, well before a tick
    const s = newSandbox({ clock: 'real', speed: 1_000_000 })
    const user = await s.call('POST', '/v1/card-users/create', fullIdentity())
    await new Promise((resolve) => setTimeout(resolve, 5))
    const list = await s.call('GET', '/v1/card-users')
    expect(list.body.data[0].data[0]).toMatchObject({
      reference: user.body.data.userCard.reference,
      status: 'passed',
    })
    s.close()
  })

  it('switches to manual and back without the time jumping', async () => {
    const s = newSandbox() // manual, from 2026-01-01T00:00:00Z
    const start = (await s.call('POST', '/__sandbox/clock/advance', { by: '1h' })).body.data.now_ms
    // to real: it runs on from where the manual clock stood, not from the wall clock's date
    const real = (await s.call('PUT', '/__sandbox/clock', { mode: 'real' })).body.data
    expect(real.mode).toBe('real')
    expect(real.now_ms).toBeGreaterThanOrEqual(start)
    expect(real.now_ms - start).toBeLessThan(60_000)
    let running = real.now_ms
    while (running === real.now_ms) {
      await new Promise((resolve) => setTimeout(resolve, 5))
      running = (await s.call('GET', '/__sandbox/clock')).body.data.now_ms
    }
    // to manual: it stands where the real clock had run to, and stays there
    const manual = (await s.call('PUT', '/__sandbox/clock', { mode: 'manual' })).body.data
    expect(manual.now_ms).toBeGreaterThanOrEqual(running)
    expect(manual.now_ms - running).toBeLessThan(60_000)
    await new Promise((resolve) => setTimeout(resolve, 30))
    expect((await s.call('GET', '/__sandbox/clock')).body.data.now_ms).toBe(manual.now_ms)
    s.close()
  })

  it('runs, once its clock runs again, what was scheduled while it stood still', async () => {
    const s = newSandbox({ speed: 1000 }) // manual
    const ref = (await s.call('POST', '/v1/card-users/create', fullIdentity())).body.data.userCard
      .reference
    await runDueOnRealClocks(s.deps) // a tick: a clock that stands still is not the tick's
    await s.call('PUT', '/__sandbox/clock', { mode: 'real' })
    // the 3 s verification is 3 ms of wall time away at ×1000
    const tenant = (await s.deps.tenants.forToken('test-token'))!
    const due = s.deps.tenants.now(tenant) + 3_000
    while (s.deps.tenants.now(tenant) < due) await new Promise((resolve) => setTimeout(resolve, 2))
    await runDueOnRealClocks(s.deps)
    expect(await statusOf(s, ref)).toBe('passed')
    s.close()
  })

  it('runs a job another connection wrote to the same file', async () => {
    const file = tempDb()
    const s = newSandbox({ db: file, clock: 'real' })
    // a widget user: pending, with nothing scheduled
    const ref = (await s.call('POST', '/v1/card-users/create', { phone: '+221770000002' })).body
      .userCard.reference
    const other = new Database(file)
    other
      .prepare(
        `INSERT INTO jobs (tenant_id, resource, key, action, due_at)
         SELECT tenant_id, 'card-users', reference, 'passed', 0 FROM card_users WHERE reference = ?`,
      )
      .run(ref)
    other.close()
    expect(await statusOf(s, ref)).toBe('pending')
    await runDueOnRealClocks(s.deps) // a tick
    expect(await statusOf(s, ref)).toBe('passed')
    s.close()
  })
})

describe('background events on the console (--log)', () => {
  function logged(log: 'json' | 'pretty') {
    const lines: string[] = []
    const s = newSandbox({ log, logWrite: (text) => lines.push(text) })
    const events = () =>
      lines.map((line) => JSON.parse(line)).filter((line) => line.event === 'event')
    return { s, lines, events }
  }

  it('prints each job that fired: a user verified, a card issued, on the tenant clock', async () => {
    const { s, events } = logged('json')
    const user = (await s.call('POST', '/v1/card-users/create', fullIdentity())).body.data.userCard
      .reference
    await s.call('POST', '/__sandbox/clock/advance', { by: '3s' })
    const card = (
      await s.call('POST', '/v1/cards/create', {
        card_user_reference: user,
        card_brand: 'visa',
        card_type: 'virtual',
      })
    ).body.data.card.reference
    await s.call('POST', '/__sandbox/clock/advance', { by: '5s' })
    s.close()
    expect(events()).toEqual([
      {
        time: expect.any(String),
        level: 'info',
        event: 'event',
        tenant: '******oken',
        resource: 'card_user',
        reference: user,
        from: 'pending',
        to: 'passed',
        meaning: 'verified',
        sandbox_time: '2026-01-01T00:00:03.000Z',
      },
      expect.objectContaining({
        resource: 'card',
        reference: card,
        from: 'issuing',
        to: 'issued',
        sandbox_time: '2026-01-01T00:00:08.000Z',
      }),
    ])
  })

  it('prints a failure in words, and nothing for a job someone made moot', async () => {
    const { s, lines } = logged('pretty')
    const user = (await s.call('POST', '/v1/card-users/create', fullIdentity())).body.data.userCard
      .reference
    // moved by hand before its job: the job has nothing left to do, and says nothing
    await s.call('POST', `/__sandbox/card-users/${user}/transition`, { to: 'failed' })
    await s.call('POST', '/__sandbox/clock/advance', { by: '3s' })
    s.close()
    expect(lines.filter((line) => line.includes(`card_user ${user}`))).toEqual([])
    const other = logged('pretty')
    const failing = (
      await other.s.call('POST', '/v1/card-users/create', {
        ...fullIdentity(),
        phone: '+221770000404',
      })
    ).body.data.userCard.reference
    await other.s.call('POST', '/__sandbox/clock/advance', { by: '1m' })
    other.s.close()
    expect(other.lines.join('')).toContain(
      `card_user ${failing} pending → failed (verification failed)`,
    )
  })

  it('prints a move no word says better as its two states alone, and a wallet code’s expiry in words', async () => {
    const { s, lines } = logged('pretty')
    const card = (
      await s.call('POST', '/v1/cards/create', {
        card_user_reference: await s.verifiedUser(),
        card_brand: 'visa',
        card_type: 'virtual',
      })
    ).body.data.card.reference
    await s.call('POST', '/__sandbox/wallet-codes', {
      phone: '+221770000001',
      network: 'orange-money-ci',
    })
    await s.call('POST', '/__sandbox/clock/advance', { by: '3m' })
    s.close()
    const said = (what: string) => lines.filter((line) => line.includes(what))
    expect(said(`card ${card}`)).toEqual([expect.stringMatching(/ issuing → issued\n$/)])
    expect(said('wallet_code')).toEqual([
      expect.stringMatching(/ wallet_code orange-money-ci \+221770000001 expired unused\n$/),
    ])
  })

  it('prints a wallet code that expired unused, once its time is past', async () => {
    const { s, events } = logged('json')
    await s.call('POST', '/__sandbox/wallet-codes', {
      phone: '+221770000001',
      network: 'orange-money-ci',
    })
    // valid for 2 min: still valid at 2 min, expired just after
    await s.call('POST', '/__sandbox/clock/advance', { by: '2m' })
    expect(events()).toEqual([])
    await s.call('POST', '/__sandbox/clock/advance', { by: '1s' })
    s.close()
    expect(events()).toEqual([
      expect.objectContaining({
        resource: 'wallet_code',
        reference: 'orange-money-ci +221770000001',
        what: 'expired unused',
        sandbox_time: '2026-01-01T00:02:00.001Z',
      }),
    ])
  })

  it('prints nothing when a wallet code was used before it expired', async () => {
    const lines: string[] = []
    const s = newSandbox({ log: 'json', logWrite: (text) => lines.push(text) })
    const card = await s.issuedCard()
    const payer = '+2250700000001'
    const { code } = (
      await s.call('POST', '/__sandbox/wallet-codes', { phone: payer, network: 'orange-money-ci' })
    ).body.data
    const pulled = await s.call('POST', '/v1/transactions/create/wallet-to-card', {
      amount: 2500,
      card_reference: card.reference,
      phone: payer,
      network: 'orange-money-ci',
      code,
    })
    expect(pulled.status).toBe(200)
    await s.call('POST', '/__sandbox/clock/advance', { by: '3m' })
    s.close()
    const events = lines.map((line) => JSON.parse(line)).filter((line) => line.event === 'event')
    expect(events.map((event) => event.resource)).not.toContain('wallet_code')
    expect(events.map((event) => event.resource)).toContain('transaction')
  })
})

describe('run until idle', () => {
  it('stops with RunawayJobs past its bound, keeping the work done and the clock where it got', async () => {
    const s = newSandbox()
    // three users, verified 3 s after each is created: at 3 s, 4 s and 5 s
    for (const phone of ['+221770000001', '+221770000002', '+221770000003']) {
      if (phone !== '+221770000001') await s.call('POST', '/__sandbox/clock/advance', { by: '1s' })
      await s.call('POST', '/v1/card-users/create', fullIdentity({ phone }))
    }
    const runaway = runUntilIdle(s.deps, 'test-token', undefined, 1)
    await expect(runaway).rejects.toThrow(RunawayJobs)
    await expect(runaway).rejects.toThrow(
      'More than 1 jobs ran without the tenant going idle; the clock stands at ' +
        '2026-01-01T00:00:04.000Z. Run it again, or pass an until.',
    )
    const statuses = async () =>
      (await s.call('GET', '/v1/card-users')).body.data[0].data.map((u: any) => u.status)
    expect(await statuses()).toEqual(['pending', 'passed', 'passed'])
    expect((await s.call('GET', '/__sandbox/clock')).body.data.now).toBe('2026-01-01T00:00:04.000Z')
    // within its bound, the run goes on to idle
    expect((await runUntilIdle(s.deps, 'test-token', undefined, 1)).ran).toBe(1)
    expect(await statuses()).toEqual(['passed', 'passed', 'passed'])
  })
})

describe('the tick', () => {
  it('forgets a tenant whose clock stands still, until a job is written for it again', async () => {
    const s = newSandbox()
    await s.call('POST', '/v1/card-users/create', fullIdentity())
    const tenant = (await s.deps.tenants.forToken('test-token'))!
    const tenants = async () => (await dueInstants(s.deps.db)).map(([id]) => id)
    expect(await tenants()).toEqual([tenant.id])
    await runDueOnRealClocks(s.deps)
    expect(await tenants()).toEqual([])
    await s.call('POST', '/v1/card-users/create', fullIdentity())
    expect(await tenants()).toEqual([tenant.id])
  })
})

describe.skipIf(!TEST_PG)('due jobs another transaction holds (PostgreSQL)', () => {
  const cleanups: (() => unknown)[] = []
  afterEach(async () => {
    for (const cleanup of cleanups.splice(0).reverse()) await cleanup()
  })

  /** A sandbox on a schema of its own with one card user pending, its verification's job held by `hold`. */
  async function withHeldJob(options: SandboxOptions) {
    const schema = await freshSchema()
    cleanups.push(schema.drop)
    const s = sandboxWithDeps({ ...options, db: schema.url, ticking: false, slowPollMs: 3_600_000 })
    cleanups.push(() => s.close())
    await callAs(s.app, 'held')('POST', '/v1/card-users/create', fullIdentity())
    const tenant = (await s.deps.tenants.forToken('held'))!
    const hold = async (tx: Db) =>
      (await claimDueJobs(tx, tenant.id, Number.MAX_SAFE_INTEGER, false)).length
    return { s, tenant, hold }
  }

  it('a request’s run waits for them (it must not answer before they ran)', async () => {
    const { s, tenant, hold } = await withHeldJob({ clock: 'manual' })
    const { held, beforeRelease } = await whileHeld(s.deps.db, hold, () =>
      runDue(s.deps, tenant, s.deps.tenants.now(tenant) + 5_000),
    )
    expect(held).toBe(1)
    expect(beforeRelease).toBe('waiting')
  })

  it('the tick passes over them at once (another replica is running them)', async () => {
    const { s, hold } = await withHeldJob({ clock: 'real', speed: 1000 })
    await new Promise((resolve) => setTimeout(resolve, 50)) // 3 s of sandbox time: due
    const { held, beforeRelease } = await whileHeld(s.deps.db, hold, () =>
      runDueOnRealClocks(s.deps),
    )
    expect(held).toBe(1)
    expect(beforeRelease).not.toBe('waiting')
  })
})

describe('a job with nothing left to do', () => {
  it('is passed over in silence when its resource already moved or is gone, and the rest runs', async () => {
    const lines: string[] = []
    const s = newSandbox({ log: 'json', logWrite: (text) => lines.push(text) })
    const card = await s.issuedCard()
    const tenant = (await s.deps.tenants.forToken('test-token'))!
    const at = s.deps.tenants.now(tenant)
    const job = (key: string, dueIn: number, resourceSeq?: number) =>
      insertJob(s.deps.db, {
        tenantId: tenant.id,
        resource: 'cards',
        key,
        resourceSeq,
        action: 'issued',
        dueAt: at + dueIn,
      })
    // the card is issued already: its move as one of a set (with its row) and alone (without,
    // as a store from before sets kept it); the other card never existed
    await job(card.reference, 1_000, await cardSeq(s, card.reference))
    await job(card.reference, 1_200)
    await job('card_gone', 1_500)
    const user = (await s.call('POST', '/v1/card-users/create', fullIdentity())).body.data.userCard
      .reference
    const advanced = await s.call('POST', '/__sandbox/clock/advance', { by: '3s' })
    s.close()
    expect(advanced.status).toBe(200)
    const events = lines.map((line) => JSON.parse(line)).filter((line) => line.event === 'event')
    expect(events.map((event) => `${event.resource} ${event.reference} ${event.to}`)).toEqual([
      `card_user ${user} passed`,
    ])
  })
})

async function cardSeq(s: ReturnType<typeof newSandbox>, reference: string): Promise<number> {
  const row = await query<{ seq: number }>(s.deps.db, 'get', (db, t) =>
    db.select({ seq: t.cards.seq }).from(t.cards).where(eq(t.cards.reference, reference)),
  )
  return row.seq
}
