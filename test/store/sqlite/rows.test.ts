/**
 * SQLite's row writes (store/sqlite/rows.ts): one prepared statement per table and shape of the
 * values (each column left out, null or given), a row returned as a read gives it, and the
 * batch writes from a JSON list. Each test reads back what was written.
 */
import { sql } from 'drizzle-orm'
import { integer, sqliteTable, text, type SQLiteColumn } from 'drizzle-orm/sqlite-core'
import { describe, expect, it } from 'vitest'
import { openSqlite } from '../../../src/store/sqlite/driver.js'
import {
  insertMany,
  insertRow,
  updateManyBySeq,
  updateRows,
} from '../../../src/store/sqlite/rows.js'

const notes = sqliteTable('notes', {
  seq: integer('seq').primaryKey(),
  a: text('a'),
  b: integer('b'),
  c: text('c', { mode: 'json' }).$type<{ n: number }>(),
})

function withNotes() {
  const db = openSqlite()
  db.$client.exec('CREATE TABLE notes (seq INTEGER PRIMARY KEY, a TEXT, b INTEGER, c TEXT)')
  return db
}

const readAll = (db: ReturnType<typeof openSqlite>) =>
  db.select().from(notes).orderBy(notes.seq).all()

type Note = { a?: string | null; b?: number | null; c?: { n: number } | null }

/** Every combination of left out, null and given for a, b and c: 27 shapes. */
function everyShape(): Note[] {
  const choices = [
    [undefined, null, 'x'],
    [undefined, null, 5],
    [undefined, null, { n: 1 }],
  ] as const
  const shapes: Note[] = []
  for (const a of choices[0])
    for (const b of choices[1])
      for (const c of choices[2]) {
        const note: Note = {}
        if (a !== undefined) note.a = a
        if (b !== undefined) note.b = b
        if (c !== undefined) note.c = c
        shapes.push(note)
      }
  return shapes
}

const stored = (note: Note) => ({ a: note.a ?? null, b: note.b ?? null, c: note.c ?? null })

describe('insertRow', () => {
  it('writes each of the 27 shapes of three columns as given, whatever shape came before', () => {
    const db = withNotes()
    const shapes = everyShape()
    // twice through, the second time in reverse: each shape follows a different one
    const all = [...shapes, ...[...shapes].reverse()]
    for (const note of all) insertRow(db, notes, note, false)
    expect(readAll(db).map(({ seq: _, ...row }) => row)).toEqual(all.map(stored))
  })

  it('returns each row as a read gives it, seq assigned, for every shape', () => {
    const db = withNotes()
    const returned = everyShape().map((note) => insertRow(db, notes, note, true))
    expect(returned).toEqual(readAll(db))
    expect(returned.map((row) => (row as { seq: number }).seq)).toEqual(
      returned.map((_, i) => i + 1),
    )
  })

  it('returns null, not undefined, for a column given as undefined', () => {
    const db = withNotes()
    const row = insertRow(db, notes, { a: 'x', b: undefined }, true)
    expect(row).toEqual({ seq: 1, a: 'x', b: null, c: null })
    expect(row).toEqual(readAll(db)[0])
  })

  it('keeps a seq given rather than the one SQLite would assign', () => {
    const db = withNotes()
    insertRow(db, notes, { a: 'first' }, false)
    expect(insertRow(db, notes, { seq: 40, a: 'x' }, true)).toEqual({
      seq: 40,
      a: 'x',
      b: null,
      c: null,
    })
  })

  it('assigns the integer primary key whatever its name, and only to it', () => {
    const db = openSqlite()
    db.$client.exec('CREATE TABLE tallies (count INTEGER, id INTEGER PRIMARY KEY, name TEXT)')
    const tallies = sqliteTable('tallies', {
      count: integer('count'),
      id: integer('id').primaryKey(),
      name: text('name'),
    })
    insertRow(db, tallies, { name: 'zero' }, false)
    const row = insertRow(db, tallies, { name: 'one' }, true)
    expect(row).toEqual({ count: null, id: 2, name: 'one' })
    expect(row).toEqual(db.select().from(tallies).all()[1])
  })

  it('assigns nothing on a table whose key is text, and leaves an integer column null', () => {
    const db = openSqlite()
    db.$client.exec('CREATE TABLE codes (n INTEGER, code TEXT PRIMARY KEY)')
    const codes = sqliteTable('codes', { n: integer('n'), code: text('code').primaryKey() })
    expect(insertRow(db, codes, { code: 'a' }, true)).toEqual({ n: null, code: 'a' })
  })

  it('reads back what drizzle computes: a default function and an update function', () => {
    const db = openSqlite()
    db.$client.exec('CREATE TABLE made (seq INTEGER PRIMARY KEY, made TEXT, touched TEXT)')
    const made = sqliteTable('made', {
      seq: integer('seq').primaryKey(),
      made: text('made').$defaultFn(() => 'by default'),
      touched: text('touched').$onUpdateFn(() => 'on update'),
    })
    const row = insertRow(db, made, {}, true)
    expect(row).toEqual(db.select().from(made).all()[0])
    expect(row).toMatchObject({ seq: 1, made: 'by default' })
  })

  it('returns the row from a table with a default after a write of the same shape without', () => {
    const db = openSqlite()
    db.$client.exec(`CREATE TABLE kept (seq INTEGER PRIMARY KEY, body TEXT DEFAULT 'empty')`)
    const kept = sqliteTable('kept', {
      seq: integer('seq').primaryKey(),
      body: text('body').default('empty'),
    })
    expect(insertRow(db, kept, {}, false)).toBeUndefined()
    expect(insertRow(db, kept, {}, true)).toEqual({ seq: 2, body: 'empty' })
  })

  it('refuses a table of more than 33 columns, whose shapes would not fit a number', () => {
    const db = openSqlite()
    const columns = Object.fromEntries(
      Array.from({ length: 34 }, (_, i) => [`c${i}`, integer(`c${i}`)]),
    )
    const wide = sqliteTable('wide', columns)
    expect(() => insertRow(db, wide, { c0: 1 }, true)).toThrow('wide: too many columns for shapeOf')
    const fits = sqliteTable('fits', Object.fromEntries(Object.entries(columns).slice(0, 33)))
    db.$client.exec(
      `CREATE TABLE fits (${Array.from({ length: 33 }, (_, i) => `c${i} INTEGER`).join(', ')})`,
    )
    expect(insertRow(db, fits, { c32: 7 }, true)).toMatchObject({ c0: null, c32: 7 })
  })
})

