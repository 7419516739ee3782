/**
 * A snapshot's rows are staged in temporary tables and copied back from there on restore
 * (store/snapshots.ts): whichever snapshot is restored, kept staged or not, replaced or made
 * again after a rolled-back restore, the tenant gets exactly its rows back.
 */
import { describe, expect, it } from 'vitest'
import { openSqlite as openDb, type SqliteDb as Db } from '../../src/store/sqlite/driver.js'
import { cardPages, insertCard } from '../../src/store/cards.js'
import {
  deleteSnapshot,
  findSnapshot,
  restoreTenantRows,
  saveSnapshot,
  tenantRowsJson,
} from '../../src/store/snapshots.js'
import { atomically } from '../../src/store/statements.js'

const TENANT = 'ten_1'

async function addCard(db: Db, reference: string) {
  await insertCard(db, {
    reference,
    tenantId: TENANT,
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

async function restore(db: Db, seq: number) {
  await atomically(db, async (db) => await restoreTenantRows(db, TENANT, seq))
}

const stagedTables = async (db: Db) =>
  db.$client
    .prepare(`SELECT name FROM temp.sqlite_master WHERE type = 'table'`)
    .pluck()
    .all() as string[]

const cardsOf = async (db: Db) =>
  (await cardPages(db, TENANT, { page: 1, perPage: 100 })).rows.map((card) => card.reference).sort()

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
