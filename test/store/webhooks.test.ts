/**
 * The claim of due webhook events (src/store/webhooks.ts claimDueEvents): oldest due first (by
 * the instant of the next attempt, then by seq), at most the free slots, `more` when the slots
 * were filled; on a shared store (PostgreSQL) each claimed event leased to the replica, so that a
 * second claim meanwhile takes the others only.
 */
import { afterEach, describe, expect, it } from 'vitest'
import type { Db } from '../../src/store/driver.js'
import { insertEvents } from '../../src/store/due-sets.js'
import { attemptCount, attemptsOf, claimDueEvents, pruneEvents } from '../../src/store/webhooks.js'
import { memoryStore, pgStoreOnFreshSchema, TEST_PG, whileHeld } from '../pg.js'

const cleanups: (() => Promise<void>)[] = []
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup()
})

/** Pending events of ten_1 in this seq order, with these next attempt instants. */
async function pending(db: Db, nextAttemptAts: number[]) {
  await insertEvents(
    db,
    nextAttemptAts.map((nextAttemptAt, n) => ({
      id: `evt_${n + 1}`,
      tenantId: 'ten_1',
      type: 'card.created',
      extension: false,
      body: '{}',
      status: 'pending' as const,
      attempts: 0,
      nextAttemptAt,
      createdAt: 0,
    })),
  )
}

const ids = (claimed: { events: { id: string }[] }) => claimed.events.map((event) => event.id)

for (const store of ['SQLite', 'PostgreSQL'] as const)
  describe.skipIf(store === 'PostgreSQL' && !TEST_PG)(`due webhook events (${store})`, () => {
    async function open(): Promise<Db> {
      if (store === 'PostgreSQL') return (await pgStoreOnFreshSchema(cleanups)).db
      return memoryStore(cleanups)
    }

    it('are claimed oldest due first, by instant then seq, at most the free slots', async () => {
      const db = await open()
      await pending(db, [30, 10, 10, 20, 99])
      const first = await claimDueEvents(db, 'ten_1', 50, { free: 3, busy: 0, leaseMs: 60_000 })
      expect(ids(first)).toEqual(['evt_2', 'evt_3', 'evt_4'])
      expect(first.more).toBe(true)
      expect(await attemptCount(db, 'evt_2')).toBe(0)
    })

    it('say no more is due when fewer than the free slots were', async () => {
      const db = await open()
      await pending(db, [30, 10])
      const claimed = await claimDueEvents(db, 'ten_1', 50, { free: 3, busy: 0, leaseMs: 60_000 })
      expect(ids(claimed)).toEqual(['evt_2', 'evt_1'])
      expect(claimed.more).toBe(false)
    })
  })

describe('a tenant’s event log', () => {
  it('keeps everything when it holds fewer events than it keeps; no attempts of no events', async () => {
    const db = memoryStore(cleanups)
    await pending(db, [10, 20])
    await pruneEvents(db, 'ten_1', 5)
    const claimed = await claimDueEvents(db, 'ten_1', 50, { free: 5, busy: 0, leaseMs: 1 })
    expect(ids(claimed)).toEqual(['evt_1', 'evt_2'])
    expect(await attemptsOf(db, [])).toEqual([])
  })
})

describe.skipIf(!TEST_PG)('due webhook events on a shared store (PostgreSQL)', () => {
  it('are leased: a second claim meanwhile takes only the others', async () => {
    const { db } = await pgStoreOnFreshSchema(cleanups)
    await pending(db, [10, 20, 30])
    const lease = { busy: 0, leaseMs: 60_000 }
    expect(ids(await claimDueEvents(db, 'ten_1', 50, { free: 2, ...lease }))).toEqual([
      'evt_1',
      'evt_2',
    ])
    expect(ids(await claimDueEvents(db, 'ten_1', 50, { free: 2, ...lease }))).toEqual(['evt_3'])
  })

  it('another replica holds in its transaction are passed over at once', async () => {
    const { db } = await pgStoreOnFreshSchema(cleanups)
    await pending(db, [10, 20])
    const lease = { busy: 0, leaseMs: 60_000 }
    const { beforeRelease } = await whileHeld(
      db,
      (tx) => claimDueEvents(tx, 'ten_1', 50, { free: 1, ...lease }),
      () => claimDueEvents(db, 'ten_1', 50, { free: 2, ...lease }).then(ids),
    )
    expect(beforeRelease).toEqual({ result: ['evt_2'] })
  })
})
