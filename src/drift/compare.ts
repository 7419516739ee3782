/**
 * One exchange with the real service, compared with what the sandbox answers on the same route
 * and status in its default shapes (quirks on, sdk-compat off): the 200 answer schemas the
 * OpenAPI document is written from (http/v1/answers.ts), the error shape of PRODUCT §4 and the
 * headers every /v1 answer carries. Each difference is one finding. Values that naturally differ
 * (references, names, amounts, instants) are never compared: only keys, types, formats, closed
 * lists, nulls, key order, the status, the envelope's message and the headers are.
 */
import { routeOf, templatesMatching, theContract, type JsonSchema } from './contract.js'
import { ERROR_MESSAGES, IGNORED_HEADERS, IGNORED_PREFIXES, sandboxHeaders } from './messages.js'

export type FindingKind =
  | 'missing-key'
  | 'extra-key'
  | 'type'
  | 'format'
  | 'enum'
  | 'null'
  | 'status'
  | 'message'
  | 'key-order'
  | 'header'
  | 'unknown-route'

/** One difference between the upstream's answer and the sandbox's, at one place of the answer. */
export type Finding = {
  /** Method and the sandbox's route template: `GET /v1/cards/{reference}`. */
  route: string
  /** `$` the whole body, `$.data.card.status`, `$.data[*].status` (any item); `header:<name>`. */
  path: string
  kind: FindingKind
  /** What the upstream sent there (`"absent"` for a missing key or header). */
  upstream: unknown
  /** What the sandbox sends there: a type name, `"absent"`, a closed list, a pattern, a status. */
  sandbox: unknown
}

/** One answer of the real service, as the proxy saw it (the body parsed if JSON). */
export type Exchange = {
  method: string
  path: string
  status: number
  headers: Record<string, string>
  body: unknown
}

// ---------------------------------------------------------------------------------------------
// The comparison

/** Every difference between `exchange` and what the sandbox answers on its route and status. */
export function compareExchange(exchange: Exchange): Finding[] {
  const { route, known } = routeOf(exchange.method, exchange.path)
  if (!known) {
    const pathKnown = templatesMatching(exchange.path).length > 0
    return [
      {
        route,
        path: '$',
        kind: 'unknown-route',
        upstream: exchange.status,
        sandbox: pathKnown ? 405 : 404,
      },
    ]
  }
  const found = theContract().routes.find((r) => `${r.method} ${r.template}` === route)!
  const out = new Findings(route)
  const { status } = exchange
  const success = status >= 200 && status < 300
  if ((success && status !== 200) || (!success && !found.statuses.includes(status)))
    out.add('$', 'status', status, found.statuses)
  compareHeaders(exchange, out)
  if (success) {
    if (found.answer) compareValue(exchange.body, found.answer, '$', out)
    const message = found.message
    const sent = messageOf(exchange.body)
    if (message !== undefined && typeof sent === 'string' && sent !== message)
      out.add('$.message', 'message', sent, message)
  } else {
    compareValue(exchange.body, errorSchema(status), '$', out)
    const message = ERROR_MESSAGES[status]
    const sent = messageOf(exchange.body)
    if (message !== undefined && typeof sent === 'string' && sent !== message)
      out.add('$.message', 'message', sent, message)
  }
  return out.list
}

function messageOf(body: unknown): unknown {
  return body !== null && typeof body === 'object' && !Array.isArray(body)
    ? (body as Record<string, unknown>).message
    : undefined
}

/** PRODUCT §4 (errors.ts errorBody): message, statusCode, `errors` on 422/404, the states on 409. */
function errorSchema(status: number): JsonSchema {
  const schemas = theContract().document.components.schemas
  const base = schemas.Error as { properties: Record<string, JsonSchema> }
  const transition = (schemas.TransitionError.allOf as JsonSchema[])[1] as {
    properties: Record<string, JsonSchema>
  }
  return {
    type: 'object',
    required: ['message', 'statusCode'],
    properties: {
      ...base.properties,
      statusCode: { type: 'integer', const: status },
      ...(status === 409 && transition.properties),
    },
    additionalProperties: false,
  }
}

