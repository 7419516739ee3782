/**
 * The deliverer itself (webhooks/delivery.ts), driven by hand: its slots per tenant, the refill
 * of slots as attempts settle, what it holds back, its errors and its stop. Events are written
 * straight to the outbox, due at once on the tenant's clock, and sent to real receivers on real
 * ports; no ticker runs, so each pass is one the test asked for.
 */
import { createServer, type ServerResponse } from 'node:http'
import type { AddressInfo } from 'node:net'
import { afterEach, describe, expect, it } from 'vitest'
import type { Tenant } from '../../src/db/schema.js'
import type { LogLine } from '../../src/lib/logger.js'
import { closeStore } from '../../src/store/open.js'
import { insertEvent } from '../../src/store/webhooks.js'
import {
  createDeliverer,
  MAX_IN_FLIGHT,
  MAX_IN_FLIGHT_PER_TENANT,
} from '../../src/webhooks/delivery.js'
import { newSandbox } from '../helpers.js'
import { freshSchema, TEST_PG } from '../pg.js'

const cleanups: (() => unknown)[] = []
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup()
})

/**
 * A receiver that holds every request while `holding`, and answers `status` at once otherwise
 * (`release()` answers those it holds). `requests` is the tenant (`?t=`) of each, as they came.
 */
async function startGate(options: { holding?: boolean; status?: number } = {}) {
  const state = { holding: options.holding ?? false, status: options.status ?? 200 }
  const requests: string[] = []
  const held: ServerResponse[] = []
  /** The tenant of each held request, index for index. */
  const heldFor: string[] = []
  const server = createServer((req, res) => {
    req.resume()
    req.on('end', () => {
      requests.push(new URL(req.url!, 'http://x').searchParams.get('t')!)
      if (state.holding) {
        held.push(res)
        heldFor.push(requests.at(-1)!)
      } else res.writeHead(state.status).end('ok')
    })
  })
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  const { port } = server.address() as AddressInfo
  const gate = {
    url: (tenant: string) => `http://127.0.0.1:${port}/hooks?t=${tenant}`,
    requests,
    held,
    /** Answers one held request of `tenant`. */
    answerOne(tenant: string) {
      const i = heldFor.indexOf(tenant)
      heldFor.splice(i, 1)
      held.splice(i, 1)[0].writeHead(state.status).end('ok')
    },
    /** Answers every held request, and the next ones at once. */
    release() {
      state.holding = false
      heldFor.splice(0)
      for (const res of held.splice(0)) res.writeHead(state.status).end('ok')
    },
    async close() {
      for (const res of held.splice(0)) res.destroy()
      server.closeAllConnections()
      await new Promise((resolve) => server.close(resolve))
    },
  }
  cleanups.push(() => gate.close())
  return gate
}

/**
 * A sandbox whose own deliverer is stopped, and a deliverer of the test's on its store that logs
 * to `lines`; `tenant(token, url)` makes a tenant with that webhook URL, `due(tenant, n)` writes
 * n events of it due now (or `at`).
 */
async function harness(db?: string) {
  const s = newSandbox({ ticking: false, db })
  cleanups.push(() => s.close())
  await s.deps.deliverer.close()
  const lines: LogLine[] = []
  const deliverer = createDeliverer(s.deps.db, s.deps.tenants, {
    timeoutMs: 60_000,
    logger: { log: (line) => lines.push(line) },
  })
  cleanups.push(() => void deliverer.close()) // what is held ends with its receiver
  let written = 0
  async function tenant(token: string, url: string | null): Promise<Tenant> {
    await s.call('PUT', '/__sandbox/webhook', { url }, { token })
    return (await s.deps.tenants.forToken(token))!
  }
  async function due(of: Tenant | string, n: number, at?: number): Promise<string[]> {
    const tenantId = typeof of === 'string' ? of : of.id
    const now = at ?? (typeof of === 'string' ? 0 : s.deps.tenants.now(of))
    const ids: string[] = []
    for (let i = 0; i < n; i++) {
      const id = `evt_test_${++written}`
      ids.push(id)
      await insertEvent(s.deps.db, {
        id,
        tenantId,
        type: 'card_user_verification.successful',
        extension: false,
        body: `{"n":${written}}`,
        status: 'pending',
        attempts: 0,
        nextAttemptAt: now,
        createdAt: now,
      })
    }
    return ids
  }
  const statuses = async (token: string) =>
    (await s.call('GET', '/__sandbox/webhooks?per_page=100', undefined, { token })).body.data.map(
      (e: { status: string; attempts: unknown[] }) => [e.status, e.attempts.length],
    )
  /** Blocking tenants whose attempts, held by `gate`, take every slot but one tenant's share. */
  async function holdAllButOneShare(gate: Gate) {
    for (let i = 0; i < MAX_IN_FLIGHT / MAX_IN_FLIGHT_PER_TENANT - 1; i++)
      await due(await tenant(`blocker-${i}`, gate.url('blocker')), MAX_IN_FLIGHT_PER_TENANT)
    await deliverer.deliverDue()
    await until(() => gate.held.length === MAX_IN_FLIGHT - MAX_IN_FLIGHT_PER_TENANT)
  }
  return { s, deliverer, lines, tenant, due, statuses, holdAllButOneShare }
}