describe('updateRows', () => {
  it('writes each of the 27 shapes as given over a row, keeping what a shape leaves out', () => {
    const db = withNotes()
    insertRow(db, notes, { a: 'start', b: 0, c: { n: 0 } }, false)
    let expected = { a: 'start', b: 0, c: { n: 0 } } as Record<string, unknown>
    for (const changes of everyShape().filter((note) => Object.keys(note).length > 0)) {
      const result = updateRows(db, notes, notes.seq as SQLiteColumn, 1, changes, false)
      expected = { ...expected, ...changes }
      expect(result).toEqual({ changes: 1 })
      expect(readAll(db)[0]).toEqual({ seq: 1, ...expected })
    }
  })

  it('returns the row as stored, or no row and 0 changes when none has the key', () => {
    const db = withNotes()
    insertRow(db, notes, { a: 'x' }, false)
    insertRow(db, notes, { a: 'y' }, false)
    expect(updateRows(db, notes, notes.seq as SQLiteColumn, 2, { b: 3 }, true)).toEqual({
      changes: 1,
      row: { seq: 2, a: 'y', b: 3, c: null },
    })
    expect(updateRows(db, notes, notes.seq as SQLiteColumn, 9, { b: 3 }, true)).toEqual({
      changes: 0,
      row: undefined,
    })
    expect(updateRows(db, notes, notes.a as SQLiteColumn, 'x', { b: 4 }, false)).toEqual({
      changes: 1,
    })
    expect(updateRows(db, notes, notes.a as SQLiteColumn, 'z', { b: 4 }, false)).toEqual({
      changes: 0,
    })
    expect(readAll(db).map((row) => row.b)).toEqual([4, 3])
  })
})

describe('insertMany', () => {
  it('inserts the rows of a list in its order, with nulls and JSON as given', () => {
    const db = withNotes()
    insertRow(db, notes, { a: 'before' }, false)
    const rows: Note[] = Array.from({ length: 12 }, (_, i) => ({
      a: `row ${i}`,
      b: i % 3 === 0 ? null : i,
      c: i % 2 === 0 ? { n: i } : undefined,
    }))
    insertMany(db, notes, rows)
    expect(readAll(db)).toEqual([
      { seq: 1, a: 'before', b: null, c: null },
      ...rows.map((row, i) => ({ seq: i + 2, ...stored(row) })),
    ])
  })
})

describe('updateManyBySeq', () => {
  it('sets each row its own values, by seq, and leaves the other rows and columns alone', () => {
    const db = withNotes()
    for (const a of ['one', 'two', 'three', 'four']) insertRow(db, notes, { a, b: 0 }, false)
    updateManyBySeq(db, notes, [
      { seq: 3, changes: { b: 30, c: { n: 3 } } },
      { seq: 1, changes: { b: 10, c: null } },
    ])
    expect(readAll(db)).toEqual([
      { seq: 1, a: 'one', b: 10, c: null },
      { seq: 2, a: 'two', b: 0, c: null },
      { seq: 3, a: 'three', b: 30, c: { n: 3 } },
      { seq: 4, a: 'four', b: 0, c: null },
    ])
    expect(db.get(sql`select count(*) as n from notes where a is null`)).toEqual({ n: 0 })
  })
})
