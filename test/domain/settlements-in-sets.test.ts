/**
 * Settlements made as a set (domain/settlements-in-sets.ts, through moveAsSet): a run of due
 * transfers, payments and disburses writes the same rows as `transition` job by job (statuses,
 * postings in the same order, balances, business operations, events with the same ids), and a
 * set's statements do not grow with its moves.
 */
import { afterEach, describe, expect, it, vi } from 'vitest'
import type { DomainContext } from '../../src/domain/context.js'
import { SandboxError } from '../../src/domain/errors.js'
import { moveAsSet, type SetMove, type SetResource } from '../../src/domain/moves-in-sets.js'
import { transition, type TransitionResult } from '../../src/domain/transitions.js'
import type { Driver } from '../../src/store/driver.js'
import { atomically } from '../../src/store/statements.js'
import { newSandbox, sqlRows, TOKEN } from '../helpers.js'

type Sandbox = ReturnType<typeof newSandbox>
const SETTLED: SetResource[] = ['transactions', 'payments', 'disburses']

/** A sandbox with pending transfers of every kind, payments and disburses, some forced to fail. */
async function withPendingMoney(): Promise<{ s: Sandbox; handMoved: string }> {
  // nothing delivered meanwhile: the outbox as the moves left it
  const s = newSandbox({ webhookExtensions: true, ticking: false, stages: { webhookKick: false } })
  const ok = async (path: string, body: unknown) => {
    const res = await s.call('POST', path, body)
    if (res.status !== 200) throw new Error(`${path}: ${res.status} ${JSON.stringify(res.body)}`)
    return res.body.data
  }
  const funded = (await s.fundedCard('visa', undefined, 1_000_000)).reference
  // never funded: a wallet-to-card transfer to it opens its account when it lands
  const empty = (await s.issuedCard('mastercard')).reference
  const bank = { bank_id: 'SN012-01001-000123456789-12', bank_name: 'BICICI' }
  const wallet = { phone: '+221770000001', network: 'wave-sn' }
  for (const amount of [15_000, 4004])
    await ok('/v1/transactions/create/card-to-bank', { amount, card_reference: funded, ...bank })
  const handMoved = (
    await ok('/v1/transactions/create/card-to-wallet', {
      amount: 7_000,
      card_reference: funded,
      ...wallet,
    })
  ).transaction.slug
  await ok('/v1/transactions/create/card-to-wallet', {
    amount: 4004,
    card_reference: funded,
    ...wallet,
  })
  await ok('/v1/transactions/create/wallet-to-card', {
    amount: 2_500,
    card_reference: empty,
    ...wallet,
  })
  await ok('/v1/transactions/create/wallet-to-card', {
    amount: 4004,
    card_reference: funded,
    ...wallet,
  })
  await ok('/v1/transactions/create', { action: 'recharge', amount: 3_000, card_reference: funded })
  await ok('/v1/transactions/create', { action: 'withdraw', amount: 4004, card_reference: funded })
  await ok('/v1/transactions/create', {
    action: 'transfer',
    amount: 1_000,
    card_reference: funded,
    receiver_card_reference: empty,
  })
  const customer = { full_name: 'Awa Diop', email: 'awa.diop@example.com', phone: '+221770000001' }
  for (const amount of [2002, 4004, 4008, 5_000])
    await ok('/v1/payments/create', {
      amount,
      partner_reference: `order-${amount}`,
      network: 'wave-sn',
      customer,
    })
  for (const amount of [9_000, 4004])
    await ok('/v1/disburses/create', {
      amount,
      partner_reference: `payout-${amount}`,
      network: 'wave-sn',
      customer,
    })
  return { s, handMoved }
}

async function contextOf(s: Sandbox): Promise<DomainContext> {
  return {
    db: s.deps.db,
    ids: s.deps.ids,
    tenant: (await s.deps.tenants.forToken(TOKEN))!,
    now: s.deps.tenants.now((await s.deps.tenants.forToken(TOKEN))!),
    quirks: s.deps.options.quirks,
    webhookExtensions: s.deps.options.webhookExtensions,
  }
}

/** Each resource's first pending move a key, in due order, as the scheduler would run them. */
async function pendingMoves(s: Sandbox, resource: SetResource): Promise<SetMove[]> {
  const jobs = (await sqlRows(
    s.deps.db,
    'SELECT key, resource_seq, action, due_at FROM jobs WHERE resource = ? ORDER BY due_at, seq',
    resource,
  )) as { key: string; resource_seq: number; action: string; due_at: number }[]
  const moves = new Map<string, SetMove>()
  for (const job of jobs)
    if (!moves.has(job.key))
      moves.set(job.key, {
        key: job.key,
        seq: Number(job.resource_seq),
        to: job.action,
        now: Number(job.due_at),
      })
  return [...moves.values()]
}