type Gate = Awaited<ReturnType<typeof startGate>>

describe('a tenant’s slots', () => {
  it('refills a tenant’s slots as its attempts settle, so one kick sends a backlog past its share', async () => {
    const gate = await startGate()
    const { deliverer, tenant, due, statuses } = await harness()
    const a = await tenant('refill', gate.url('a'))
    await due(a, MAX_IN_FLIGHT_PER_TENANT + 5)
    deliverer.kick()
    await deliverer.idle() // waits for the kick it was not yet given a turn to start
    expect(gate.requests).toHaveLength(MAX_IN_FLIGHT_PER_TENANT + 5)
    expect(new Set((await statuses('refill')).map(String))).toEqual(new Set(['delivered,1']))
  })

  it('never has more of a tenant’s attempts in flight than its share, counting those already out', async () => {
    const gate = await startGate({ holding: true })
    const { deliverer, tenant, due, s } = await harness()
    const a = await tenant('capped', gate.url('a'))
    const half = MAX_IN_FLIGHT_PER_TENANT / 2
    await due(a, half)
    await deliverer.deliverDue()
    await until(() => gate.held.length === half)
    // events due before those in flight: the claim reads them first, none of them in flight
    await due(a, MAX_IN_FLIGHT_PER_TENANT, s.deps.tenants.now(a) - 1_000)
    await deliverer.deliverDue()
    // stopped: no slot is refilled; what was started is answered and settles
    const closing = deliverer.close()
    gate.release()
    await closing
    expect(gate.requests).toHaveLength(MAX_IN_FLIGHT_PER_TENANT)
  })

  it('sends the rest of a tenant’s backlog once its slots free, though it was at its share when the last pass ran', async () => {
    const gate = await startGate({ holding: true })
    const { deliverer, tenant, due } = await harness()
    const a = await tenant('at-share', gate.url('a'))
    await due(a, MAX_IN_FLIGHT_PER_TENANT + 5)
    await deliverer.deliverDue()
    await until(() => gate.held.length === MAX_IN_FLIGHT_PER_TENANT)
    await deliverer.deliverDue() // the tenant is at its share: this pass passes it over
    gate.release()
    await deliverer.idle()
    expect(gate.requests).toHaveLength(MAX_IN_FLIGHT_PER_TENANT + 5)
  })

  it('shares the slots free at a pass evenly between the tenants waiting, every slot given', async () => {
    const gate = await startGate({ holding: true })
    const { deliverer, tenant, due, holdAllButOneShare } = await harness()
    await holdAllButOneShare(gate)
    // three tenants, each wanting a whole share, compete for one share's slots in one pass
    const names = ['x', 'y', 'z']
    for (const name of names)
      await due(await tenant(name, gate.url(name)), MAX_IN_FLIGHT_PER_TENANT)
    await deliverer.deliverDue()
    const closing = deliverer.close() // no slot is refilled after this pass
    gate.release()
    await closing
    const counts = names.map((name) => gate.requests.filter((t) => t === name).length)
    // 20 slots between 3: 7, 7 and 6, in whichever turn order the pass took
    expect(counts.sort()).toEqual([6, 7, 7])
  })

  it('starts each pass after the tenant last given an odd slot, so single free slots go round the tenants', async () => {
    const gate = await startGate({ holding: true })
    const { deliverer, tenant, due, holdAllButOneShare } = await harness()
    await holdAllButOneShare(gate)
    const names = ['x', 'y', 'z']
    for (const name of names)
      await due(await tenant(name, gate.url(name)), 2 * MAX_IN_FLIGHT_PER_TENANT)
    await deliverer.deliverDue() // 7, 7 and 6: the first two in turn order get the odd slots
    await until(() => gate.held.length === MAX_IN_FLIGHT)
    const count = (name: string) => gate.requests.filter((t) => t === name).length
    const short = names.find((name) => count(name) === 6)!
    // one slot at a time comes free: each goes to the next tenant in turn
    const given: string[] = []
    for (let i = 0; i < names.length; i++) {
      const before = gate.requests.length
      gate.answerOne(names.find((name) => name !== short) ?? short)
      await until(() => gate.requests.length === before + 1)
      given.push(gate.requests.at(-1)!)
    }
    expect(given[0]).toBe(short) // the one left a slot short is first in the next pass
    expect(new Set(given).size).toBe(names.length)
  })

  it('runs a pass again for a kick that came while one ran, so what it wrote meanwhile is sent', async () => {
    const gate = await startGate()
    const { deliverer, tenant, due } = await harness()
    const [early, late] = [await tenant('p', gate.url('p')), await tenant('q', gate.url('q'))].sort(
      (a, b) => (a.id < b.id ? -1 : 1),
    )
    await due(late, 1)
    const first = deliverer.deliverDue() // its pass has found the late tenant's events, no other
    const written = due(early, 1) // an event of a tenant that comes before it in the pass
    const second = deliverer.deliverDue()
    await Promise.all([first, written, second])
    await deliverer.idle()
    expect(gate.requests.sort()).toEqual([early, late].map((t) => t.token).sort())
  })

  it('sends none of a held tenant’s events until released, then at once', async () => {
    const gate = await startGate()
    const { deliverer, tenant, due } = await harness()
    const a = await tenant('held', gate.url('a'))
    const release = deliverer.hold('held')
    await due(a, 2)
    await deliverer.deliverDue()
    await deliverer.idle()
    expect(gate.requests).toEqual([])
    release()
    await deliverer.idle()
    expect(gate.requests).toEqual(['a', 'a'])
  })

  it('passes over the events of a tenant id that is gone, and delivers the next tenant’s', async () => {
    const gate = await startGate()
    const { deliverer, tenant, due, lines } = await harness()
    const b = await tenant('after-gone', gate.url('b'))
    await due('ten_!gone', 1) // sorts before every tenant id: its turn comes first
    await due(b, 1)
    deliverer.kick()
    await deliverer.idle()
    expect(gate.requests).toEqual(['b'])
    expect(lines.filter((line) => line.level === 'error')).toEqual([])
  })
})

