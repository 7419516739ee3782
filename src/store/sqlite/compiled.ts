/**
 * A drizzle prepared statement on SQLite, run without drizzle's per-call work. Drizzle's own
 * `run`, `get` and `all` look at every parameter and every column of every row again on each
 * call (is it a placeholder? which decoder does this column have?), walking prototype chains to
 * answer; the answers never change for a prepared statement, so they are found here once, when
 * it is prepared, and each call only binds values and builds rows. Same results as drizzle's
 * (test/store/sqlite/compiled.test.ts runs both); a statement this does not cover (nested selections,
 * relational queries, a logger) is left to drizzle. Drizzle's nulling of a left join's missing
 * table only ever touches nested selections, so flat ones of any select are covered.
 */
import { Column, is, noopDecoder, Param, Placeholder, SQL } from 'drizzle-orm'
import { NoopLogger } from 'drizzle-orm/logger'

type SqliteStatement = {
  run(...params: unknown[]): unknown
  get(...params: unknown[]): unknown
  all(...params: unknown[]): unknown[]
  raw(toggle?: boolean): SqliteStatement
  source: string
  database: { prepare(sql: string): SqliteStatement }
}

type DrizzlePrepared = {
  stmt: SqliteStatement
  query: { params: unknown[] }
  logger: unknown
  fields?: { path: string[]; field: unknown }[]
  customResultMapper?: unknown
}

type Decoder = { mapFromDriverValue(value: unknown): unknown }
type Values = Record<string, unknown>

const IDENTITY = [Column.prototype.mapFromDriverValue, noopDecoder.mapFromDriverValue]

/** `prepared` with the same methods, run without drizzle's per-call work where it can be. */
export function compiled<T extends object>(prepared: T): T {
  const p = prepared as unknown as DrizzlePrepared
  if (
    !p.stmt ||
    !p.query ||
    !(p.logger instanceof NoopLogger) ||
    p.customResultMapper ||
    p.fields?.some((f) => f.path.length !== 1)
  )
    return prepared
  const bind = binder(p.query.params)
  const stmt = withLimitUnplanned(p.stmt)
  const fast = Object.create(prepared) as Record<string, unknown>
  fast.stmt = stmt
  fast.run = (values?: Values) => stmt.run(...bind(values))
  fast.values = (values?: Values) => stmt.raw().all(...bind(values))
  if (!p.fields) {
    fast.get = (values?: Values) => stmt.get(...bind(values))
    fast.all = (values?: Values) => stmt.all(...bind(values))
    return fast as T
  }
  // rows as arrays from now on, as drizzle reads a statement with fields (it asks on every call)
  stmt.raw(true)
  const toRow = rowMaker(p.fields)
  fast.get = (values?: Values) => {
    const row = stmt.get(...bind(values)) as unknown[] | undefined
    return row === undefined ? undefined : toRow(row)
  }
  fast.all = (values?: Values) => (stmt.all(...bind(values)) as unknown[][]).map(toRow)
  return fast as T
}

/**
 * SQLite (3.47 on) reads the value bound to a bare `limit ?` or `offset ?` when it plans a
 * statement, and marks the statement to be planned again whenever that parameter is bound,
 * which better-sqlite3 does on every run: some 30,000 machine instructions each time a list
 * page is read from the database or a webhook delivery pass looks for due events. `(? + 0)` is
 * the same limit, which the planner leaves alone (our statements' plans are the same either
 * way: an index and its order).
 */
const BOUND_LIMIT = / (limit|offset) \?(?= |$)/g

function withLimitUnplanned(stmt: SqliteStatement): SqliteStatement {
  const unplanned = stmt.source.replace(BOUND_LIMIT, ' $1 (? + 0)')
  return unplanned === stmt.source ? stmt : stmt.database.prepare(unplanned)
}

type Slot =
  { name: string; encoder?: { mapToDriverValue(value: unknown): unknown } } | { constant: unknown }

/** The statement's parameters from a call's placeholder values, as drizzle fills them. */
function binder(params: unknown[]): (values?: Values) => unknown[] {
  const slots = params.map((param): Slot => {
    if (is(param, Placeholder)) return { name: param.name }
    if (is(param, Param) && is(param.value, Placeholder))
      return { name: param.value.name, encoder: param.encoder }
    return { constant: param }
  })
  const none: Values = {}
  return (values = none) => {
    const bound = new Array<unknown>(slots.length)
    for (let i = 0; i < slots.length; i++) {
      const slot = slots[i]
      if ('constant' in slot) {
        bound[i] = slot.constant
        continue
      }
      if (!(slot.name in values))
        throw new Error(`No value for placeholder "${slot.name}" was provided`)
      const value = values[slot.name]
      bound[i] = slot.encoder ? slot.encoder.mapToDriverValue(value) : value
    }
    return bound
  }
}

/**
 * A row object from a raw row, each column through its decoder (null stays null), as drizzle's:
 * one object literal of the row's keys, written once per statement, so that V8 makes each row
 * in one allocation of one shape. Adding the columns one at a time under keys it cannot foresee
 * (`row[key] = value`) walked V8's tree of shapes for every column of every row (callgrind: a
 * card's creation followed by a list page read from the database, 7 % fewer instructions).
 */
function rowMaker(fields: { path: string[]; field: unknown }[]): (raw: unknown[]) => Values {
  const keys = fields.map((f) => f.path[0])
  const decoders = fields.map(({ field }) => {
    const decoder = decoderOf(field)
    return IDENTITY.includes(decoder.mapFromDriverValue) ? undefined : decoder
  })
  const columns = keys.map((key, i) => {
    const value = decoders[i]
      ? `raw[${i}] === null ? null : decoders[${i}].mapFromDriverValue(raw[${i}])`
      : `raw[${i}]`
    return `${JSON.stringify(key)}: ${value}`
  })
  const make = new Function('decoders', `return (raw) => ({ ${columns.join(', ')} })`) as (
    decoders: (Decoder | undefined)[],
  ) => (raw: unknown[]) => Values
  return make(decoders)
}

function decoderOf(field: unknown): Decoder {
  if (is(field, Column)) return field
  if (is(field, SQL)) return (field as unknown as { decoder: Decoder }).decoder
  // SQL.Aliased, a subquery's field: as drizzle's mapResultRow
  const f = field as { sql?: { decoder: Decoder }; _?: { sql: { decoder: Decoder } } }
  return (f._?.sql ?? f.sql)!.decoder
}
