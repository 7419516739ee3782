/**
 * store/sqlite/addon.ts: better-sqlite3 found as node finds it (the first node_modules/better-sqlite3
 * up from a directory), with its version and the addon its install built, or nothing. The
 * library hands that addon to better-sqlite3 (checked in a process of its own, on the build,
 * by the modules it loaded: library-process.ts); the command's use of it is test/cli/cli.test.ts's.
 */
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { describe, expect, it } from 'vitest'
import { INSTALLED_SQLITE, installedSqlite } from '../../../src/store/sqlite/addon.js'
import { libraryProcess } from '../library-process.js'
import { tempDir } from '../../temp-dir.js'

const ROOT = new URL('../../..', import.meta.url).pathname

/** A node_modules/better-sqlite3 in `dir`: its package.json, and an addon file unless told. */
function install(dir: string, packageJson: string, { addon = true } = {}) {
  const root = join(dir, 'node_modules', 'better-sqlite3')
  mkdirSync(join(root, 'build', 'Release'), { recursive: true })
  writeFileSync(join(root, 'package.json'), packageJson)
  if (addon) writeFileSync(join(root, 'build', 'Release', 'better_sqlite3.node'), '')
  return join(root, 'build', 'Release', 'better_sqlite3.node')
}

describe('installedSqlite', () => {
  it('finds the better-sqlite3 this package runs with: its version and its built addon', () => {
    const { version } = JSON.parse(
      readFileSync(join(ROOT, 'node_modules/better-sqlite3/package.json'), 'utf8'),
    ) as { version: string }
    expect(INSTALLED_SQLITE).toEqual({
      version,
      addon: join(ROOT, 'node_modules/better-sqlite3/build/Release/better_sqlite3.node'),
    })
  })

  it('takes the nearest node_modules up from the directory, as node does', () => {
    const dir = tempDir('card-sandbox-addon-')
    install(dir, '{ "version": "1.0.0" }')
    const nearer = install(join(dir, 'a'), '{ "version": "2.0.0" }')
    mkdirSync(join(dir, 'a', 'b', 'c'), { recursive: true })
    expect(installedSqlite(join(dir, 'a', 'b', 'c'))).toEqual({ version: '2.0.0', addon: nearer })
    expect(installedSqlite(join(dir, 'a'))).toEqual({ version: '2.0.0', addon: nearer })
  })

  it('finds nothing when the nearest install has no built addon, or an unreadable package.json', () => {
    const dir = tempDir('card-sandbox-addon-')
    install(dir, '{ "version": "1.0.0" }')
    install(join(dir, 'a'), '{ "version": "2.0.0" }', { addon: false })
    install(join(dir, 'b'), 'not json')
    install(join(dir, 'c'), '{ "version": 3 }')
    expect(installedSqlite(join(dir, 'a'))).toBeUndefined()
    expect(installedSqlite(join(dir, 'b'))).toBeUndefined()
    expect(installedSqlite(join(dir, 'c'))).toBeUndefined()
  })

  it('finds nothing where no node_modules up the tree holds better-sqlite3', () => {
    expect(installedSqlite(tempDir('card-sandbox-addon-'))).toBeUndefined()
  })
})

describe('the library', () => {
  it('hands better-sqlite3 its installed addon, so that the bindings package never loads', () => {
    const { status, loaded, stderr } = libraryProcess()
    expect(stderr).toBe('')
    expect({
      status,
      bindings: loaded.filter((f) => /[\\/]node_modules[\\/]bindings[\\/]/.test(f)),
      addons: loaded.filter((f) => f.endsWith('.node')),
    }).toEqual({ status: 200, bindings: [], addons: [INSTALLED_SQLITE!.addon] })
  })
})
