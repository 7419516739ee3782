/**
 * The store on PostgreSQL (store/postgres/), on a real server (test/pg.ts): the same
 * store functions as on SQLite, given a PostgreSQL store as their `Db`, write and read the same
 * rows; a transaction holds a client of its own and rolls back whole, a nested one to its
 * savepoint.
 */
import { randomUUID } from 'node:crypto'
import pg from 'pg'
import { afterEach, describe, expect, it } from 'vitest'
import { cardByReference, cardPages, insertCard, updateCard } from '../../../src/store/cards.js'
import { accountBalance, accountBalances, writeMovement } from '../../../src/store/ledger.js'
import { lockName, tryLockName } from '../../../src/store/locks.js'
import type { Db } from '../../../src/store/driver.js'
import type { PgStore } from '../../../src/store/postgres/open.js'
import { startPgWireRelay } from '../../../bench/pg-wire-relay.mjs'

const pgOf = (db: Db) => (db as Db & { pg?: PgStore }).pg
import { joinReplicas, ReplicaSettingsError } from '../../../src/store/postgres/replicas.js'
import { retireTenantId, sweepRetiredTenants } from '../../../src/store/retired-tenants.js'
import { atomically } from '../../../src/store/statements.js'
import {
  insertTenant,
  tenantByToken,
  tenantByTokenForUpdate,
  updateTenant,
} from '../../../src/store/tenants.js'
import { pgStoreOnFreshSchema, TEST_PG } from '../../pg.js'
import { until } from '../../webhooks/receiver.js'

const cleanups: (() => Promise<void>)[] = []
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup()
})

async function database() {
  return (await pgStoreOnFreshSchema(cleanups)).db
}

const card = (reference: string) => ({
  reference,
  tenantId: 'ten_1',
  cardUserReference: 'user-1',
  identifier: null,
  brand: 'visa' as const,
  type: 'virtual' as const,
  status: 'issuing' as const,
  createdAt: 5,
  updatedAt: 6,
})

const tenant = (token: string) => ({
  id: `ten_${token}`,
  token,
  businessName: 'Diop SARL',
  clockMode: 'manual' as const,
  clockAnchorMs: 1_000,
  clockWallMs: 2_000,
  createdAt: 1_000,
})

