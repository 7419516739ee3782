/**
 * A snapshot's rows are staged in temporary tables and copied back from there on restore
 * (store/snapshots.ts): whichever snapshot is restored, kept staged or not, replaced or made
 * again after a rolled-back restore, the tenant gets exactly its rows back.
 */
import { describe, expect, it } from 'vitest'
import { openDb, type Db } from '../../src/db/open.js'
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

function addCard(db: Db, reference: string) {
  insertCard(db, {
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

function take(db: Db, name: string, warm = true) {
  const rows = tenantRowsJson(db, TENANT)
  const tenant = { clock: { mode: 'manual', now: 0 }, delays: null, webhook: {} }
  saveSnapshot(
    db,
    { token: 't', name, takenAt: 0, rowCount: rows.count, tenant, rows: rows.json },
    warm,
  )
  return findSnapshot(db, 't', name)!.seq
}

function restore(db: Db, seq: number) {
  atomically(db, (db) => restoreTenantRows(db, TENANT, seq))
}

const stagedTables = (db: Db) =>
  db.$client
    .prepare(`SELECT name FROM temp.sqlite_master WHERE type = 'table'`)
    .pluck()
    .all() as string[]

const cardsOf = (db: Db) =>
  cardPages(db, TENANT, { page: 1, perPage: 100 })
    .rows.map((card) => card.reference)
    .sort()

describe('snapshot staging', () => {
  it('restores each of more snapshots than are kept staged, in any order', () => {
    const db = openDb()
    const seqs: number[] = []
    for (let n = 0; n < 12; n++) {
      addCard(db, `card-${n}`)
      seqs.push(take(db, `s${n}`))
    }
    for (const n of [0, 11, 3, 0, 7, 11, 1]) {
      restore(db, seqs[n])
      expect(cardsOf(db)).toHaveLength(n + 1)
    }
    // eight kept staged, one table each
    expect(stagedTables(db)).toHaveLength(8)
  })

  it('restores the rows of a snapshot taken again under the same name, and keeps one copy', () => {
    const db = openDb()
    addCard(db, 'card-a')
    const first = take(db, 'base')
    restore(db, first)
    addCard(db, 'card-b')
    const second = take(db, 'base')
    addCard(db, 'card-c')
    restore(db, second)
    expect(cardsOf(db)).toEqual(['card-a', 'card-b'])
    // the replaced snapshot's copy is dropped, and the deleted one's
    expect(stagedTables(db)).toEqual([`snapshot_${second}_cards`])
    deleteSnapshot(db, 't', 'base')
    expect(stagedTables(db)).toEqual([])
  })

  it('stages again a snapshot whose staging a rolled-back restore undid', () => {
    const db = openDb()
    addCard(db, 'card-a')
    const seq = take(db, 'undo', false)
    addCard(db, 'card-b')
    expect(() =>
      atomically(db, (db) => {
        restoreTenantRows(db, TENANT, seq)
        throw new Error('a later step failed')
      }),
    ).toThrow('a later step failed')
    expect(cardsOf(db)).toEqual(['card-a', 'card-b'])
    restore(db, seq)
    expect(cardsOf(db)).toEqual(['card-a'])
  })
})
