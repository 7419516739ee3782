/**
 * The cards table's lookups (store/cards.ts): a linked identifier is found through the partial
 * index of linked cards, which created cards (no identifier) never enter.
 */
import { describe, expect, it } from 'vitest'
import { openSqlite as openDb, type SqliteDb as Db } from '../../src/store/sqlite/driver.js'
import { insertCard, isIdentifierLinked } from '../../src/store/cards.js'
import { CARD_COLUMNS } from './card-columns.js'

/** The SQL of every statement prepared on the connection while `run` runs. */
async function preparedDuring(db: Db, run: () => Promise<unknown>): Promise<string[]> {
  const client = db.$client
  const prepare = client.prepare.bind(client)
  const seen: string[] = []
  client.prepare = ((source: string) => (seen.push(source), prepare(source))) as typeof prepare
  try {
    await run()
  } finally {
    client.prepare = prepare
  }
  return seen
}

describe('isIdentifierLinked', () => {
  it("answers for the tenant's linked cards only", async () => {
    const db = openDb()
    await insertCard(db, { ...CARD_COLUMNS, reference: 'created' })
    await insertCard(db, { ...CARD_COLUMNS, reference: 'linked', identifier: 8840822604 })
    expect(await isIdentifierLinked(db, 'ten_1', 8840822604)).toBe(true)
    expect(await isIdentifierLinked(db, 'ten_1', 1)).toBe(false)
    expect(await isIdentifierLinked(db, 'ten_2', 8840822604)).toBe(false)
  })

  it("looks the identifier up in the index of linked cards, not by scanning the tenant's cards", async () => {
    const db = openDb()
    const [lookup] = await preparedDuring(db, () => isIdentifierLinked(db, 'ten_1', 7))
    const plan = db.$client.prepare(`EXPLAIN QUERY PLAN ${lookup}`).all('ten_1', 7) as {
      detail: string
    }[]
    expect(plan.map((step) => step.detail)).toEqual([
      expect.stringContaining('INDEX cards_tenant_identifier (tenant_id=? AND identifier=?)'),
    ])
  })

  it('keeps created cards out of that index: only linked ones have an entry', async () => {
    const db = openDb()
    for (let i = 0; i < 5; i++) await insertCard(db, { ...CARD_COLUMNS, reference: `created-${i}` })
    await insertCard(db, { ...CARD_COLUMNS, reference: 'linked', identifier: 3 })
    // SQLite's dbstat: the entries (cells) on the index's pages
    const entriesOfIndex = db.$client
      .prepare("SELECT sum(ncell) FROM dbstat WHERE name = 'cards_tenant_identifier'")
      .pluck()
    expect(entriesOfIndex.get()).toBe(1)
  })
})