describe.skipIf(!TEST_PG)('the store on PostgreSQL', () => {
  it('writes and reads a tenant as SQLite does: numbers as numbers, nulls where nothing was given', async () => {
    const db = await database()
    const made = await insertTenant(db, tenant('t1'))
    expect(made).toMatchObject({ id: 'ten_t1', clockAnchorMs: 1_000, delays: null })
    expect(await tenantByToken(db, 't1')).toEqual(made)
    const changed = await updateTenant(db, 'ten_t1', { delays: { card_issuing: 5 } })
    expect(changed.delays).toEqual({ card_issuing: 5 })
    expect((await tenantByToken(db, 't1'))?.delays).toEqual({ card_issuing: 5 })
  })

  it('finds a card by reference and pages the cards newest first, with their total', async () => {
    const db = await database()
    for (const reference of ['c1', 'c2', 'c3']) await insertCard(db, card(reference))
    const second = await cardByReference(db, 'ten_1', 'c2')
    expect(second).toMatchObject({ reference: 'c2', seq: 2, identifier: null })
    expect((await updateCard(db, second!.seq, { status: 'issued' })).status).toBe('issued')
    const page = await cardPages(db, 'ten_1', { page: 1, perPage: 2 })
    expect(page.rows.map((c) => c.reference)).toEqual(['c3', 'c2'])
    expect(page.total).toBe(3)
  })

  it('keeps a ledger movement and both balances', async () => {
    const db = await database()
    await writeMovement(db, {
      tenantId: 'ten_1',
      from: 'world',
      to: 'float',
      amount: 700,
      source: 'test',
      memo: 'float top-up',
      now: 1,
    })
    expect(await accountBalance(db, 'ten_1', 'float')).toBe(700)
    expect(await accountBalances(db, 'ten_1', ['float', 'world', 'none'])).toEqual(
      new Map([
        ['float', 700],
        ['world', -700],
        ['none', 0],
      ]),
    )
  })

  it('parses a prepared statement once per connection, then only binds and runs it', async () => {
    const relay = await startPgWireRelay(TEST_PG!)
    cleanups.push(() => relay.close())
    const { db } = await pgStoreOnFreshSchema(cleanups, (url) => relay.urlOf(url))
    await insertCard(db, card('parsed'))
    await cardByReference(db, 'ten_1', 'parsed')
    await cardByReference(db, 'ten_1', 'parsed')
    relay.reset()
    for (let i = 0; i < 3; i++) expect(await cardByReference(db, 'ten_1', 'parsed')).toBeDefined()
    expect(relay.counts()).toMatchObject({ parse: 0, bind: 3, execute: 3 })
  })

  it('rolls a transaction back whole, and a nested one to its savepoint only', async () => {
    const db = await database()
    await expect(
      atomically(db, async (tx) => {
        await insertCard(tx, card('undone'))
        throw new Error('refused')
      }),
    ).rejects.toThrow('refused')
    await atomically(db, async (tx) => {
      await insertCard(tx, card('kept'))
      await expect(
        atomically(tx, async (inner) => {
          await insertCard(inner, card('inner'))
          throw new Error('refused')
        }),
      ).rejects.toThrow('refused')
      // a read inside the transaction sees its own write; outside, nothing until it commits
      expect(await cardByReference(tx, 'ten_1', 'kept')).toBeDefined()
      expect(await cardByReference(db, 'ten_1', 'kept')).toBeUndefined()
    })
    expect(await cardByReference(db, 'ten_1', 'kept')).toBeDefined()
    expect(await cardByReference(db, 'ten_1', 'undone')).toBeUndefined()
    expect(await cardByReference(db, 'ten_1', 'inner')).toBeUndefined()
  })

  it('commits a nested transaction that succeeded with its outer one, and rolls it back with it', async () => {
    const db = await database()
    await atomically(db, async (tx) => {
      await atomically(tx, async (inner) => await insertCard(inner, card('nested')))
      // released, not committed: still the outer transaction's own
      expect(await cardByReference(db, 'ten_1', 'nested')).toBeUndefined()
      await insertCard(tx, card('after'))
    })
    expect(await cardByReference(db, 'ten_1', 'nested')).toBeDefined()
    expect(await cardByReference(db, 'ten_1', 'after')).toBeDefined()
    await expect(
      atomically(db, async (tx) => {
        await atomically(tx, async (inner) => await insertCard(inner, card('nested-undone')))
        throw new Error('refused')
      }),
    ).rejects.toThrow('refused')
    expect(await cardByReference(db, 'ten_1', 'nested-undone')).toBeUndefined()
  })

  it('runs a body that fails otherwise than by a deadlock once, and one that deadlocks each time three times', async () => {
    const db = await database()
    const failing = (code: string) => {
      let runs = 0
      const ran = atomically(db, async (tx) => {
        runs++
        await insertCard(tx, card(`run-${code}-${runs}`))
        throw Object.assign(new Error(`failed with ${code}`), { code })
      })
      return { ran, runs: () => runs }
    }
    const unique = failing('23505') // unique_violation
    await expect(unique.ran).rejects.toThrow('failed with 23505')
    expect(unique.runs()).toBe(1)
    const deadlocked = failing('40P01') // deadlock_detected, every time
    await expect(deadlocked.ran).rejects.toThrow('failed with 40P01')
    expect(deadlocked.runs()).toBe(3)
    // every try rolled back whole
    expect((await cardPages(db, 'ten_1', { page: 1, perPage: 10 })).rows).toEqual([])
  })

  it('runs a transaction again when PostgreSQL ends it in a deadlock, so both of two crossing ones commit', async () => {
    const db = await database()
    await insertTenant(db, tenant('t1'))
    await insertTenant(db, tenant('t2'))
    // each locks one tenant's row, waits until the other has locked its own, then locks the
    // other's: PostgreSQL ends one of them (deadlock_detected), and its body runs again
    const runs = { one: 0, two: 0 }
    let firstLocks = 0
    let bothLocked = () => {}
    const crossed = new Promise<void>((resolve) => (bothLocked = resolve))
    const crossing = (name: keyof typeof runs, first: string, second: string) =>
      atomically(db, async (tx) => {
        runs[name]++
        await tenantByTokenForUpdate(tx, first)
        if (++firstLocks === 2) bothLocked()
        await crossed
        await tenantByTokenForUpdate(tx, second)
        await updateTenant(tx, `ten_${first}`, { businessName: `written by ${name}` })
      })
    await Promise.all([crossing('one', 't1', 't2'), crossing('two', 't2', 't1')])
    expect([runs.one, runs.two].sort()).toEqual([1, 2])
    expect((await tenantByToken(db, 't1'))?.businessName).toBe('written by one')
    expect((await tenantByToken(db, 't2'))?.businessName).toBe('written by two')
  })

  it('sweeps a retired tenant on one replica at a time: a second sweep meanwhile deletes nothing', async () => {
    const db = await database()
    for (let i = 0; i < 5; i++) await insertCard(db, card(`old-${i}`))
    await retireTenantId(db, 'ten_1', 1)
    await atomically(db, async (tx) => {
      // this transaction holds the sweep's lock, as a replica's sweep in progress does
      expect(await tryLockName(tx, 'sweep retired tenants')).toBe(true)
      expect(await sweepRetiredTenants(db)).toBe(0)
      expect(await cardByReference(db, 'ten_1', 'old-0')).toBeDefined()
    })
    expect(await sweepRetiredTenants(db)).toBe(5)
    expect(await cardByReference(db, 'ten_1', 'old-0')).toBeUndefined()
  })

  it('lets one transaction at a time hold a name: the second waits for the first to commit', async () => {
    const db = await database()
    const name = `partner-${randomUUID()}`
    const order: string[] = []
    let release = () => {}
    const held = new Promise<void>((resolve) => (release = resolve))
    const first = atomically(db, async (tx) => {
      await lockName(tx, name)
      order.push('first has it')
      await held
      order.push('first commits')
    })
    await until(() => order.length > 0)
    const second = atomically(db, async (tx) => {
      await lockName(tx, name)
      order.push('second has it')
    })
    // the second transaction's backend shows in pg_locks waiting for the name
    const waiting = async () =>
      (
        await pgOf(db)!.queryable.query(
          `SELECT count(*)::int AS n FROM pg_locks WHERE locktype = 'advisory' AND NOT granted
           AND objid = ((hashtext($1)::bigint + 4294967296) % 4294967296)::oid`,
          [name],
        )
      ).rows[0] as { n: number }
    await until(async () => (await waiting()).n === 1)
    expect(order).toEqual(['first has it'])
    release()
    await Promise.all([first, second])
    expect(order).toEqual(['first has it', 'first commits', 'second has it'])
  })

  it('lets in a replica with the running ones’ flags, refuses one with others, and takes a lone one’s as the database’s', async () => {
    const store = pgOf(await database())!
    const flags = (clock: string, start: string) => ({ '--clock': clock, '--clock-start': start })
    const first = await joinReplicas(store, flags('manual', ''))
    const refused = joinReplicas(store, flags('real', '2026-01-01T00:00:00Z'))
    await expect(refused).rejects.toThrow(ReplicaSettingsError)
    await expect(refused).rejects.toThrow(
      'the replicas already serving this database run with --clock manual --clock-start (unset); ' +
        'start this one with the same flags',
    )
    const same = await joinReplicas(store, flags('manual', ''))
    await same()
    await first()
    // alone now: its flags become the database's, and the next is checked against them
    const alone = await joinReplicas(store, flags('real', ''))
    await expect(joinReplicas(store, flags('manual', ''))).rejects.toThrow(
      'the replicas already serving this database run with --clock real; start this one with the same flags',
    )
    // a flag the running ones never wrote (a newer version's) is not theirs to refuse
    const newer = await joinReplicas(store, { ...flags('real', ''), '--speed': '2' })
    await newer()
    await alone()
  })

  it('keeps a replica a member when its connection is cut: it takes its lock again on a new one', async () => {
    const db = await database()
    const leave = await joinReplicas(pgOf(db)!, { '--clock': 'manual' })
    const admin = new pg.Client({ connectionString: TEST_PG })
    await admin.connect()
    cleanups.push(() => admin.end())
    const schema = (await pgOf(db)!.queryable.query('SELECT current_schema() AS name')).rows[0] as {
      name: string
    }
    // the replicas' shared lock on this schema: class "cs", the schema's hash
    const members = async () =>
      (
        await admin.query<{ pid: number }>(
          `SELECT pid FROM pg_locks WHERE locktype = 'advisory' AND granted AND mode = 'ShareLock'
           AND classid = $1 AND objid = ((hashtext($2)::bigint + 4294967296) % 4294967296)::oid`,
          [0x6373, schema.name],
        )
      ).rows.map((row) => row.pid)
    const [first] = await members()
    expect(first).toEqual(expect.any(Number))
    await admin.query('SELECT pg_terminate_backend($1)', [first])
    let now: number[] = []
    for (let i = 0; i < 100 && (now.length !== 1 || now[0] === first); i++) {
      await new Promise((resolve) => setTimeout(resolve, 50))
      now = await members()
    }
    expect(now).toHaveLength(1)
    expect(now[0]).not.toBe(first)
    await leave()
    expect(await members()).toEqual([])
  })
})
