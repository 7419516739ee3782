/**
 * store/sqlite/open.ts: a `:memory:` database starts from the schema the build wrote (the migrations'
 * end state) when that schema was made from drizzle/'s migrations, hash for hash, and from the
 * migrations otherwise.
 */
import { readFileSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { afterEach, describe, expect, it } from 'vitest'
import { closeDb, openDb, writeMigratedSchema, type Db } from '../../../src/store/sqlite/open.js'
import { tempDir } from '../../temp-dir.js'

const opened: Db[] = []
afterEach(() => {
  for (const db of opened.splice(0)) closeDb(db)
})

function schemaFile() {
  return join(tempDir('card-sandbox-schema-'), 'migrated-schema.json')
}

type MigratedSchema = { statements: string[]; migrations: { hash: string }[] }

/** A schema file made by writeMigratedSchema, with a marker table, then changed by `change`. */
function markedSchema(change: (schema: MigratedSchema) => void = () => {}) {
  const file = schemaFile()
  writeMigratedSchema(file)
  const schema = JSON.parse(readFileSync(file, 'utf8')) as MigratedSchema
  schema.statements.push('CREATE TABLE marker (x)')
  change(schema)
  writeFileSync(file, JSON.stringify(schema))
  return file
}

const open = (file: string) => {
  const db = openDb(':memory:', file)
  opened.push(db)
  return db
}
const objects = (db: Db) =>
  db.$client.prepare('SELECT type, name, tbl_name, sql FROM sqlite_master ORDER BY name').all()
const hasMarker = (db: Db) => objects(db).some((o: any) => o.name === 'marker')
const applied = (db: Db) =>
  db.$client.prepare('SELECT hash, created_at FROM __drizzle_migrations ORDER BY created_at').all()

describe('openDb(":memory:")', () => {
  it('starts from the schema file: the same tables, indexes and migrations as running each migration', () => {
    const fromSchema = open(markedSchema())
    expect(hasMarker(fromSchema)).toBe(true)
    const migrated = open(join(schemaFile(), 'none'))
    expect(objects(fromSchema).filter((o: any) => o.name !== 'marker')).toEqual(objects(migrated))
    expect(applied(fromSchema)).toEqual(applied(migrated))
    expect(applied(migrated).length).toBeGreaterThan(10)
  })

  it('runs the migrations instead when the file was made from other migrations (one changed or added since the build)', () => {
    const changed = markedSchema((schema) => (schema.migrations[0].hash = 'other'))
    expect(hasMarker(open(changed))).toBe(false)
    const fewer = markedSchema((schema) => schema.migrations.pop())
    const db = open(fewer)
    expect(hasMarker(db)).toBe(false)
    expect(applied(db).length).toBe(applied(open(markedSchema())).length)
  })

  it('runs the migrations when there is no schema file, or it is not one', () => {
    const garbage = schemaFile()
    writeFileSync(garbage, 'not json')
    const broken = markedSchema((schema) => schema.statements.unshift('CREATE TABLE ('))
    for (const file of [garbage, broken, join(schemaFile(), 'none')]) {
      const db = open(file)
      expect(applied(db).length).toBeGreaterThan(10)
      expect(hasMarker(db)).toBe(false)
    }
  })

  it('has 8 KiB pages, from the schema file or from the migrations (a commit scans half as many as with 4 KiB)', () => {
    const pageSize = (db: Db) => db.$client.pragma('page_size', { simple: true })
    expect(pageSize(open(markedSchema()))).toBe(8192)
    expect(pageSize(open(join(schemaFile(), 'none')))).toBe(8192)
  })

  it('writes and reads rows, with their autoincrementing keys, in a database started from the schema file', () => {
    const db = open(markedSchema())
    db.$client.exec(
      'CREATE TABLE grows (id INTEGER PRIMARY KEY AUTOINCREMENT, x); WITH RECURSIVE n(x) AS (SELECT 1 UNION ALL SELECT x + 1 FROM n WHERE x < 5000) INSERT INTO grows (x) SELECT x FROM n',
    )
    expect(db.$client.prepare('SELECT count(*), max(id) FROM grows').raw().get()).toEqual([
      5000, 5000,
    ])
  })
})

describe('openDb(file)', () => {
  it('names the file and its missing directory when the directory does not exist', () => {
    const dir = join(tempDir(), 'no', 'such')
    const file = join(dir, 'x.db')
    expect(() => openDb(file)).toThrow(
      `cannot open the database ${file}: the directory ${dir} does not exist`,
    )
  })

  it('names the file that is not a database', () => {
    const file = join(tempDir(), 'notes.txt')
    writeFileSync(file, 'not a database, but long enough to look at its header. '.repeat(4))
    expect(() => openDb(file)).toThrow(`cannot open the database ${file}: file is not a database`)
  })
})
