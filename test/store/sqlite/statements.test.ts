/**
 * The store's transaction (store/statements.ts atomically): its body awaits, runs on a handle of
 * its own sharing the connection's prepared statements, and holds the connection: no statement
 * of another request runs between its BEGIN and COMMIT (they wait for it, and transactions
 * queue), and one prepared on the bare connection inside it is refused. Those asked for in one
 * turn of the event loop run back to back in the next, in one transaction with a savepoint
 * each, their callers answered once it is committed.
 */
import Database from 'better-sqlite3'
import { join } from 'node:path'
import { afterEach, describe, expect, it, onTestFinished, vi } from 'vitest'
import {
  closeSqlite as closeDb,
  openSqlite as openDb,
  type SqliteDb as Db,
} from '../../../src/store/sqlite/driver.js'
import { cardByReference, insertCard } from '../../../src/store/cards.js'
import {
  atomically as inTransaction,
  statement,
  type TransactionOptions,
} from '../../../src/store/statements.js'
import { connectionOf, prepared } from '../../../src/store/sqlite/transactions.js'

/** A transaction whose body is handed SQLite's own handle (these tests look inside it). */
function atomically<T>(
  db: Db,
  body: (tx: Db) => Promise<T> | T,
  options?: TransactionOptions,
): Promise<T>
function atomically<C extends { db: Db }, T>(
  ctx: C,
  body: (ctx: C) => Promise<T> | T,
  options?: TransactionOptions,
): Promise<T>
function atomically(on: unknown, body: unknown, options?: TransactionOptions) {
  return inTransaction(on as never, body as never, options)
}
import { tempDir } from '../../temp-dir.js'

const tick = () => new Promise((resolve) => setTimeout(resolve, 5))

/** A promise to await and the call that settles it. */
function signal() {
  let fire!: () => void
  const fired = new Promise<void>((resolve) => (fire = resolve))
  return { fired, fire }
}

/** A body that inserts card `name`, writing down when it begins and when it ends (after `pause`). */
function recording(steps: string[], name: string, pause?: () => Promise<unknown>) {
  return async (tx: Db) => {
    steps.push(`${name} begins`)
    await insertCard(tx, card(name))
    if (pause) await pause()
    steps.push(`${name} ends`)
  }
}

const opened: Db[] = []
afterEach(() => {
  for (const db of opened.splice(0)) closeDb(db)
})

function database(): Db {
  const db = openDb()
  opened.push(db)
  return db
}

const card = (reference: string) => ({
  reference,
  tenantId: 'ten_1',
  cardUserReference: 'user-1',
  identifier: null,
  brand: 'visa' as const,
  type: 'virtual' as const,
  status: 'issuing' as const,
  createdAt: 0,
  updatedAt: 0,
})

