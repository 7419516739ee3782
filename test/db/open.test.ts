/**
 * db/open.ts: a `:memory:` database starts from the build's image of a migrated database when
 * that image holds drizzle/'s migrations, hash for hash, and from the migrations otherwise.
 */
import Database from 'better-sqlite3'
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterEach, describe, expect, it } from 'vitest'
import { closeDb, openDb, writeMigratedImage, type Db } from '../../src/db/open.js'

const dirs: string[] = []
const opened: Db[] = []
afterEach(() => {
  for (const db of opened.splice(0)) closeDb(db)
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true })
})

function imageFile() {
  const dir = mkdtempSync(join(tmpdir(), 'card-sandbox-image-'))
  dirs.push(dir)
  return join(dir, 'migrated.sqlite')
}

/** An image made by writeMigratedImage, changed by `change` (a marker table, say). */
function imageWith(change: (sqlite: Database.Database) => void) {
  const file = imageFile()
  writeMigratedImage(file)
  const sqlite = new Database(file)
  change(sqlite)
  sqlite.close()
  return file
}

const open = (image: string) => {
  const db = openDb(':memory:', image)
  opened.push(db)
  return db
}
const tables = (db: Db) =>
  db.$client.prepare('SELECT name, sql FROM sqlite_master ORDER BY name').all()
const hasMarker = (db: Db) => tables(db).some((t: any) => t.name === 'marker')

describe('openDb(":memory:")', () => {
  it('starts from the image: the same tables, indexes and migrations as running each migration', () => {
    const fromImage = open(imageWith((sqlite) => sqlite.exec('CREATE TABLE marker (x)')))
    expect(hasMarker(fromImage)).toBe(true)
    const migrated = open(join(imageFile(), 'none'))
    expect(tables(fromImage).filter((t: any) => t.name !== 'marker')).toEqual(tables(migrated))
    const applied = (db: Db) =>
      db.$client
        .prepare('SELECT hash, created_at FROM __drizzle_migrations ORDER BY created_at')
        .all()
    expect(applied(fromImage)).toEqual(applied(migrated))
    expect(applied(migrated).length).toBeGreaterThan(10)
  })

  it('runs the migrations instead when the image holds other migrations than drizzle/ (a migration changed since the build)', () => {
    const changed = imageWith((sqlite) => {
      sqlite.exec('CREATE TABLE marker (x)')
      sqlite.exec("UPDATE __drizzle_migrations SET hash = 'other' WHERE rowid = 1")
    })
    expect(hasMarker(open(changed))).toBe(false)
    const fewer = imageWith((sqlite) => {
      sqlite.exec('CREATE TABLE marker (x)')
      sqlite.exec(
        'DELETE FROM __drizzle_migrations WHERE rowid = (SELECT max(rowid) FROM __drizzle_migrations)',
      )
    })
    expect(hasMarker(open(fewer))).toBe(false)
  })

  it('runs the migrations when there is no image, or it is not a database', () => {
    const garbage = imageFile()
    writeFileSync(garbage, 'not a database')
    for (const image of [garbage, join(imageFile(), 'none')]) {
      const db = open(image)
      expect(
        db.$client.prepare('SELECT count(*) FROM __drizzle_migrations').pluck().get(),
      ).toBeGreaterThan(10)
    }
  })

  it('writes and reads rows in a database started from the image', () => {
    const db = open(imageWith(() => {}))
    db.$client.exec(
      'CREATE TABLE grows (x); WITH RECURSIVE n(x) AS (SELECT 1 UNION ALL SELECT x + 1 FROM n WHERE x < 5000) INSERT INTO grows SELECT x FROM n',
    )
    expect(db.$client.prepare('SELECT count(*) FROM grows').pluck().get()).toBe(5000)
  })
})
