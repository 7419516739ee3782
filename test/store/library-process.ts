/**
 * The built library (dist/index.js; `npm test` builds dist/ first) in a process of its own: a
 * sandbox on `db` (SQLite in memory unless named) answers one request. What the database layer
 * loads is told by the modules of that process, not of the test's own, which vitest shares.
 */
import { spawnSync } from 'node:child_process'

const LIBRARY = new URL('../../dist/index.js', import.meta.url).href

/**
 * The answer's status, every CommonJS module (native addons included) the process loaded, and
 * what it wrote on stderr.
 */
export function libraryProcess(db?: string): {
  status: number
  loaded: string[]
  stderr: string
} {
  const script = `
import { createRequire } from 'node:module'
const { createSandbox } = await import(${JSON.stringify(LIBRARY)})
const sandbox = createSandbox(${JSON.stringify(db ? { db } : {})})
const res = await sandbox.app.request('/v1/cards', { headers: { Authorization: 'Bearer t' } })
console.log(JSON.stringify({ status: res.status, loaded: Object.keys(createRequire(import.meta.url).cache) }))
await sandbox.close()
process.exit(0)
`
  const result = spawnSync(process.execPath, ['--input-type=module', '-e', script], {
    encoding: 'utf8',
  })
  if (result.status !== 0) throw new Error(result.stderr)
  return { ...JSON.parse(result.stdout.trim().split('\n').at(-1)!), stderr: result.stderr }
}