describe('a transaction', () => {
  it("runs its body's statements on the handle it hands over, and refuses a statement prepared on the bare connection inside it", async () => {
    const db = database()
    await atomically(db, async (tx) => {
      expect(tx).not.toBe(db)
      await insertCard(tx, card('card-1'))
      expect((await cardByReference(tx, 'ten_1', 'card-1'))?.reference).toBe('card-1')
      expect(() => prepared(db, 'count', () => db.$client.prepare('SELECT 1'))).toThrow(
        "use the body's handle",
      )
    })
    // outside it the connection is the one to use again
    expect((await cardByReference(db, 'ten_1', 'card-1'))?.reference).toBe('card-1')
  })

  it('keeps every statement from outside it waiting until it has committed', async () => {
    const db = database()
    const seen: string[] = []
    const open = signal()
    const writing = atomically(db, async (tx) => {
      await insertCard(tx, card('first'))
      open.fire()
      await tick() // the other request's read is made meanwhile
      await insertCard(tx, card('second'))
      seen.push('committing')
    })
    await open.fired
    const reading = cardByReference(db, 'ten_1', 'second').then((row) => {
      seen.push(`read ${row?.reference}`)
    })
    await Promise.all([writing, reading])
    expect(seen).toEqual(['committing', 'read second'])
  })

  it('keeps a statement of the bare connection waiting, when it is called while one is open', async () => {
    const db = database()
    const count = statement((on) =>
      (on as unknown as Db).$client.prepare('SELECT count(*) AS n FROM cards'),
    )
    const open = signal()
    const failing = atomically(db, async (tx) => {
      await insertCard(tx, card('undone'))
      open.fire()
      await tick()
      throw new Error('refused')
    })
    await open.fired
    // the transaction is open: the count runs once it has rolled back, never inside it
    const counted = count(db).get()
    await expect(failing).rejects.toThrow('refused')
    expect(await counted).toEqual({ n: 0 })
  })

  it('runs one at a time, in the order they were asked for', async () => {
    const db = database()
    const steps: string[] = []
    await Promise.all([
      atomically(db, recording(steps, 'a', tick)),
      atomically(db, recording(steps, 'b', tick)),
      atomically(db, recording(steps, 'c', tick)),
    ])
    expect(steps).toEqual(['a begins', 'a ends', 'b begins', 'b ends', 'c begins', 'c ends'])
  })

  it('keeps one asked for in a later turn waiting while the open one awaits', async () => {
    const db = database()
    const steps: string[] = []
    const first = atomically(db, recording(steps, 'a', tick))
    // the first turn has begun: its body is awaiting the tick
    await new Promise((resolve) => setImmediate(resolve))
    const second = atomically(db, recording(steps, 'b'))
    await Promise.all([first, second])
    expect(steps).toEqual(['a begins', 'a ends', 'b begins', 'b ends'])
  })

  it('runs those asked for in one turn of the event loop back to back, then answers their callers', async () => {
    const db = database()
    const steps: string[] = []
    const answered = (name: string) =>
      atomically(db, recording(steps, name)).then(() => steps.push(name))
    const refusing = () =>
      atomically(db, async (tx) => {
        steps.push('refused begins')
        await insertCard(tx, card('undone'))
        throw new Error('refused')
      }).catch(() => steps.push('refused'))
    await Promise.all([answered('a'), refusing(), answered('b')])
    expect(steps).toEqual([
      'a begins',
      'a ends',
      'refused begins',
      'b begins',
      'b ends',
      'a',
      'refused',
      'b',
    ])
    // the refusal undid its own write only
    expect(await cardByReference(db, 'ten_1', 'a')).toBeDefined()
    expect(await cardByReference(db, 'ten_1', 'undone')).toBeUndefined()
    expect(await cardByReference(db, 'ten_1', 'b')).toBeDefined()
  })

  it('commits them together: another connection sees none of their writes until all have run', async () => {
    const dir = tempDir('card-sandbox-turn-')
    const file = join(dir, 'turn.db')
    const db = openDb(file)
    opened.push(db)
    const other = new Database(file, { readonly: true })
    onTestFinished(() => void other.close())
    const seenByOther = () =>
      other.prepare('SELECT reference FROM cards ORDER BY seq').pluck().all() as string[]
    let seenDuringB: string[] = []
    await Promise.all([
      atomically(db, (tx) => insertCard(tx, card('a'))),
      atomically(db, async (tx) => {
        seenDuringB = seenByOther()
        await insertCard(tx, card('b'))
      }),
    ])
    expect(seenDuringB).toEqual([])
    expect(seenByOther()).toEqual(['a', 'b'])
  })

  it('answers every caller of the turn with the error when its commit fails, and keeps none of their writes', async () => {
    const db = database()
    // a deferred foreign key is checked at COMMIT: b's orphan fails the turn's commit
    db.$client.exec(`PRAGMA foreign_keys = ON;
      CREATE TABLE parents (id INTEGER PRIMARY KEY);
      CREATE TABLE children (parent INTEGER REFERENCES parents (id) DEFERRABLE INITIALLY DEFERRED)`)
    const a = atomically(db, (tx) => insertCard(tx, card('a')))
    const b = atomically(db, (tx) => tx.$client.prepare('INSERT INTO children VALUES (7)').run())
    await expect(a).rejects.toThrow('FOREIGN KEY constraint failed')
    await expect(b).rejects.toThrow('FOREIGN KEY constraint failed')
    expect(await cardByReference(db, 'ten_1', 'a')).toBeUndefined()
  })

  it("answers every caller with a body's error that ended the turn's transaction", async () => {
    const db = database()
    const a = atomically(db, (tx) => insertCard(tx, card('a')))
    // as SQLite does by itself on some errors (a full disk), then the error
    const b = atomically(db, (tx) => {
      tx.$client.exec('ROLLBACK')
      throw new Error('database or disk is full')
    })
    await expect(a).rejects.toThrow('database or disk is full')
    await expect(b).rejects.toThrow('database or disk is full')
    expect(await cardByReference(db, 'ten_1', 'a')).toBeUndefined()
    // the connection serves the next turn
    await atomically(db, (tx) => insertCard(tx, card('next')))
    expect(await cardByReference(db, 'ten_1', 'next')).toBeDefined()
  })

  it('answers its callers with the error when the database was closed before their turn', async () => {
    const db = openDb()
    const asked = atomically(db, (tx) => insertCard(tx, card('late')))
    closeDb(db)
    await expect(asked).rejects.toThrow('The database connection is not open')
  })

  it('begins in the next turn of the event loop: a statement asked for before then runs first', async () => {
    const db = database()
    const writing = atomically(db, (tx) => insertCard(tx, card('new')))
    const before = await cardByReference(db, 'ten_1', 'new')
    await writing
    expect(before).toBeUndefined()
    expect(await cardByReference(db, 'ten_1', 'new')).toBeDefined()
  })

  it("runs under a test's fake timers (they replace the global setImmediate)", async () => {
    const db = database()
    vi.useFakeTimers()
    try {
      await atomically(db, (tx) => insertCard(tx, card('faked')))
    } finally {
      vi.useRealTimers()
    }
    expect(await cardByReference(db, 'ten_1', 'faked')).toBeDefined()
  })

  describe('rerunnable, in a turn of several', () => {
    const references = (db: Db) =>
      db.$client.prepare('SELECT reference FROM cards ORDER BY seq').pluck().all()

    /** A rerunnable body inserting card `name`, counting its runs; it throws after writing if `fails`. */
    function counted(db: Db, runs: Record<string, number>, name: string, fails = false) {
      return atomically(
        db,
        async (tx) => {
          runs[name] = (runs[name] ?? 0) + 1
          await insertCard(tx, card(name))
          if (fails) throw new Error(`${name} refused`)
          return name
        },
        { rerunnable: true },
      )
    }

    it('answers one that refuses before writing, and commits the others as they ran, once each', async () => {
      const db = database()
      const runs: Record<string, number> = {}
      const a = counted(db, runs, 'a')
      const refusing = atomically(
        db,
        async () => {
          runs.refused = (runs.refused ?? 0) + 1
          throw new Error('refused')
        },
        { rerunnable: true },
      )
      const b = counted(db, runs, 'b')
      expect(await a).toBe('a')
      await expect(refusing).rejects.toThrow('refused')
      expect(await b).toBe('b')
      expect(runs).toEqual({ a: 1, refused: 1, b: 1 })
      expect(references(db)).toEqual(['a', 'b'])
    })

    it('undoes the writes of one that fails after writing, and runs again those before it in its row only', async () => {
      const db = database()
      const runs: Record<string, number> = {}
      const steps: string[] = []
      const settled = await Promise.allSettled([
        counted(db, runs, 'a'),
        atomically(db, recording(steps, 'plain')), // not rerunnable: ends the row
        counted(db, runs, 'b'),
        counted(db, runs, 'c'),
        counted(db, runs, 'undone', true),
        counted(db, runs, 'd'),
      ])
      expect(settled.map((s) => s.status)).toEqual([
        'fulfilled',
        'fulfilled',
        'fulfilled',
        'fulfilled',
        'rejected',
        'fulfilled',
      ])
      expect(steps).toEqual(['plain begins', 'plain ends'])
      expect(runs).toEqual({ a: 1, b: 2, c: 2, undone: 1, d: 1 })
      expect(references(db)).toEqual(['a', 'plain', 'b', 'c', 'd'])
    })
  })

  it('rolls its writes back when its body rejects after an await, and lets the next one run', async () => {
    const db = database()
    const failing = atomically(db, async (tx) => {
      await insertCard(tx, card('undone'))
      await tick()
      throw new Error('refused')
    })
    const next = atomically(db, (tx) => insertCard(tx, card('kept')))
    await expect(failing).rejects.toThrow('refused')
    await next
    expect(await cardByReference(db, 'ten_1', 'undone')).toBeUndefined()
    expect(await cardByReference(db, 'ten_1', 'kept')).toBeDefined()
  })

  it('hands a context over with the handle in place of its database, the rest as it was', async () => {
    const db = database()
    const ctx = { db, tenant: 'ten_1', now: 5 }
    const seen = await atomically(ctx, async (inside) => {
      await insertCard(inside.db, card('card-2'))
      return inside
    })
    expect(seen.db).not.toBe(db)
    expect(connectionOf(seen.db)).toBe(db)
    expect({ ...seen, db }).toEqual(ctx)
  })

  it("shares the connection's prepared statements with its handle", async () => {
    const db = database()
    const count = statement((on) =>
      (on as unknown as Db).$client.prepare('SELECT count(*) FROM cards').pluck(),
    )
    const outside = count(db)
    await atomically(db, (tx) => expect(count(tx)).toBe(outside))
  })

  it('nested in another, undoes only its own writes when its body throws', async () => {
    const db = database()
    await atomically(db, async (tx) => {
      await insertCard(tx, card('kept'))
      await expect(
        atomically(tx, async (inner) => {
          await insertCard(inner, card('undone'))
          throw new Error('refused')
        }),
      ).rejects.toThrow('refused')
    })
    expect(await cardByReference(db, 'ten_1', 'kept')).toBeDefined()
    expect(await cardByReference(db, 'ten_1', 'undone')).toBeUndefined()
  })
})