/** What the moves did to the tables money and events live in. */
async function moneyTables(s: Sandbox): Promise<Record<string, unknown[]>> {
  const tables: Record<string, unknown[]> = {}
  for (const [table, order] of [
    ['transactions', 'seq'],
    ['payments', 'seq'],
    ['disburses', 'seq'],
    ['business_operations', 'seq'],
    ['postings', 'seq'],
    ['accounts', 'name'],
    ['webhook_events', 'seq'],
    ['jobs', 'seq'],
  ])
    tables[table] = await sqlRows(s.deps.db, `SELECT * FROM ${table} ORDER BY ${order}`)
  return tables
}

/** The moves made as `transition` makes them one by one (a refused one: nothing, as a job). */
async function oneByOne(ctx: DomainContext, resource: SetResource, moves: SetMove[]) {
  const results: (TransitionResult | undefined)[] = []
  for (const move of moves) {
    try {
      results.push(await transition({ ...ctx, now: move.now }, resource, move.key, move.to))
    } catch (error) {
      if (!(error instanceof SandboxError && error.code === 'invalid_transition')) throw error
      results.push(undefined)
    }
  }
  return results
}

describe('settlements made as a set', () => {
  afterEach(() => {
    vi.restoreAllMocks()
  })

  it('write the same statuses, postings, balances, operations and events as job by job', async () => {
    const [bySet, byJob] = [await withPendingMoney(), await withPendingMoney()]
    const results: Record<string, unknown[]> = { set: [], job: [] }
    for (const [name, { s, handMoved }] of [
      ['set', bySet],
      ['job', byJob],
    ] as const) {
      const ctx = await contextOf(s)
      const moves = Object.fromEntries(
        await Promise.all(SETTLED.map(async (r) => [r, await pendingMoves(s, r)] as const)),
      )
      // moved by hand before its job runs: the job then has nothing to do
      await transition(ctx, 'transactions', handMoved, 'failed')
      for (const resource of SETTLED) {
        const moved =
          name === 'set'
            ? await atomically(ctx, (ctx) => moveAsSet(ctx, resource, moves[resource]))
            : await oneByOne(ctx, resource, moves[resource])
        results[name].push(...moved)
      }
    }
    const [setTables, jobTables] = [await moneyTables(bySet.s), await moneyTables(byJob.s)]
    // the sets ran: every transfer, payment and disburse has moved, failures gave money back
    expect(results.set.filter((r) => r === undefined)).toHaveLength(1)
    expect((setTables.postings as unknown[]).length).toBeGreaterThan(0)
    expect(
      (setTables.transactions as { status: string }[]).filter((t) => t.status === 'pending'),
    ).toEqual([])
    expect(results.set).toEqual(results.job)
    for (const table of Object.keys(jobTables))
      expect(JSON.stringify(setTables[table], null, 1), table).toBe(
        JSON.stringify(jobTables[table], null, 1),
      )
  })

  it('run in statements that do not grow with the number of moves', async () => {
    const counted: (keyof Driver)[] = [
      'query',
      'statement',
      'insert',
      'update',
      'insertMany',
      'updateManyBySeq',
    ]
    async function statementsFor(n: number): Promise<number> {
      const s = newSandbox({ webhookExtensions: true, ticking: false })
      const funded = (await s.fundedCard('visa', undefined, 1_000_000)).reference
      for (let i = 0; i < n; i++)
        await s.call('POST', '/v1/transactions/create/card-to-bank', {
          amount: i % 2 ? 4004 : 1_000 + i,
          card_reference: funded,
          bank_id: 'SN012-01001-000123456789-12',
          bank_name: 'BICICI',
        })
      const ctx = await contextOf(s)
      const moves = await pendingMoves(s, 'transactions')
      expect(moves).toHaveLength(n)
      const driver = s.deps.db.driver
      const methods = driver as unknown as Record<string, (...args: unknown[]) => unknown>
      const spies = counted.map((method) => vi.spyOn(methods, method))
      let handle: unknown
      const moved = await atomically(ctx, (ctx) => {
        handle = ctx.db
        return moveAsSet(ctx, 'transactions', moves)
      })
      // the driver serves every sandbox of the process: only this set's calls count
      const calls = spies.reduce(
        (sum, spy) => sum + spy.mock.calls.filter(([db]) => db === handle).length,
        0,
      )
      vi.restoreAllMocks()
      expect(moved.every((result) => result !== undefined)).toBe(true)
      return calls
    }
    expect(await statementsFor(8)).toBe(await statementsFor(2))
  })
})