class Findings {
  readonly list: Finding[] = []
  private readonly seen = new Set<string>()
  constructor(readonly route: string) {}
  add(path: string, kind: FindingKind, upstream: unknown, sandbox: unknown) {
    // an array's items share one path (`[*]`): the first item that differs stands for the rest
    const key = `${kind} ${path}`
    if (this.seen.has(key)) return
    this.seen.add(key)
    this.list.push({ route: this.route, path, kind, upstream, sandbox })
  }
}

function compareHeaders(exchange: Exchange, out: Findings) {
  const sent = new Map(
    Object.entries(exchange.headers).map(([name, value]) => [name.toLowerCase(), String(value)]),
  )
  const expected = sandboxHeaders(exchange.status)
  for (const [name, { says, ok }] of Object.entries(expected)) {
    const value = sent.get(name)
    if (value === undefined) out.add(`header:${name}`, 'header', 'absent', says)
    else if (!ok(value)) out.add(`header:${name}`, 'header', value, says)
  }
  for (const [name, value] of sent) {
    if (name in expected || IGNORED_HEADERS.has(name)) continue
    if (IGNORED_PREFIXES.some((prefix) => name.startsWith(prefix))) continue
    out.add(`header:${name}`, 'header', value, 'absent')
  }
}

function resolve(schema: JsonSchema): JsonSchema {
  let current = schema
  for (let depth = 0; typeof current.$ref === 'string' && depth < 20; depth++) {
    const name = current.$ref.replace('#/components/schemas/', '')
    current = theContract().document.components.schemas[name] ?? {}
  }
  return current
}

const childPath = (path: string, key: string) =>
  /^[A-Za-z_$][\w$]*$/.test(key) ? `${path}.${key}` : `${path}[${JSON.stringify(key)}]`

function jsonType(value: unknown): string {
  if (value === null) return 'null'
  if (Array.isArray(value)) return 'array'
  if (typeof value === 'number') return Number.isInteger(value) ? 'integer' : 'number'
  return typeof value
}

/** What the sandbox sends where `schema` applies, in a word or a list (the finding's `sandbox`). */
function describeSchema(input: JsonSchema): unknown {
  const schema = resolve(input)
  const branches = (schema.anyOf ?? schema.oneOf) as JsonSchema[] | undefined
  if (branches) {
    const described = branches.map(describeSchema)
    return described.every((d) => typeof d === 'string') ? described.join(' or ') : described
  }
  if (schema.const !== undefined) return [schema.const]
  if (Array.isArray(schema.enum)) return schema.enum
  if (schema.not !== undefined) return 'absent'
  const types = typesOf(schema)
  if (types.length === 0) return 'any'
  if (types.length > 1 || types[0] !== 'string') return types.join(' or ')
  const pattern = typeof schema.pattern === 'string' ? schema.pattern : undefined
  if (schema.format === 'uuid') return 'string (uuid)'
  if (pattern) return `string (${PATTERN_NAMES[pattern] ?? pattern})`
  if (typeof schema.format === 'string') return `string (${schema.format})`
  return 'string'
}

/** The timestamp patterns of answers.ts, as people write them. */
const PATTERN_NAMES: Record<string, string> = {
  '^\\d{4}-\\d\\d-\\d\\dT\\d\\d:\\d\\d:\\d\\d\\.\\d{6}Z$': 'YYYY-MM-DDTHH:mm:ss.SSSSSSZ',
  '^\\d{4}-\\d\\d-\\d\\dT\\d\\d:\\d\\d:\\d\\d\\.\\d{3}Z$': 'YYYY-MM-DDTHH:mm:ss.SSSZ',
  '^\\d{4}-\\d\\d$': 'YYYY-MM',
}

/** `type` as zod writes it: one name, or a list (`["string", "null"]` for a nullable string). */
function typesOf(schema: JsonSchema): string[] {
  const type = schema.type
  return Array.isArray(type) ? (type as string[]) : typeof type === 'string' ? [type] : []
}

const allowsNull = (schema: JsonSchema): boolean => {
  const resolved = resolve(schema)
  if (typesOf(resolved).includes('null') || resolved.const === null) return true
  const branches = (resolved.anyOf ?? resolved.oneOf) as JsonSchema[] | undefined
  return branches?.some(allowsNull) ?? false
}

