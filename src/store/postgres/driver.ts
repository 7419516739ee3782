/**
 * The store's driver for PostgreSQL (store/driver.ts), the team sandbox: a pool of
 * node-postgres connections (store/postgres/open.ts, which loads node-postgres only when a PostgreSQL
 * store opens). A statement is built by the same drizzle builder as on SQLite, given the
 * PostgreSQL tables (db/pg-schema.ts) instead of SQLite's, and run async. Other replicas write
 * to the same database: the driver has `replicas`, and status moves take row locks.
 */
import {
  Column,
  DrizzleQueryError,
  eq,
  getTableColumns,
  getTableName,
  is,
  Param,
  Placeholder,
  SQL,
  sql,
  Subquery,
  Table,
} from 'drizzle-orm'
import type { NodePgDatabase } from 'drizzle-orm/node-postgres'
import type { PgTable } from 'drizzle-orm/pg-core'
import type { SQLiteColumn, SQLiteTable } from 'drizzle-orm/sqlite-core'
import type { PgStore } from './open.js'
import type {
  Builder,
  Db,
  Dialect,
  Driver,
  EitherStatement,
  MakeStatement,
  Replicas,
} from '../driver.js'
import { columnIn, rowsAsJson, tableIn } from '../tables.js'
import { earliestDueOf, earliestDueOnRealClocks, earliestEventToAttempt } from './due-index.js'

/**
 * PostgreSQL's handle: the store, or one of its transactions, and the driver; a request's
 * handle also carries the snapshot its first statement saw (readingAt).
 */
type PgDb = Db & { readonly pg: PgStore; readonly snapshot?: string; readonly writesAt?: number }

const own = (db: Db) => (db as PgDb).pg

/** A handle on the store (or a transaction's client of it). */
export function pgDb(store: PgStore): Db {
  return { driver: postgresDriver, pg: store } as PgDb
}

const dialect: Dialect = {
  forUpdate: (select, options) =>
    (select as { for(strength: 'update', config?: { skipLocked?: boolean }): typeof select }).for(
      'update',
      options,
    ),
  inJsonArray: (column, jsonArray) =>
    sql`${column} IN (SELECT json_array_elements_text(${jsonArray}::json))`,
  // the planner has the table's statistics: the column as it is
  filterOnly: (column) => sql`${column}`,
  startsWith: (column, prefix) => sql`starts_with(${column}, ${prefix})`,
  nowMs: sql`(extract(epoch from clock_timestamp()) * 1000)::bigint`,
  snapshot: sql`pg_current_snapshot()::text`,
}

/**
 * The writes this process has finished (transactions ended, statements outside one that are not
 * a select): a request's cached reads are good only while it stays where it was when the
 * request's snapshot was read (writeStamp), so that a request reads back what it wrote itself.
 */
let writesHere = 0

/** drizzle's PostgreSQL builder, where a statement needs what SQLite's cannot say (a CTE that writes). */
type PgBuilder = NodePgDatabase<Record<string, never>>

/** A table of the driver's own (db/pg-schema.ts), typed as PostgreSQL's builder takes it. */
const asPg = (table: SQLiteTable) => table as unknown as PgTable

/** A drizzle prepared query of node-postgres. */
type PgPrepared = { execute(values?: Record<string, unknown>): Promise<unknown> }

const changesOf = (result: unknown) =>
  Array.isArray(result) ? result.length : ((result as { rowCount?: number | null }).rowCount ?? 0)

/** Statement names by text: one text, one name, on every connection of the process. */
const namesByText = new Map<string, string>()

/**
 * A prepared query made a named statement of PostgreSQL's: each connection parses and plans it
 * once, then binds and runs it (node-postgres keeps what each connection has parsed).
 */
function named(prepared: PgPrepared): PgPrepared {
  const configs = prepared as unknown as {
    rawQueryConfig?: { name?: string; text: string }
    queryConfig?: { name?: string; text: string }
  }
  const text = configs.queryConfig?.text
  if (text === undefined) return prepared
  let name = namesByText.get(text)
  if (name === undefined) namesByText.set(text, (name = `card_sandbox_${namesByText.size + 1}`))
  configs.queryConfig!.name = name
  if (configs.rawQueryConfig) configs.rawQueryConfig.name = name
  return prepared
}

