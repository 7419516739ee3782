/**
 * src/db/open-pg.ts loads node-postgres and drizzle's driver for it (pg-driver.ts) only when a
 * PostgreSQL store opens: a sandbox on SQLite never loads them. Checked on the built library
 * (`npm test` builds dist/ first) in a process of its own, by the CommonJS modules it loaded.
 */
import { spawnSync } from 'node:child_process'
import { describe, expect, it } from 'vitest'
import { freshSchema, TEST_PG } from '../pg.js'

const LIBRARY = new URL('../../dist/index.js', import.meta.url).href

/**
 * A sandbox on `db` in a process of its own, after one request: the answer's status, and the
 * modules of node-postgres that process loaded.
 */
function loadedBy(db?: string): { status: number; loaded: string[] } {
  const script = `
import { createRequire } from 'node:module'
const { createSandbox } = await import(${JSON.stringify(LIBRARY)})
const sandbox = createSandbox(${JSON.stringify(db ? { db } : {})})
const res = await sandbox.app.request('/v1/cards', { headers: { Authorization: 'Bearer t' } })
const loaded = Object.keys(createRequire(import.meta.url).cache).filter((f) => /[\\\\/]node_modules[\\\\/]pg[\\\\/]/.test(f))
console.log(JSON.stringify({ status: res.status, loaded }))
await sandbox.close()
process.exit(0)
`
  const result = spawnSync(process.execPath, ['--input-type=module', '-e', script], {
    encoding: 'utf8',
  })
  if (result.status !== 0) throw new Error(result.stderr)
  return JSON.parse(result.stdout.trim().split('\n').at(-1)!)
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
