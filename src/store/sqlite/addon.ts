/**
 * better-sqlite3 as installed beside this package: its version and the native addon its install
 * built. open.ts hands the addon to each database it opens, which spares better-sqlite3's
 * `bindings` package its search for it (5–7 ms of a cold start); the bundled command
 * (scripts/bundle.mjs) runs the copy of better-sqlite3's JavaScript it holds when the version
 * installed is the one it was built with, sparing node's module loader 12 files (12 ms).
 *
 * Found as node finds a package without an `exports` map: in the first node_modules/better-sqlite3
 * up from here, without node's resolver (a start's first resolution costs it 2.5 ms). Undefined
 * where there is none, or no addon where a build or a prebuilt download puts it: better-sqlite3
 * then finds its addon itself, as it always did.
 */
import { existsSync, readFileSync } from 'node:fs'
import { dirname, join } from 'node:path'
import { fileURLToPath } from 'node:url'

export type InstalledSqlite = { version: string; addon: string }

export function installedSqlite(
  from: string = dirname(fileURLToPath(import.meta.url)),
): InstalledSqlite | undefined {
  for (let dir = from; ; dir = dirname(dir)) {
    const root = join(dir, 'node_modules', 'better-sqlite3')
    if (existsSync(join(root, 'package.json'))) return addonOf(root)
    if (dirname(dir) === dir) return undefined
  }
}

function addonOf(root: string): InstalledSqlite | undefined {
  const addon = join(root, 'build', 'Release', 'better_sqlite3.node')
  if (!existsSync(addon)) return undefined
  try {
    const { version } = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8')) as {
      version?: unknown
    }
    return typeof version === 'string' ? { version, addon } : undefined
  } catch {
    return undefined
  }
}

export const INSTALLED_SQLITE = installedSqlite()
