/**
 * Files the package ships beside its code (drizzle/, fixtures/, package.json), found from the
 * package's root. The root is looked up rather than written as `../..` because the same code
 * runs from src/ (tests), from dist/ (the library) and bundled into dist/bin/ (the command).
 */
import { existsSync, readFileSync } from 'node:fs'
import { dirname, join } from 'node:path'
import { fileURLToPath } from 'node:url'

function packageRoot(from: string): string {
  for (let dir = from; ; dir = dirname(dir)) {
    if (existsSync(join(dir, 'package.json')) && existsSync(join(dir, 'drizzle'))) return dir
    if (dirname(dir) === dir) throw new Error(`card-sandbox: no package root above ${from}`)
  }
}

export const PACKAGE_ROOT = packageRoot(dirname(fileURLToPath(import.meta.url)))

export const packageFile = (...path: string[]) => join(PACKAGE_ROOT, ...path)

export const PACKAGE_VERSION = (
  JSON.parse(readFileSync(packageFile('package.json'), 'utf8')) as { version: string }
).version
