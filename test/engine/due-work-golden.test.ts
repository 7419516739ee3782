/**
 * What due work does, pinned: a seeded manual-clock run of every kind of job (due-work-mix.ts)
 * answers, signs, logs and stores exactly what the committed fixture holds, on SQLite and on
 * PostgreSQL; and both stores end with the same tables. A change to how due jobs are claimed
 * and run (in sets rather than one by one) must leave every byte of it as it was.
 */
import { readFileSync } from 'node:fs'
import { describe, expect, it } from 'vitest'
import { expectGolden, goldenText } from '../golden.js'
import { TEST_PG, freshSchema } from '../pg.js'
import { runMix, type MixResult } from './due-work-mix.js'

const FIXTURE = new URL('./due-work-golden.json', import.meta.url)

/** The mix run on a PostgreSQL schema of its own, dropped afterwards. */
async function onPostgres(): Promise<MixResult> {
  const schema = await freshSchema()
  try {
    return await runMix(schema.url)
  } finally {
    await schema.drop()
  }
}

describe('a seeded manual-clock run of every kind of due job', () => {
  it('answers, signs, logs and stores byte for byte what the fixture holds (SQLite)', async () => {
    expectGolden(FIXTURE, await runMix(undefined))
  })

  it.runIf(TEST_PG)(
    'answers, signs, logs and stores byte for byte what the fixture holds (PostgreSQL)',
    async () => {
      expect(goldenText(await onPostgres())).toBe(readFileSync(FIXTURE, 'utf8'))
    },
    60_000,
  )

  it.runIf(TEST_PG)(
    'leaves the same tables on SQLite and on PostgreSQL',
    async () => {
      const [sqlite, postgres] = [await runMix(undefined), await onPostgres()]
      expect(Object.keys(postgres.tables)).toEqual(Object.keys(sqlite.tables))
      for (const table of Object.keys(sqlite.tables))
        expect(postgres.tables[table], table).toEqual(sqlite.tables[table])
    },
    60_000,
  )
})
