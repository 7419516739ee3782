/**
 * A snapshot's rows are staged in temporary tables and copied back from there on restore
 * (store/snapshots.ts): whichever snapshot is restored, kept staged or not, replaced or made
 * again after a rolled-back restore, the tenant gets exactly its rows back.
 */
import { afterEach, describe, expect, it } from 'vitest'
import { openSqlite as openDb, type SqliteDb } from '../../src/store/sqlite/driver.js'
import { cardPages, insertCard } from '../../src/store/cards.js'
import type { Db } from '../../src/store/driver.js'
import { retireTenantId } from '../../src/store/retired-tenants.js'
import {
  deleteSnapshot,
  findSnapshot,
  restoreTenantRows,
  saveSnapshot,
  tenantRowsJson,
} from '../../src/store/snapshots.js'
import { atomically } from '../../src/store/statements.js'
import { pgStoreOnFreshSchema, TEST_PG } from '../pg.js'

const TENANT = 'ten_1'

async function addCard(db: Db, reference: string, tenantId = TENANT) {
  await insertCard(db, {
    reference,
    tenantId,
    cardUserReference: 'user-1',
    identifier: null,
    brand: 'visa',
    type: 'virtual',
    status: 'issued',
    createdAt: 0,
    updatedAt: 0,
  })
}

async function take(db: Db, name: string, warm = true) {
  const rows = await tenantRowsJson(db, TENANT)
  const tenant = { clock: { mode: 'manual', now: 0 }, delays: null, webhook: {} }
  await saveSnapshot(
    db,
    { token: 't', name, takenAt: 0, rowCount: rows.count, tenant, rows: rows.json },
    warm,
  )
  return (await findSnapshot(db, 't', name))!.seq
}

async function restore(db: Db, seq: number, tenantId = TENANT) {
  await atomically(db, async (db) => await restoreTenantRows(db, tenantId, seq))
}

const stagedTables = async (db: SqliteDb) =>
  db.$client
    .prepare(`SELECT name FROM temp.sqlite_master WHERE type = 'table'`)
    .pluck()
    .all() as string[]

const cardsOf = async (db: Db, tenantId = TENANT) =>
  (await cardPages(db, tenantId, { page: 1, perPage: 100 })).rows
    .map((card) => card.reference)
    .sort()

describe('snapshot staging', () => {
  it('restores each of more snapshots than are kept staged, in any order', async () => {
    const db = openDb()
    const seqs: number[] = []
    for (let n = 0; n < 12; n++) {
      await addCard(db, `card-${n}`)
      seqs.push(await take(db, `s${n}`))
    }
    for (const n of [0, 11, 3, 0, 7, 11, 1]) {
      await restore(db, seqs[n])
      expect(await cardsOf(db)).toHaveLength(n + 1)
    }
    // eight kept staged, one table each
    expect(await stagedTables(db)).toHaveLength(8)
  })

  it('restores the rows of a snapshot taken again under the same name, and keeps one copy', async () => {
    const db = openDb()
    await addCard(db, 'card-a')
    const first = await take(db, 'base')
    await restore(db, first)
    await addCard(db, 'card-b')
    const second = await take(db, 'base')
    await addCard(db, 'card-c')
    await restore(db, second)
    expect(await cardsOf(db)).toEqual(['card-a', 'card-b'])
    // the replaced snapshot's copy is dropped, and the deleted one's
    expect(await stagedTables(db)).toEqual([`snapshot_${second}_cards`])
    await deleteSnapshot(db, 't', 'base')
    expect(await stagedTables(db)).toEqual([])
  })

  it('stages again a snapshot whose staging a rolled-back restore undid', async () => {
    const db = openDb()
    await addCard(db, 'card-a')
    const seq = await take(db, 'undo', false)
    await addCard(db, 'card-b')
    await expect(
      atomically(db, async (db) => {
        await restoreTenantRows(db, TENANT, seq)
        throw new Error('a later step failed')
      }),
    ).rejects.toThrow('a later step failed')
    expect(await cardsOf(db)).toEqual(['card-a', 'card-b'])
    await restore(db, seq)
    expect(await cardsOf(db)).toEqual(['card-a'])
  })
})

describe.skipIf(!TEST_PG)('a snapshot on PostgreSQL (written back from its JSON)', () => {
  const cleanups: (() => Promise<void>)[] = []
  afterEach(async () => {
    for (const cleanup of cleanups.splice(0).reverse()) await cleanup()
  })

  it('gives the tenant exactly its rows back, under its id of now, and leaves other tenants alone', async () => {
    const { db } = await pgStoreOnFreshSchema(cleanups)
    await addCard(db, 'kept-1')
    await addCard(db, 'kept-2')
    await addCard(db, 'theirs', 'ten_2')
    const seq = await take(db, 'before')
    expect((await tenantRowsJson(db, TENANT)).count).toBe(2)
    await addCard(db, 'after')
    await restore(db, seq)
    expect(await cardsOf(db)).toEqual(['kept-1', 'kept-2'])
    expect(await cardsOf(db, 'ten_2')).toEqual(['theirs'])
    // a reset gave the tenant a new id: the old one's rows go, the snapshot's come under the new
    await addCard(db, 'after')
    await retireTenantId(db, TENANT, 1)
    await restore(db, seq, `${TENANT}.1`)
    expect(await cardsOf(db, `${TENANT}.1`)).toEqual(['kept-1', 'kept-2'])
    expect(await cardsOf(db)).toEqual([])
    expect(await cardsOf(db, 'ten_2')).toEqual(['theirs'])
    // the rows written back keep their seq, and a new row takes one past them
    await addCard(db, 'later', `${TENANT}.1`)
    expect(await cardsOf(db, `${TENANT}.1`)).toEqual(['kept-1', 'kept-2', 'later'])
  })
})
