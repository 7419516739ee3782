/**
 * src/store/postgres/open.ts loads node-postgres and drizzle's driver for it (pool.ts) only when a
 * PostgreSQL store opens: a sandbox on SQLite never loads them. Checked on the built library
 * in a process of its own (library-process.ts), by the CommonJS modules it loaded.
 */
import { describe, expect, it } from 'vitest'
import { freshSchema, TEST_PG } from '../../pg.js'
import { libraryProcess } from '../library-process.js'

/** A sandbox on `db` after one request: the answer's status, and the modules of node-postgres loaded. */
function loadedBy(db?: string): { status: number; loaded: string[] } {
  const { status, loaded } = libraryProcess(db)
  return { status, loaded: loaded.filter((f) => /[\\/]node_modules[\\/]pg[\\/]/.test(f)) }
}

describe('the PostgreSQL driver', () => {
  it('is not loaded by a sandbox on SQLite, its first request answered', () => {
    expect(loadedBy()).toEqual({ status: 200, loaded: [] })
  })

  it.skipIf(!TEST_PG)('is loaded when a PostgreSQL store opens', async () => {
    const schema = await freshSchema()
    try {
      const { status, loaded } = loadedBy(schema.url)
      expect(status).toBe(200)
      expect(loaded.length).toBeGreaterThan(0)
    } finally {
      await schema.drop()
    }
  })
})
