/**
 * The SQLite driver (store/sqlite/driver.ts) through the store seam, as the store modules call
 * it: batch writes, the tenant sweep with its limit, the dialect's SQL, a built query, what
 * another connection's commits look like, and the close.
 */
import { eq } from 'drizzle-orm'
import { integer, sqliteTable, text } from 'drizzle-orm/sqlite-core'
import { join } from 'node:path'
import { describe, expect, it } from 'vitest'
import type { Db } from '../../../src/store/driver.js'
import { openSqlite } from '../../../src/store/sqlite/driver.js'
import { tempDir } from '../../temp-dir.js'

const items = sqliteTable('items', {
  seq: integer('seq').primaryKey(),
  tenantId: text('tenant_id'),
  name: text('name'),
  n: integer('n'),
})

function withItems(path?: string) {
  const db = openSqlite(path)
  db.$client.exec(
    'CREATE TABLE items (seq INTEGER PRIMARY KEY, tenant_id TEXT, name TEXT, n INTEGER)',
  )
  return db as unknown as Db & ReturnType<typeof openSqlite>
}

const all = (db: ReturnType<typeof withItems>) => db.select().from(items).orderBy(items.seq).all()

describe('the SQLite driver', () => {
  it('inserts a batch in its order and updates a batch by seq', async () => {
    const db = withItems()
    await db.driver.insertMany(db, items, [
      { tenantId: 'a', name: 'one', n: 1 },
      { tenantId: 'a', name: 'two', n: 2 },
      { tenantId: 'b', name: 'three', n: null },
    ])
    await db.driver.updateManyBySeq(db, items, [
      { seq: 3, changes: { n: 30 } },
      { seq: 1, changes: { n: 10 } },
    ])
    expect(all(db)).toEqual([
      { seq: 1, tenantId: 'a', name: 'one', n: 10 },
      { seq: 2, tenantId: 'a', name: 'two', n: 2 },
      { seq: 3, tenantId: 'b', name: 'three', n: 30 },
    ])
  })

  it("sweeps a tenant's rows at most `limit` at a time, and no other tenant's", async () => {
    const db = withItems()
    await db.driver.insertMany(
      db,
      items,
      ['a', 'a', 'b', 'a', 'a', 'b', 'a'].map((tenantId, i) => ({ tenantId, name: `r${i}`, n: i })),
    )
    expect(await db.driver.deleteTenantRows(db, 'items', 'a', 3)).toBe(3)
    expect(all(db).filter((row) => row.tenantId === 'a')).toHaveLength(2)
    expect(await db.driver.deleteTenantRows(db, 'items', 'a', 10)).toBe(2)
    expect(await db.driver.deleteTenantRows(db, 'items', 'a', 10)).toBe(0)
    expect(all(db).map((row) => row.name)).toEqual(['r2', 'r5'])
  })

  it("runs a built query with the dialect's SQL: a value in a JSON list, a column not to index on", async () => {
    const db = withItems()
    await db.driver.insertMany(
      db,
      items,
      ['x', 'y', 'z'].map((name, n) => ({ tenantId: 'a', name, n })),
    )
    const named = await db.driver.query<{ name: string }[]>(db, 'all', (q, _t, dialect) =>
      q
        .select({ name: items.name })
        .from(items)
        .where(dialect.inJsonArray(items.name, JSON.stringify(['z', 'x', 'w'])))
        .orderBy(items.seq),
    )
    expect(named).toEqual([{ name: 'x' }, { name: 'z' }])
    const one = await db.driver.query<{ n: number }>(db, 'get', (q, _t, dialect) =>
      q
        .select({ n: items.n })
        .from(items)
        .where(eq(dialect.filterOnly(items.name), 'y')),
    )
    expect(one).toEqual({ n: 1 })
  })

  it("reads a tenant's rows of each table as JSON, in order, and counts them", async () => {
    const db = withItems()
    await db.driver.insertMany(
      db,
      items,
      ['a', 'b', 'a', 'a'].map((tenantId, i) => ({ tenantId, name: `r${i}`, n: i })),
    )
    const { json, count } = await db.driver.tenantRowsJson(db, ['items'], 'a')
    expect(count).toBe(3)
    expect(JSON.parse(json)).toEqual({
      items: [
        { seq: 1, tenant_id: 'a', name: 'r0', n: 0 },
        { seq: 3, tenant_id: 'a', name: 'r2', n: 2 },
        { seq: 4, tenant_id: 'a', name: 'r3', n: 3 },
      ],
    })
  })

  it('grants every named lock at once: one writer at a time already', async () => {
    const db = withItems()
    expect(await db.driver.tryLockName(db, 'anything')).toBe(true)
  })

  it("counts no other connection's commits in memory, and sees them on a file", async () => {
    const memory = withItems()
    expect(await memory.driver.commitsOfOthers(memory)).toBe(0)

    const file = join(tempDir(), 'shared.db')
    const db = withItems(file)
    const before = await db.driver.commitsOfOthers(db)
    const other = openSqlite(file)
    other.$client.exec(`INSERT INTO items (tenant_id, name, n) VALUES ('a', 'other', 1)`)
    expect(await db.driver.commitsOfOthers(db)).not.toBe(before)
    other.$client.close()
    await db.driver.close(db)
  })

  it('closes its database', async () => {
    const db = withItems()
    await db.driver.close(db)
    expect(db.$client.open).toBe(false)
  })
})
