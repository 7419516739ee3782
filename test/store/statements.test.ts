/**
 * The store's transaction (store/statements.ts atomically): its body runs on a handle of its
 * own, sharing the connection's prepared statements, and a statement on the bare connection
 * inside it is refused, so that an asynchronous store can tell the body's statements from
 * another request's (ARCHITECTURE.md, "Toward PostgreSQL").
 */
import { afterEach, describe, expect, it } from 'vitest'
import { closeDb, openDb, type Db } from '../../src/db/open.js'
import { cardByReference, insertCard } from '../../src/store/cards.js'
import { atomically, connectionOf, statement } from '../../src/store/statements.js'

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
  it("runs its body's statements on the handle it hands over, and refuses the bare connection inside it", () => {
    const db = database()
    atomically(db, (tx) => {
      expect(tx).not.toBe(db)
      insertCard(tx, card('card-1'))
      expect(() => cardByReference(db, 'ten_1', 'card-1')).toThrow("use the body's handle")
    })
    // outside it the connection is the one to use again
    expect(cardByReference(db, 'ten_1', 'card-1')?.reference).toBe('card-1')
  })

  it('hands a context over with the handle in place of its database, the rest as it was', () => {
    const db = database()
    const ctx = { db, tenant: 'ten_1', now: 5 }
    const seen = atomically(ctx, (inside) => {
      insertCard(inside.db, card('card-2'))
      return inside
    })
    expect(seen.db).not.toBe(db)
    expect(connectionOf(seen.db)).toBe(db)
    expect({ ...seen, db }).toEqual(ctx)
  })

  it("shares the connection's prepared statements with its handle", () => {
    const db = database()
    const count = statement((on) => on.$client.prepare('SELECT count(*) FROM cards').pluck())
    const outside = count(db)
    atomically(db, (tx) => expect(count(tx)).toBe(outside))
  })

  it('nested in another, undoes only its own writes when its body throws', () => {
    const db = database()
    atomically(db, (tx) => {
      insertCard(tx, card('kept'))
      expect(() =>
        atomically(tx, (inner) => {
          insertCard(inner, card('undone'))
          throw new Error('refused')
        }),
      ).toThrow('refused')
    })
    expect(cardByReference(db, 'ten_1', 'kept')).toBeDefined()
    expect(cardByReference(db, 'ten_1', 'undone')).toBeUndefined()
  })
})
