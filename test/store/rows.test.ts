/**
 * The generic row helpers (store/rows.ts): a row inserted is returned as it is stored, whether it
 * is built from the values given (no RETURNING) or read back because its table has defaults.
 */
import { integer, sqliteTable, text } from 'drizzle-orm/sqlite-core'
import { describe, expect, it } from 'vitest'
import { openSqlite as openDb } from '../../src/store/sqlite/driver.js'
import { cardByReference, insertCard } from '../../src/store/cards.js'
import { insertReturning } from '../../src/store/rows.js'
import { insertTenant, tenantByToken } from '../../src/store/tenants.js'
import { CARD_COLUMNS } from './card-columns.js'

describe('insertReturning', () => {
  it('returns the row as a read gives it: nulls for what was left out, seq assigned', async () => {
    const db = openDb()
    const values = { ...CARD_COLUMNS, reference: 'card-1' }
    const first = await insertCard(db, values)
    const second = await insertCard(db, { ...values, reference: 'card-2' })
    expect(first).toEqual(await cardByReference(db, 'ten_1', 'card-1'))
    expect(first.cardNumber).toBeNull()
    expect(second.seq).toBe(first.seq + 1)
  })

  it('writes each value given, whichever columns an earlier insert left out or set to null', async () => {
    const db = openDb()
    await insertCard(db, { ...CARD_COLUMNS, reference: 'card-1' })
    await insertCard(db, { ...CARD_COLUMNS, reference: 'card-2', identifier: null })
    await insertCard(db, { ...CARD_COLUMNS, reference: 'card-3', identifier: 7 })
    expect((await cardByReference(db, 'ten_1', 'card-2'))?.identifier).toBeNull()
    expect((await cardByReference(db, 'ten_1', 'card-3'))?.identifier).toBe(7)
  })

  it('keeps a table key given, and JSON columns as given', async () => {
    const db = openDb()
    const tenant = await insertTenant(db, {
      id: 'ten_x',
      token: 'tok',
      businessName: 'Shop',
      clockMode: 'manual',
      clockAnchorMs: 1,
      clockWallMs: 2,
      delays: { card_issuing: 10 },
      createdAt: 3,
    })
    expect(tenant).toEqual(await tenantByToken(db, 'tok'))
  })

  it('reads back a row whose table has a default', async () => {
    const db = openDb()
    db.$client.exec(`CREATE TABLE notes (seq INTEGER PRIMARY KEY, body TEXT DEFAULT 'empty')`)
    const notes = sqliteTable('notes', {
      seq: integer('seq').primaryKey(),
      body: text('body').default('empty'),
    })
    expect(await insertReturning(db, notes, {})).toEqual({ seq: 1, body: 'empty' })
  })
})
