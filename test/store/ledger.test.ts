/**
 * A run of settlements written as sets (src/store/ledger.ts writeMovements): every account's
 * balance upserted once, with the sum of its deltas, and in one order whoever writes them (by
 * name), so that two sets locking the same accounts on PostgreSQL never wait in a circle.
 */
import { sql } from 'drizzle-orm'
import { describe, expect, it } from 'vitest'
import { writeMovements, type Movement } from '../../src/store/ledger.js'
import { closeStore, openStore } from '../../src/store/open.js'
import { query } from '../../src/store/statements.js'

const move = (from: string, to: string, amount: number): Movement => ({
  tenantId: 'ten_1',
  from,
  to,
  amount,
  source: 'ref-1',
  memo: 'settled',
  now: 1_000,
})

describe('movements written as a set', () => {
  it('upserts each account once with the sum of its deltas, in the order of their names', async () => {
    const db = openStore(':memory:')
    // the accounts appear as card:mm, wallet:zz, bank:aa
    await writeMovements(db, [
      move('card:mm', 'wallet:zz', 500),
      move('wallet:zz', 'bank:aa', 200),
      move('card:mm', 'bank:aa', 100),
    ])
    // the order the accounts' rows were written in (SQLite's rowid)
    const written = await query<{ name: string; balance: number }[]>(db, 'all', (db, t) =>
      db
        .select({ name: t.accounts.name, balance: t.accounts.balance })
        .from(t.accounts)
        .orderBy(sql`rowid`),
    )
    expect(written).toEqual([
      { name: 'bank:aa', balance: 300 },
      { name: 'card:mm', balance: -600 },
      { name: 'wallet:zz', balance: 300 },
    ])
    await closeStore(db)
  })
})