function compareValue(value: unknown, input: JsonSchema, path: string, out: Findings): void {
  let schema = resolve(input)
  if (value === null) {
    if (!allowsNull(schema)) out.add(path, 'null', null, describeSchema(schema))
    return
  }
  if (Array.isArray(schema.type)) {
    // the nullable form: the value is not null, so it is compared with the other type
    const types = typesOf(schema).filter((t) => t !== 'null')
    if (types.length === 1) schema = { ...schema, type: types[0] }
  }
  const branches = (schema.anyOf ?? schema.oneOf) as JsonSchema[] | undefined
  if (branches) {
    const best = closestBranch(value, branches, path, out.route)
    for (const f of best?.list ?? []) out.add(f.path, f.kind, f.upstream, f.sandbox)
    return
  }
  if (schema.not !== undefined) {
    out.add(path, 'extra-key', value, 'absent')
    return
  }
  if (schema.const !== undefined) {
    if (jsonType(value) !== jsonType(schema.const) && typeof value !== typeof schema.const)
      out.add(path, 'type', value, jsonType(schema.const))
    else if (value !== schema.const) out.add(path, 'enum', value, [schema.const])
    return
  }
  const types = typesOf(schema)
  const actual = jsonType(value)
  const typeOk =
    types.length === 0 ||
    types.includes(actual) ||
    (types.includes('number') && actual === 'integer')
  if (!typeOk) {
    out.add(path, 'type', value, describeSchema(schema))
    return
  }
  if (Array.isArray(schema.enum)) {
    if (!schema.enum.includes(value)) out.add(path, 'enum', value, schema.enum)
    return
  }
  if (actual === 'string') {
    const text = value as string
    const pattern = typeof schema.pattern === 'string' ? new RegExp(schema.pattern) : undefined
    if (pattern && !pattern.test(text)) out.add(path, 'format', value, describeSchema(schema))
    return
  }
  if (actual === 'array') {
    const items = schema.items as JsonSchema | undefined
    if (items) for (const item of value as unknown[]) compareValue(item, items, `${path}[*]`, out)
    return
  }
  if (actual === 'object') compareObject(value as Record<string, unknown>, schema, path, out)
}

/**
 * The findings of the branch an answer is in: one it matches, else the one that names the most
 * of the answer's keys (a full-identity create, `data` beside `message`, is not a widget create
 * however its `data` drifted), then the one with the fewest findings.
 */
function closestBranch(
  value: unknown,
  branches: JsonSchema[],
  path: string,
  route: string,
): Findings | undefined {
  let best: { findings: Findings; named: number } | undefined
  for (const branch of branches) {
    if (resolve(branch).type === 'null') continue
    const findings = new Findings(route)
    compareValue(value, branch, path, findings)
    if (findings.list.length === 0) return findings
    const named = keysNamed(value, branch)
    if (
      !best ||
      named > best.named ||
      (named === best.named && findings.list.length < best.findings.list.length)
    )
      best = { findings, named }
  }
  return best?.findings
}

/** How many of an object's keys a schema names (none for a value that is not an object). */
function keysNamed(value: unknown, schema: JsonSchema): number {
  const properties = resolve(schema).properties
  if (value === null || typeof value !== 'object' || Array.isArray(value)) return 0
  if (properties === null || typeof properties !== 'object') return 0
  return Object.keys(value).filter((key) => Object.hasOwn(properties, key)).length
}

function compareObject(
  value: Record<string, unknown>,
  schema: JsonSchema,
  path: string,
  out: Findings,
) {
  const properties = (schema.properties ?? {}) as Record<string, JsonSchema>
  const required = new Set((schema.required ?? []) as string[])
  const additional = schema.additionalProperties as JsonSchema | boolean | undefined
  const known = Object.keys(properties)
  for (const key of known) {
    if (!(key in value) && required.has(key))
      out.add(childPath(path, key), 'missing-key', 'absent', describeSchema(properties[key]))
  }
  for (const [key, inner] of Object.entries(value)) {
    if (key in properties) compareValue(inner, properties[key], childPath(path, key), out)
    else if (additional === false) out.add(childPath(path, key), 'extra-key', inner, 'absent')
    else if (additional && typeof additional === 'object')
      compareValue(inner, additional, `${path}[*]`, out)
  }
  // the order of the keys both sides send, as the documented examples give it
  const upstreamOrder = Object.keys(value).filter((key) => key in properties)
  const sandboxOrder = known.filter((key) => key in value)
  if (upstreamOrder.join() !== sandboxOrder.join())
    out.add(path, 'key-order', upstreamOrder, sandboxOrder)
}
