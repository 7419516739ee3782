/**
 * A statement on PostgreSQL (store/driver.ts statement): built once by the same drizzle builder
 * as on SQLite, on the driver's tables, made a named statement of PostgreSQL's (each connection
 * parses and plans it once) and run without drizzle's per-execute work, with SQLite's statement
 * methods (`get`, `all`, `run`).
 */
import { Column, DrizzleQueryError, is, Param, Placeholder, SQL, Subquery } from 'drizzle-orm'
import type { PgStore } from './open.js'
import { changesOf, writes } from './transactions.js'

/** A drizzle prepared query of node-postgres. */
type PgPrepared = { execute(values?: Record<string, unknown>): Promise<unknown> }

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
export function pgStatement(store: PgStore, build: () => unknown) {
  let prepared: PgPrepared | undefined
  let writing = true
  const execute = async (values?: Record<string, unknown>) => {
    await store.ready
    if (!prepared) {
      const built = named(build() as PgPrepared)
      writing = !/^select /.test(
        (built as unknown as PgPreparedParts).queryConfig?.text ?? 'unknown',
      )
      prepared = direct(built)
    }
    const result = await prepared.execute(values)
    if (writing && !store.inTransaction) writes.here++
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
