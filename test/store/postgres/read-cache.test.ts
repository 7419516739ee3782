/**
 * The read cache on PostgreSQL (store/postgres/driver.ts writeStamp, readingAt): a request's
 * reads are kept under the snapshot its first statement read with the tenant
 * (store/tenants.ts tenantWithStamps), and a later request that reads an equal snapshot is
 * answered from memory. Any commit that wrote, by whoever, moves the snapshot; a write of this
 * process since a request's snapshot turns that request's cache off.
 */
import pg from 'pg'
import { afterEach, describe, expect, it } from 'vitest'
import { cardByReference, cardPages, insertCard } from '../../../src/store/cards.js'
import type { Db } from '../../../src/store/driver.js'
import { readThrough } from '../../../src/store/read-cache.js'
import { retireTenantId } from '../../../src/store/retired-tenants.js'
import { atomically } from '../../../src/store/statements.js'
import { insertTenant, stampsOf, tenantWithStamps } from '../../../src/store/tenants.js'
import { pgStoreOnFreshSchema, TEST_PG } from '../../pg.js'
import { CARD_COLUMNS } from '../card-columns.js'

const cleanups: (() => Promise<void>)[] = []
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup()
})

const database = () => pgStoreOnFreshSchema(cleanups)

const card = (reference: string) => ({ reference, identifier: null, ...CARD_COLUMNS })

/** readThrough of `key` under `db`, and whether it went to the database. */
async function read(db: Db, key = 'k') {
  let read = false
  const value = await readThrough(db, key, () => {
    read = true
    return Symbol(key)
  })
  return { value, read }
}

describe.skipIf(!TEST_PG)('the read cache on PostgreSQL', () => {
  it('answers a read repeated under an equal snapshot from memory, and reads again under another', async () => {
    const { db } = await database()
    const first = await read(db.driver.readingAt(db, '100:100:'))
    expect(first.read).toBe(true)
    const again = await read(db.driver.readingAt(db, '100:100:'))
    expect(again).toEqual({ value: first.value, read: false })
    const moved = await read(db.driver.readingAt(db, '100:101:'))
    expect(moved.read).toBe(true)
    expect(moved.value).not.toBe(first.value)
  })

  it('keeps nothing without a snapshot, or in a transaction', async () => {
    const { db } = await database()
    expect((await read(db)).read).toBe(true)
    expect((await read(db)).read).toBe(true)
    const handle = db.driver.readingAt(db, '7:7:')
    await atomically(handle, async (tx) => {
      expect((await read(tx)).read).toBe(true)
      expect((await read(tx)).read).toBe(true)
    })
  })

  it("turns a request's cache off once this process wrote since its snapshot: it reads back its own write", async () => {
    const { db } = await database()
    const page = { page: 1, perPage: 20 }
    // a request writes outside a transaction, and lists again
    const one = db.driver.readingAt(db, '9:9:')
    expect((await cardPages(one, 'ten_1', page)).total).toBe(0)
    await insertCard(db, card('card-1'))
    expect((await cardPages(one, 'ten_1', page)).total).toBe(1)
    // another writes in a transaction, and lists again
    const two = db.driver.readingAt(db, '10:10:')
    expect((await cardPages(two, 'ten_1', page)).total).toBe(1)
    await atomically(db, (tx) => insertCard(tx, card('card-2')))
    expect((await cardPages(two, 'ten_1', page)).total).toBe(2)
  })

  it('counts a prepared statement that writes as a write, and one that reads as none', async () => {
    const { db } = await database()
    await insertCard(db, card('card-1'))
    const request = db.driver.readingAt(db, '12:12:')
    expect((await read(request)).read).toBe(true)
    await cardByReference(db, 'ten_1', 'card-1') // a prepared SELECT
    expect((await read(request)).read).toBe(false)
    await retireTenantId(db, 'ten_old', 1) // a prepared INSERT
    expect((await read(request)).read).toBe(true)
  })

  it("reads with the tenant a snapshot that another connection's commit moves", async () => {
    const { db, url } = await database()
    await insertTenant(db, {
      id: 'ten_1',
      token: 'snap',
      businessName: 'Snap',
      clockMode: 'manual',
      clockAnchorMs: 0,
      clockWallMs: 0,
      createdAt: 0,
      fixturePending: false,
    })
    const snapshotNow = async () => stampsOf((await tenantWithStamps(db, 'snap'))!)!.snapshot
    const before = await snapshotNow()
    expect(before).toMatch(/^\d+:\d+:[\d,]*$/)
    const other = new pg.Client({ connectionString: url })
    await other.connect()
    cleanups.push(() => other.end())
    await other.query(
      `INSERT INTO cards (reference, tenant_id, card_user_reference, brand, type, status, created_at, updated_at)
       VALUES ('card-x', 'ten_1', 'user-1', 'visa', 'virtual', 'issuing', 0, 0)`,
    )
    expect(await snapshotNow()).not.toBe(before)
  })
})