describe('stopping', () => {
  it('logs no attempt that answers after the stop, and starts none after it', async () => {
    const gate = await startGate({ holding: true })
    const { deliverer, tenant, due, statuses, lines } = await harness()
    const a = await tenant('stopping', gate.url('a'))
    await due(a, 1)
    await deliverer.deliverDue()
    await until(() => gate.held.length === 1)
    const closing = deliverer.close()
    gate.release()
    await closing
    expect(await statuses('stopping')).toEqual([['pending', 0]])
    expect(lines).toEqual([])

    await due(a, 1)
    await deliverer.deliverDue()
    deliverer.kick()
    await deliverer.idle()
    expect(gate.requests).toEqual(['a'])
  })
})

describe('failures of the deliverer’s own', () => {
  it('logs an attempt whose outcome could not be written, naming the event', async () => {
    const gate = await startGate({ holding: true })
    const { s, deliverer, tenant, due, lines } = await harness()
    const a = await tenant('unwritable', gate.url('a'))
    const [id] = await due(a, 1)
    await deliverer.deliverDue()
    await until(() => gate.held.length === 1)
    await closeStore(s.deps.db) // the attempt's row cannot be written
    gate.release()
    await deliverer.idle()
    expect(lines).toHaveLength(1)
    const [line] = lines
    expect(line).toMatchObject({
      event: 'webhook',
      level: 'error',
      tenant: 'unwritable',
      fields: { type: 'card_user_verification.successful', id, error: expect.any(String) },
    })
    const error = line.fields!.error as string
    expect(error).toMatch(/^\w*Error/)
    expect(line.text).toMatch(
      new RegExp(`^webhook card_user_verification\\.successful ${id}: delivery failed: \\w*Error`),
    )
    // with the stack: where it failed
    expect(line.text).toMatch(/\n\s+at /)
  })

  it('logs a pass that failed, with its error and where', async () => {
    const { s, deliverer, lines } = await harness()
    await closeStore(s.deps.db) // every read fails
    deliverer.kick()
    await deliverer.idle()
    expect(lines).toHaveLength(1)
    const [line] = lines
    expect(line).toMatchObject({
      event: 'webhook',
      level: 'error',
      fields: { error: expect.stringMatching(/^\w*Error/) },
    })
    expect(line.text).toMatch(/^webhook delivery failed: \w*Error/)
    expect(line.text).toMatch(/\n\s+at /)
  })
})

