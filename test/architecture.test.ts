import { readdirSync, readFileSync } from 'node:fs'
import { join } from 'node:path'
import { describe, expect, it } from 'vitest'

const SRC = new URL('../src/', import.meta.url).pathname

function filesUnder(dir: string): string[] {
  return readdirSync(join(SRC, dir), { withFileTypes: true, recursive: true })
    .filter((entry) => entry.isFile() && entry.name.endsWith('.ts'))
    .map((entry) => join(entry.parentPath, entry.name))
}

describe('architecture (STYLE §1)', () => {
  it.each(['domain', 'engine', 'db'])('src/%s never imports hono or src/http', (dir) => {
    for (const file of filesUnder(dir)) {
      const imports = [...readFileSync(file, 'utf8').matchAll(/from '([^']+)'/g)].map((m) => m[1])
      for (const target of imports) {
        expect(target, file).not.toMatch(/^(hono|@hono\/)/)
        expect(target, file).not.toMatch(/\/http\//)
      }
    }
  })

  it('runs SQL only in src/store and src/db: nothing else imports drizzle-orm or better-sqlite3 or touches $client', () => {
    for (const file of filesUnder('.')) {
      if (/\/src\/(store|db)\//.test(file)) continue
      const text = readFileSync(file, 'utf8')
      expect(text, file).not.toMatch(/from '(drizzle-orm|better-sqlite3)/)
      expect(text, file).not.toMatch(/\$client/)
    }
  })

  it('takes time only from the sandbox clock in domain code', () => {
    for (const file of filesUnder('domain')) {
      expect(readFileSync(file, 'utf8'), file).not.toMatch(/Date\.now\(|new Date\(\)/)
    }
  })
})