/** What drizzle's node-postgres prepared query holds, as `direct` runs it. */
type PgPreparedParts = {
  client: { query(config: object, values: unknown[]): Promise<{ rows: unknown[][] }> }
  params: unknown[]
  fields?: { path: string[]; field: unknown }[]
  queryConfig: { text: string }
  rawQueryConfig: { text: string }
  joinsNotNullableMap?: Record<string, boolean>
  customResultMapper?: unknown
}

type Decoder = { mapFromDriverValue(value: unknown): unknown }

/** A field's decoder, as drizzle's mapResultRow finds it. */
function decoderOf(field: unknown): Decoder {
  const decoder = (s: unknown) => (s as { decoder: Decoder }).decoder
  if (is(field, Column)) return field
  if (is(field, SQL)) return decoder(field)
  if (is(field, Subquery)) return decoder((field._ as unknown as { sql: SQL }).sql)
  return decoder((field as { sql: SQL }).sql)
}

/**
 * A drizzle prepared query run on node-postgres without drizzle's per-execute work (tracer spans,
 * the cache's wrapper, `is` checks for every value of every row): the placeholders are filled and
 * the rows mapped by plans made once per statement. A row is mapped as drizzle's mapResultRow
 * maps it; a select that joins (rows made null when a joined table's columns all are) and a
 * relational query keep drizzle's execute. Errors are drizzle's (DrizzleQueryError, its cause
 * node-postgres's).
 */
function direct(prepared: PgPrepared): PgPrepared {
  const parts = prepared as unknown as PgPreparedParts
  const joins = parts.joinsNotNullableMap
  if (parts.customResultMapper || (joins && Object.keys(joins).length > 1)) return prepared
  const fill = parts.params.map((p): ((values: Record<string, unknown>) => unknown) => {
    if (is(p, Placeholder)) return (values) => valueOf(values, p.name as string)
    if (is(p, Param) && is(p.value, Placeholder)) {
      const name = p.value.name as string
      return (values) => p.encoder.mapToDriverValue(valueOf(values, name))
    }
    return () => p
  })
  const fields = parts.fields
  const config = fields ? parts.queryConfig : parts.rawQueryConfig
  const map = fields && rowMapper(fields)
  return {
    async execute(values: Record<string, unknown> = {}) {
      const params = fill.map((f) => f(values))
      let result
      try {
        result = await parts.client.query(config, params)
      } catch (error) {
        throw new DrizzleQueryError(config.text, params, error as Error)
      }
      return map ? result.rows.map(map) : result
    },
  }
}

function valueOf(values: Record<string, unknown>, name: string) {
  if (!(name in values)) throw new Error(`No value for placeholder "${name}" was provided`)
  return values[name]
}

/** A row of values (rowMode 'array') as the object drizzle's select makes of it. */
function rowMapper(fields: { path: string[]; field: unknown }[]) {
  const plan = fields.map(({ path, field }) => ({ path, decoder: decoderOf(field) }))
  return (row: unknown[]) => {
    const result: Record<string, unknown> = {}
    for (let i = 0; i < plan.length; i++) {
      const { path, decoder } = plan[i]
      let node = result
      for (let j = 0; j < path.length - 1; j++)
        node = (node[path[j]] ??= {}) as Record<string, unknown>
      const raw = row[i]
      node[path[path.length - 1]] = raw === null ? null : decoder.mapFromDriverValue(raw)
    }
    return result
  }
}

/**
 * SQLite's statement methods (`get`, `all`, `run`) over a PostgreSQL query built by the same
 * builder (`build`, once, when it first runs): the first row, every row, the count of rows changed.
 */
