/**
 * Due work in slices and sets (engine/scheduler.ts runDue): a long run claims the driver's
 * dueSliceJobs jobs a transaction (50 on SQLite, 500 on PostgreSQL), runs consecutive moves
 * of one kind as sets of at most DUE_SET_JOBS, lets the event loop go between slices so that
 * another tenant is served meanwhile, and answers the tenant that advanced only once
 * everything due has run.
 */
import { describe, expect, it } from 'vitest'
import type { Job } from '../../src/db/schema.js'
import { DUE_SET_JOBS, runDue, runsOf } from '../../src/engine/scheduler.js'
import type { SqliteDb } from '../../src/store/sqlite/driver.js'
import { newSandbox, ON_POSTGRES, sqlRows } from '../helpers.js'

const OTHER = 'other-tenant'

/**
 * A sandbox with `cards(slice)` cards issuing, due 5 s after the clock's start, where `slice` is
 * its store's dueSliceJobs.
 */
async function withIssuingCards(cards: (slice: number) => number) {
  const s = newSandbox({ tokens: ['test-token', OTHER] })
  const slice = s.deps.db.driver.dueSliceJobs
  const n = cards(slice)
  const user = await s.verifiedUser()
  for (let made = 0; made < n; made += 50)
    await Promise.all(
      Array.from({ length: Math.min(50, n - made) }, () =>
        s.call('POST', '/v1/cards/create', {
          card_user_reference: user,
          card_brand: 'visa',
          card_type: 'virtual',
        }),
      ),
    )
  return { s, n, slice }
}

describe('a run of due jobs', () => {
  it('takes one slice per dueSliceJobs jobs and one set per DUE_SET_JOBS moves of a kind', async () => {
    const { s, n, slice } = await withIssuingCards((slice) => 2 * slice + 10)
    const tenant = (await s.deps.tenants.advance('test-token', 60_000))!
    const run = await runDue(s.deps, tenant, s.deps.tenants.now(tenant))
    expect(run.ran).toBe(n)
    expect(run.fired).toHaveLength(n)
    expect(run.slices).toBe(3)
    expect(run.sets).toBe(2 * Math.ceil(slice / DUE_SET_JOBS) + 1)
  })

  it('lets another tenant be served between its slices, and answers once all has run', async () => {
    const { s, n } = await withIssuingCards((slice) => 4 * slice)
    const order: string[] = []
    const advance = s.call('POST', '/__sandbox/clock/advance', { by: '1m' }).then((res) => {
      order.push('advance')
      return res
    })
    // the other tenant asks once the advance's first slice is under way
    await new Promise((resolve) => setImmediate(resolve))
    const other = s.call('GET', '/v1/cards', undefined, { token: OTHER }).then((res) => {
      order.push('other')
      return res
    })
    const [advanced, read] = await Promise.all([advance, other])
    expect(read.status).toBe(200)
    expect(order).toEqual(['other', 'advance'])
    expect(advanced.body.data.transitions_run).toBe(n)
    expect(
      await sqlRows(s.deps.db, 'SELECT status, count(*) AS n FROM cards GROUP BY status'),
    ).toEqual([{ status: 'issued', n }])
  })
})

/** The tables whose rows due jobs move in sets (domain/moves-in-sets.ts, settlements-in-sets.ts). */
const SET_TABLES = ['cards', 'card_users', 'transactions', 'payments', 'disburses']

/**
 * The lines of SQLite's plan of `sql` that walk every row a tenant has in one of SET_TABLES: a
 * scan of the table, or a search of an index by the tenant alone.
 */
function tenantWalks(db: SqliteDb, sql: string): string[] {
  const unbound = Array.from({ length: sql.match(/\?/g)?.length ?? 0 }, () => null)
  const plan = db.$client.prepare(`EXPLAIN QUERY PLAN ${sql}`).all(...unbound) as {
    detail: string
  }[]
  const table = `(?:${SET_TABLES.join('|')})`
  const walk = new RegExp(`^(?:SCAN ${table}(?: |$)|SEARCH ${table} USING .*\\(tenant_id=\\?\\)$)`)
  return plan.map((line) => line.detail).filter((detail) => walk.test(detail))
}

describe("a slice's reads", () => {
  // the plans are SQLite's; PostgreSQL plans by its statistics
  it.skipIf(ON_POSTGRES)(
    'find the rows a set moves by their keys, not by walking every row of the tenant',
    async () => {
      // a tenant with 3 slices of cards: a slice that walked them would read all 3 slices' worth
      const { s, n, slice } = await withIssuingCards((slice) => 3 * slice)
      const db = s.deps.db as SqliteDb
      // every statement the advance runs, as SQLite got it (better-sqlite3's Statement.source)
      const statement = Object.getPrototypeOf(db.$client.prepare('SELECT 1')) as Record<
        string,
        (this: { source: string }, ...args: unknown[]) => unknown
      >
      const methods = ['run', 'get', 'all', 'iterate']
      const originals = methods.map((method) => statement[method])
      const ran = new Set<string>()
      methods.forEach((method, i) => {
        statement[method] = function (...args) {
          ran.add(this.source)
          return originals[i].apply(this, args)
        }
      })
      let advanced
      try {
        advanced = await s.call('POST', '/__sandbox/clock/advance', { by: '1m' })
      } finally {
        methods.forEach((method, i) => (statement[method] = originals[i]))
      }
      expect(advanced.body.data.transitions_run).toBe(n)
      expect(n).toBeGreaterThan(2 * slice)
      // the set's read ran, and was seen
      expect([...ran].filter((sql) => /^select .* from "cards" where/.test(sql))).not.toEqual([])
      const walks = [...ran].flatMap((sql) => tenantWalks(db, sql).map((line) => `${line}: ${sql}`))
      expect(walks).toEqual([])
    },
  )
})

describe('runsOf', () => {
  const job = (seq: number, resource: string, key: string, action = 'issued'): Job => ({
    seq,
    tenantId: 't',
    resource,
    key,
    resourceSeq: seq,
    action,
    dueAt: 1,
  })

  it('cuts runs of one kind, a resource once a run, other jobs alone, in order', () => {
    const due = [
      job(1, 'cards', 'a'),
      job(2, 'cards', 'b'),
      job(3, 'cards', 'a'),
      job(4, 'card-users', 'u', 'passed'),
      job(5, 'transactions', 't1', 'success'),
      job(6, 'transactions', 't2', 'failed'),
      job(7, 'payments', 'p1', 'expired'),
      job(8, 'disburses', 'd1', 'success'),
      job(9, 'disburses', 'd2', 'failed'),
      job(10, 'wallet-codes', 'w1', 'expired'),
      job(11, 'wallet-codes', 'w2', 'expired'),
      job(12, 'cards', 'c', 'fill_details'),
      job(13, 'cards', 'd'),
    ]
    expect(runsOf(due).map((run) => run.map((j) => j.seq))).toEqual([
      [1, 2],
      [3],
      [4],
      [5, 6],
      [7],
      [8, 9],
      [10],
      [11],
      [12],
      [13],
    ])
  })

  it('puts at most DUE_SET_JOBS jobs in a run', () => {
    const due = Array.from({ length: DUE_SET_JOBS + 1 }, (_, i) => job(i, 'cards', `k${i}`))
    expect(runsOf(due).map((run) => run.length)).toEqual([DUE_SET_JOBS, 1])
  })
})
