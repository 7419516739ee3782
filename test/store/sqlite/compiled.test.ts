/**
 * A prepared statement run without drizzle's per-call work (store/compiled.ts) answers exactly as
 * drizzle's own: each statement below is run both ways on the same database.
 */
import { count, eq, sql } from 'drizzle-orm'
import { integer, sqliteTable, text } from 'drizzle-orm/sqlite-core'
import { drizzle } from 'drizzle-orm/better-sqlite3'
import Database from 'better-sqlite3'
import { describe, expect, it } from 'vitest'
import { compiled } from '../../../src/store/sqlite/compiled.js'

const things = sqliteTable('things', {
  seq: integer('seq').primaryKey(),
  name: text('name').notNull(),
  tags: text('tags', { mode: 'json' }).$type<string[]>(),
  active: integer('active', { mode: 'boolean' }),
  at: integer('at', { mode: 'timestamp_ms' }),
})

const labels = sqliteTable('labels', { thing: integer('thing'), label: text('label') })

function database() {
  const client = new Database(':memory:')
  client.exec(
    'CREATE TABLE things (seq INTEGER PRIMARY KEY, name TEXT NOT NULL, tags TEXT, active INTEGER, at INTEGER)',
  )
  return drizzle(client)
}

/** The SQL text of the better-sqlite3 statement a prepared one runs. */
const sourceOf = (prepared: object) => (prepared as { stmt: { source: string } }).stmt.source

/** The drizzle statement and its compiled twin. */
function both<T extends object>(make: () => T): [T, T] {
  return [make(), compiled(make())]
}

describe('compiled', () => {
  it('binds placeholders through their columns’ encoders, as drizzle does', () => {
    const db = database()
    const [slow, fast] = both(() =>
      db
        .insert(things)
        .values({
          name: sql.placeholder('name'),
          tags: sql.placeholder('tags'),
          active: sql.placeholder('active'),
          at: sql.placeholder('at'),
        })
        .prepare(),
    )
    const values = { name: 'a', tags: ['x', 'y'], active: true, at: new Date(5) }
    expect(fast.run(values)).toEqual({ changes: 1, lastInsertRowid: 1 })
    expect(slow.run({ ...values, name: 'b' })).toEqual({ changes: 1, lastInsertRowid: 2 })
    const stored = db.$client.prepare('SELECT name, tags, active, at FROM things').raw().all()
    expect(stored).toEqual([
      ['a', '["x","y"]', 1, 5],
      ['b', '["x","y"]', 1, 5],
    ])
  })

  it('decodes each column of a row as drizzle does, nulls left null', () => {
    const db = database()
    db.insert(things)
      .values([
        { name: 'a', tags: ['x'], active: false, at: new Date(7) },
        { name: 'b', tags: null, active: null, at: null },
      ])
      .run()
    const [slow, fast] = both(() =>
      db
        .select()
        .from(things)
        .where(eq(things.name, sql.placeholder('name')))
        .prepare(),
    )
    for (const name of ['a', 'b', 'none']) expect(fast.get({ name })).toEqual(slow.get({ name }))
    expect(fast.get({ name: 'a' })).toEqual({
      seq: 1,
      name: 'a',
      tags: ['x'],
      active: false,
      at: new Date(7),
    })
    const [slowAll, fastAll] = both(() => db.select().from(things).prepare())
    expect(fastAll.all()).toEqual(slowAll.all())
    expect(fastAll.values()).toEqual(slowAll.values())
  })

  it('names selected expressions and keeps constants bound in the SQL', () => {
    const db = database()
    db.insert(things).values({ name: 'a' }).run()
    db.insert(things).values({ name: 'b' }).run()
    const [slow, fast] = both(() =>
      db
        .select({ n: count(), label: sql<string>`'x' || ${'y'}` })
        .from(things)
        .where(eq(things.name, 'a'))
        .prepare(),
    )
    expect(fast.get()).toEqual(slow.get())
    expect(fast.get()).toEqual({ n: 1, label: 'xy' })
  })

  it('refuses a call without a value for a placeholder, as drizzle does', () => {
    const db = database()
    const [slow, fast] = both(() =>
      db
        .select()
        .from(things)
        .where(eq(things.name, sql.placeholder('name')))
        .prepare(),
    )
    expect(() => slow.get({})).toThrow('No value for placeholder "name" was provided')
    expect(() => fast.get({})).toThrow('No value for placeholder "name" was provided')
  })

  it('takes over selects of a table and flat selections over a left join, as drizzle answers them', () => {
    const db = database()
    db.$client.exec('CREATE TABLE labels (thing INTEGER, label TEXT)')
    db.insert(things)
      .values([{ name: 'a' }, { name: 'b' }])
      .run()
    db.insert(labels).values({ thing: 1, label: 'first' }).run()
    const select = db
      .select()
      .from(things)
      .where(eq(things.seq, sql.placeholder('seq')))
      .prepare()
    expect(compiled(select)).not.toBe(select)
    const [slow, fast] = both(() =>
      db
        .select({ name: things.name, label: labels.label })
        .from(things)
        .leftJoin(labels, eq(labels.thing, things.seq))
        .prepare(),
    )
    expect(fast).not.toBe(slow)
    expect(fast.all()).toEqual(slow.all())
    expect(fast.all()).toEqual([
      { name: 'a', label: 'first' },
      { name: 'b', label: null },
    ])
  })

  it('prepares a bound limit and offset as expressions, the same rows, so that SQLite does not plan the statement again on every run', () => {
    const db = database()
    db.insert(things)
      .values(['a', 'b', 'c', 'd'].map((name) => ({ name })))
      .run()
    const [slow, fast] = both(() =>
      db
        .select({ name: things.name })
        .from(things)
        .orderBy(things.seq)
        .limit(sql.placeholder('limit'))
        .offset(sql.placeholder('offset'))
        .prepare(),
    )
    expect(fast.all({ limit: 2, offset: 1 })).toEqual([{ name: 'b' }, { name: 'c' }])
    expect(fast.all({ limit: 2, offset: 1 })).toEqual(slow.all({ limit: 2, offset: 1 }))
    expect(sourceOf(slow)).toMatch(/ limit \? offset \?$/)
    expect(sourceOf(fast)).toMatch(/ limit \(\? \+ 0\) offset \(\? \+ 0\)$/)

    const [first, firstFast] = both(() =>
      db.select({ name: things.name }).from(things).orderBy(things.seq).limit(1).prepare(),
    )
    expect(firstFast.get()).toEqual({ name: 'a' })
    expect(firstFast.all()).toEqual(first.all())
    expect(sourceOf(firstFast)).toMatch(/ limit \(\? \+ 0\)$/)
  })

  it('leaves nested selections to drizzle', () => {
    const db = database()
    const nested = db
      .select({ thing: { name: things.name } })
      .from(things)
      .prepare()
    expect(compiled(nested)).toBe(nested)
  })
})