function pgStatement(store: PgStore, build: () => unknown) {
  let prepared: PgPrepared | undefined
  let writes = true
  const execute = async (values?: Record<string, unknown>) => {
    await store.ready
    if (!prepared) {
      const built = named(build() as PgPrepared)
      writes = !/^select /.test(
        (built as unknown as PgPreparedParts).queryConfig?.text ?? 'unknown',
      )
      prepared = direct(built)
    }
    const result = await prepared.execute(values)
    if (writes && !store.inTransaction) writesHere++
    return result
  }
  return {
    get: async (values?: Record<string, unknown>) => ((await execute(values)) as unknown[])[0],
    all: async (values?: Record<string, unknown>) => (await execute(values)) as unknown[],
    run: async (values?: Record<string, unknown>) => ({
      changes: changesOf(await execute(values)),
    }),
  }
}

async function text(store: PgStore, statement: string, values: unknown[] = []) {
  await store.ready
  const result = await store.queryable.query(statement, values)
  if (!store.inTransaction) writesHere++
  return result
}

async function run<R>(db: Db, method: 'get' | 'all' | 'run', build: (b: Builder) => unknown) {
  const store = own(db)
  await store.ready
  const result = await (build(store.drizzle as Builder) as PromiseLike<unknown>)
  if (!store.inTransaction) writesHere++
  if (method === 'run') return { changes: changesOf(result) } as R
  return (method === 'get' ? (result as unknown[])[0] : result) as R
}

let savepoints = 0
const DEADLOCK = '40P01'
const DEADLOCK_RETRIES = 3

/** A failed statement's SQLSTATE: node-postgres's error has it, drizzle's wraps that as its cause. */
const sqlStateOf = (error: unknown) =>
  (error as { code?: string }).code ?? (error as { cause?: { code?: string } }).cause?.code

/**
 * A transaction: a client of the pool of its own, BEGIN … COMMIT, the body's statements on it;
 * nested, a savepoint. Other requests run on other clients meanwhile: what must not interleave
 * takes row locks (SELECT … FOR UPDATE), not a lock of this process. A deadlock (two
 * transactions that locked rows in opposite orders) runs the body again.
 */
async function transaction<T>(db: Db, body: (handle: Db) => Promise<T> | T): Promise<T> {
  const store = own(db)
  if (store.inTransaction) {
    const name = `s${++savepoints}`
    await store.queryable.query(`SAVEPOINT ${name}`)
    try {
      const result = await body(db)
      await store.queryable.query(`RELEASE SAVEPOINT ${name}`)
      return result
    } catch (error) {
      await store.queryable.query(`ROLLBACK TO SAVEPOINT ${name}`)
      throw error
    }
  }
  for (let attempt = 1; ; attempt++) {
    const open = await store.begin()
    let committed = false
    try {
      const result = await body(pgDb(open.store))
      await open.end(true)
      committed = true
      return result
    } catch (error) {
      if (attempt < DEADLOCK_RETRIES && sqlStateOf(error) === DEADLOCK) continue
      throw error
    } finally {
      // a ROLLBACK fails when the connection is lost, and the transaction is lost with it: the
      // body's own error says what happened (a 422 stays a 422), not the ROLLBACK's
      if (!committed) await open.end(false).catch(() => {})
      writesHere++
    }
  }
}

/** The column names of a table, from the schema (the same on both stores). */
function columnsOf(store: PgStore, table: string): string[] {
  const found = Object.values(store.tables).find((t) => is(t, Table) && getTableName(t) === table)
  if (!found) throw new Error(`no table ${table}`)
  return Object.values(getTableColumns(found as Table)).map((c) => c.name)
}

/** The PostgreSQL type of a schema.ts column type (as db/pg-schema.ts maps them). */
const PG_TYPES: Record<string, string> = {
  SQLiteText: 'text',
  SQLiteTextJson: 'json',
  SQLiteBoolean: 'boolean',
  SQLiteInteger: 'bigint',
}

/** A JSON list of objects as a table `j`, its columns typed as `columns`, in the list's order. */
function jsonRecords(json: string, columns: SQLiteColumn[]): SQL {
  const types = columns.map((column) => sql.raw(`"${column.name}" ${PG_TYPES[column.columnType]}`))
  return sql`ROWS FROM (json_to_recordset(${json}::json) AS (${sql.join(types, sql`, `)})) WITH ORDINALITY AS j(${sql.raw(columns.map((c) => `"${c.name}"`).join(', '))}, ord)`
}