/**
 * With replicas (PostgreSQL) the tick sends only when an event is due by the wake-ups it keeps
 * in memory; without a listener (no ticker), nothing but the deliverer's own reads updates them.
 */
describe.skipIf(!TEST_PG)('the tick on PostgreSQL', () => {
  async function onPostgres() {
    const schema = await freshSchema()
    cleanups.push(schema.drop)
    return harness(schema.url)
  }
  const advance = (s: Awaited<ReturnType<typeof harness>>['s'], token: string, by: string) =>
    s.call('POST', '/__sandbox/clock/advance', { by }, { token })

  it('sends an event due at this very instant, while another tenant’s waits for later', async () => {
    const gate = await startGate()
    const { s, deliverer, tenant, due } = await onPostgres()
    const later = await tenant('later', gate.url('later'))
    const now = await tenant('now', gate.url('now'))
    await due(later, 1, s.deps.tenants.now(later) + 3_600_000)
    await due(now, 1)
    await deliverer.deliverDue()
    await deliverer.idle()
    expect(gate.requests).toEqual(['now'])
  })

  it('makes the retry of an attempt that failed once its time comes, though the tick looked while it was out', async () => {
    const gate = await startGate({ holding: true, status: 500 })
    const { s, deliverer, tenant, due } = await onPostgres()
    const a = await tenant('retried', gate.url('a'))
    await due(a, 1)
    await deliverer.deliverDue()
    await until(() => gate.held.length === 1)
    await deliverer.deliverDue() // nothing due: the event is leased while its attempt is out
    gate.release()
    await deliverer.idle()
    await advance(s, 'retried', '10s')
    await deliverer.deliverDue()
    await deliverer.idle()
    expect(gate.requests).toEqual(['a', 'a'])
  })

  it('looks again after a pass: an event another replica wrote meanwhile is sent at the next tick', async () => {
    const gate = await startGate()
    const { deliverer, tenant, due } = await onPostgres()
    const a = await tenant('again', gate.url('a'))
    await due(a, 1)
    await deliverer.deliverDue()
    await deliverer.idle()
    await due(a, 1) // written straight to the table: this process counted no write
    await deliverer.deliverDue()
    await deliverer.idle()
    expect(gate.requests).toEqual(['a', 'a'])
  })

  it('logs nothing of a pass that fails because the sandbox is stopping', async () => {
    const gate = await startGate({ holding: true })
    const { s, deliverer, tenant, due, lines } = await onPostgres()
    for (const token of ['p', 'q', 'r']) await due(await tenant(token, gate.url(token)), 1)
    deliverer.kick()
    await new Promise((resolve) => setImmediate(resolve)) // the pass waits for its first read
    void deliverer.close()
    await closeStore(s.deps.db) // its next read fails
    await deliverer.idle()
    expect(lines).toEqual([])
    expect(gate.requests).toEqual([])
  })
})

/** Polls until `ready()` holds; fails after 5 s. */
async function until(ready: () => boolean): Promise<void> {
  const deadline = Date.now() + 5_000
  while (!ready()) {
    if (Date.now() > deadline) throw new Error('timed out')
    await new Promise((resolve) => setTimeout(resolve, 5))
  }
}