const field = (name: string) => sql.raw(`j."${name}"`)

async function insertMany(db: Db, table: SQLiteTable, rows: Record<string, unknown>[]) {
  const { json, columns } = rowsAsJson(table, rows)
  const names = sql.raw(columns.map((column) => `"${column.name}"`).join(', '))
  const fields = sql.join(
    columns.map((column) => field(column.name)),
    sql`, `,
  )
  await run(db, 'run', (b) =>
    (b as unknown as { execute(query: SQL): unknown }).execute(
      sql`INSERT INTO ${tableIn(own(db).tables, table)} (${names}) SELECT ${fields} FROM ${jsonRecords(json, columns)} ORDER BY j.ord`,
    ),
  )
}

async function updateManyBySeq(
  db: Db,
  table: SQLiteTable,
  rows: { seq: number; changes: Record<string, unknown> }[],
) {
  const keys = Object.keys(rows[0].changes)
  const { json, columns } = rowsAsJson(
    table,
    rows.map((row) => ({ ...row.changes, seq: row.seq })),
    ['seq', ...keys],
  )
  const t = own(db).tables
  const all = getTableColumns(table) as Record<string, SQLiteColumn>
  const set: Record<string, SQL> = {}
  for (const key of keys) set[key] = field(all[key].name)
  await run(db, 'run', (b) =>
    b
      .update(tableIn(t, table))
      .set(set)
      .from(jsonRecords(json, columns))
      .where(eq(columnIn(t, table, all.seq), field('seq'))),
  )
}

/** What replicas of one database do beside each other (Driver.replicas). */
const replicas: Replicas = {
  earliestDue: (db, ids) => (ids ? earliestDueOf(own(db), ids) : earliestDueOnRealClocks(own(db))),
  earliestEventToAttempt: (db) => earliestEventToAttempt(own(db)),
  listenForWrites(db, heard, slowPollMs) {
    // node-postgres's own client, for the listening connection: loaded only here
    let stop: (() => Promise<void>) | undefined
    let stopped = false
    void import('./listener.js').then(({ listenForWrites }) => {
      if (!stopped) stop = listenForWrites(own(db), heard, slowPollMs)
    })
    return async () => {
      stopped = true
      await stop?.()
    }
  },
  async join(db, settings) {
    // node-postgres's own client, for the membership connection: loaded only here
    const { joinReplicas } = await import('./replicas.js')
    return await joinReplicas(own(db), settings)
  },
}

let asks = 0

export const postgresDriver: Driver = {
  name: 'PostgreSQL',
  replicas,
  rowLocks: true,
  dueSliceJobs: 500,
  dialect,

  connection: (db) => own(db).poolKey,

  statement<T extends object>(db: Db, make: MakeStatement<T>, slot: WeakMap<object, unknown>) {
    const store = own(db)
    // built once per pool client (or for the pool), when it first runs, and kept with it
    let built = slot.get(store.queryable) as EitherStatement<T> | undefined
    if (!built)
      slot.set(
        store.queryable,
        (built = pgStatement(store, () =>
          make(store.drizzle as Builder, store.tables, dialect),
        ) as EitherStatement<T>),
      )
    return built
  },

  query: (db, method, build) => run(db, method, (b) => build(b, own(db).tables, dialect)),

  transaction: (db, body) => transaction(db, body),

  inTransaction: (db) => own(db).inTransaction,

  insert: (db, table, values, returning) =>
    run(db, returning ? 'get' : 'run', (b) => {
      const insert = b.insert(tableIn(own(db).tables, table)).values(values)
      return returning ? insert.returning() : insert
    }),

  /** The row and its job in one statement: the job's insert a data-modifying CTE of the row's. */
  insertWithJob: (db, table, values, job) =>
    run(db, 'get', (b) => {
      const t = own(db).tables
      const pg = b as unknown as PgBuilder
      const inserted = pg.$with('inserted').as(
        pg
          .insert(asPg(tableIn(t, table)))
          .values(values)
          .returning(),
      )
      const moves = pg.$with('job').as(
        pg.insert(asPg(t.jobs)).values({
          ...job,
          resourceSeq: sql`(SELECT ${sql.identifier('seq')} FROM ${inserted})`,
        }),
      )
      return pg.with(inserted, moves).select().from(inserted)
    }),

  async update(db, table, by, value, changes, returning) {
    const t = own(db).tables
    const update = (b: Builder) =>
      b
        .update(tableIn(t, table))
        .set(changes)
        .where(eq(columnIn(t, table, by), value))
    if (!returning) return await run(db, 'run', update)
    const rows = await run<unknown[]>(db, 'all', (b) => update(b).returning())
    return { changes: rows.length, row: rows[0] }
  },

  insertMany,
  updateManyBySeq,

  async lockName(db, name) {
    await text(own(db), 'SELECT pg_advisory_xact_lock(hashtext($1))', [name])
  },

  async tryLockName(db, name) {
    const { rows } = await text(own(db), 'SELECT pg_try_advisory_xact_lock(hashtext($1)) AS got', [
      name,
    ])
    return (rows[0] as { got: boolean }).got
  },

  async deleteTenantRows(db, table, tenantId, limit) {
    const result = await text(
      own(db),
      `DELETE FROM "${table}" WHERE ctid IN ` +
        `(SELECT ctid FROM "${table}" WHERE tenant_id = $1 LIMIT $2)`,
      [tenantId, limit],
    )
    return result.rowCount ?? 0
  },

  async tenantRowsJson(db, tables, tenantId) {
    const rows: Record<string, unknown[]> = {}
    let count = 0
    for (const table of tables) {
      const result = await text(
        own(db),
        `SELECT * FROM "${table}" WHERE tenant_id = $1 ORDER BY 1`,
        [tenantId],
      )
      rows[table] = result.rows
      count += result.rows.length
    }
    return { json: JSON.stringify(rows), count }
  },

  /**
   * The lineage's rows deleted, and the snapshot's written back under `tenantId`
   * (json_populate_recordset reads them as the table's own row type). A table whose key is an
   * identity then has its sequence moved past the rows written back with their `seq`.
   */
  async restoreTenantRows(db, tables, lineage, tenantId, _seq, rowsJson) {
    const store = own(db)
    const rows = JSON.parse(await rowsJson()) as Record<string, unknown[]>
    for (const table of tables)
      await text(store, `DELETE FROM "${table}" WHERE tenant_id = ANY($1)`, [lineage])
    for (const table of tables) {
      if (!rows[table]?.length) continue
      const columns = columnsOf(store, table)
      const list = columns.map((c) => `"${c}"`).join(', ')
      const selected = columns.map((c) => (c === 'tenant_id' ? '$2' : `"${c}"`)).join(', ')
      await text(
        store,
        `INSERT INTO "${table}" (${list}) SELECT ${selected} ` +
          `FROM json_populate_recordset(NULL::"${table}", $1::json)`,
        [JSON.stringify(rows[table]), tenantId],
      )
      if (columns.includes('seq'))
        await text(
          store,
          `SELECT setval(pg_get_serial_sequence('"${table}"', 'seq'), ` +
            `(SELECT COALESCE(max(seq), 0) FROM "${table}") + 1, false)`,
        )
    }
  },

  // nothing is staged: a restore writes from the stored JSON
  stageSnapshot: async () => {},
  unstageSnapshot: async () => {},

  /**
   * Another replica may write at any time, so a read is kept only under the snapshot a request
   * read with its tenant (readingAt): a later request that reads an equal snapshot is sure no
   * transaction committed in between, anywhere; with this process's own writes since counted
   * in, a request that wrote reads again. Without a snapshot, or in a transaction, nothing is kept.
   */
  writeStamp(db) {
    const { snapshot, writesAt, pg } = db as PgDb
    if (snapshot === undefined || pg.inTransaction || writesAt !== writesHere) return undefined
    return snapshot
  },

  readingAt: (db, snapshot) =>
    snapshot == null
      ? db
      : ({ driver: postgresDriver, pg: own(db), snapshot, writesAt: writesHere } as PgDb),

  // other replicas write unseen: it changes at every ask, so what is kept is read again
  commitsOfOthers: async () => ++asks,

  close: (db) => own(db).close(),
}
