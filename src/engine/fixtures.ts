/**
 * Fixtures (PRODUCT §9): named data sets that seed a tenant. A fixture is a list of API calls,
 * run in order through the sandbox's own HTTP app, so seeded data passes every rule a client's
 * data does (verification, ledger, lifecycles). A step can name its answer (`as`) and later
 * steps use it: `{{user.data.userCard.reference}}`. With `--seed`, a fixture repeats exactly.
 */
import { readdirSync, readFileSync } from 'node:fs'
import { z } from 'zod'
import { packageFile } from '../lib/package-files.js'

export const FIXTURES_DIR = packageFile('fixtures') + '/'

export const fixtureSchema = z.strictObject({
  name: z.string().min(1),
  description: z.string().optional(),
  steps: z
    .array(
      z
        .strictObject({
          /** `METHOD /path`, the path under the sandbox's origin (`/v1/...`, `/__sandbox/...`). */
          call: z.string().regex(/^(GET|POST|PUT|PATCH|DELETE) \/\S*$/, 'expected "METHOD /path"'),
          body: z.unknown().optional(),
          as: z
            .string()
            .regex(/^[A-Za-z_]\w*$/)
            .optional(),
        })
        .refine((step) => !(step.call.startsWith('GET ') && step.body !== undefined), {
          path: ['body'],
          message: 'a GET step takes no body',
        }),
    )
    .min(1),
})

export type Fixture = z.infer<typeof fixtureSchema>

export class FixtureError extends Error {
  override name = 'FixtureError'
  constructor(
    message: string,
    /** A step answered 503: the store could not be reached, nothing wrong with the fixture. */
    readonly storeUnreachable = false,
  ) {
    super(message)
  }
}

/** The names of the fixtures of fixtures/ (their file names without `.json`), sorted. */
function fixtureNames(): string[] {
  return readdirSync(FIXTURES_DIR)
    .filter((file) => file.endsWith('.json'))
    .map((file) => file.slice(0, -'.json'.length))
    .sort()
}

/** The fixtures of fixtures/, by name, each with its description's first sentence. */
export function knownFixtures(): { name: string; description: string | null }[] {
  return fixtureNames().map((name) => ({
    name,
    description: loadFixture(name).description?.split(/(?<=\.)\s/)[0] ?? null,
  }))
}

/** A fixture by name (a file of fixtures/) or by path to a JSON file. */
export function loadFixture(nameOrPath: string): Fixture {
  const byName = !/[/\\]|\.json$/.test(nameOrPath)
  const path = byName ? `${FIXTURES_DIR}${nameOrPath}.json` : nameOrPath
  let text: string
  try {
    text = readFileSync(path, 'utf8')
  } catch {
    const known = byName ? ` (known: ${fixtureNames().join(', ')})` : ''
    throw new FixtureError(`no fixture "${nameOrPath}" (looked for ${path})${known}`)
  }
  let json: unknown
  try {
    json = JSON.parse(text)
  } catch (error) {
    throw new FixtureError(`${path}: not valid JSON: ${(error as Error).message}`)
  }
  return parseFixture(json, path)
}

export function parseFixture(value: unknown, source: string): Fixture {
  const result = fixtureSchema.safeParse(value)
  if (result.success) return result.data
  const issue = result.error.issues[0]
  throw new FixtureError(`${source}: ${issue.path.join('.') || '(top level)'}: ${issue.message}`)
}

export type Call = (
  method: string,
  path: string,
  body: unknown,
) => Promise<{ status: number; body: unknown }>

/** Runs a fixture's steps in order; stops at the first step that does not answer 2xx. */
export async function applyFixture(fixture: Fixture, call: Call): Promise<number> {
  const named: Record<string, unknown> = {}
  for (const [index, step] of fixture.steps.entries()) {
    const [method, rawPath] = step.call.split(' ')
    const where =
      `fixture ${fixture.name}, step ${index + 1} (call "${step.call}"` +
      `${step.as ? `, as "${step.as}"` : ''})`
    const path = fill(rawPath, named, `${where}, in its path`) as string
    const res = await call(method, path, fill(step.body, named, where))
    if (res.status < 200 || res.status > 299) {
      const answer = res.body as { message?: string; errors?: Record<string, string[]> } | null
      // each refused field and what it expected, as the route's validation says it
      const fields = Object.entries(answer?.errors ?? {}).map(
        ([field, messages]) => `${field}: ${messages.join(' ')}`,
      )
      throw new FixtureError(
        `fixture ${fixture.name}, step ${index + 1} (${method} ${path}) answered ${res.status}: ` +
          (fields.length ? fields.join('; ') : (answer?.message ?? 'no message')),
        res.status === 503,
      )
    }
    if (step.as) named[step.as] = res.body
  }
  return fixture.steps.length
}

/**
 * Replaces `{{name.path}}` in every string of a value with what an earlier step answered; a
 * reference that finds nothing, or an object, fails naming the step (`where`), the body field it
 * is in (`field`, in dot notation: `customer.phone`), the reference and what the answer holds
 * where the path stops.
 */
function fill(
  value: unknown,
  named: Record<string, unknown>,
  where: string,
  field?: string,
): unknown {
  if (typeof value === 'string') {
    const place = field === undefined ? where : `${where}, body field ${field}`
    return value.replace(/\{\{\s*([\w.]+)\s*\}\}/g, (_, path: string) => {
      const found = lookup(path, named, place)
      if (found !== null && typeof found === 'object') {
        throw new FixtureError(
          `${place}: {{${path}}} is an object, not a value: name one of its fields ` +
            `(${keysOf(found)})`,
        )
      }
      return String(found as string | number | boolean | null)
    })
  }
  const inside = (key: string | number) => (field === undefined ? `${key}` : `${field}.${key}`)
  if (Array.isArray(value)) return value.map((item, i) => fill(item, named, where, inside(i)))
  if (value && typeof value === 'object') {
    return Object.fromEntries(
      Object.entries(value).map(([key, item]) => [key, fill(item, named, where, inside(key))]),
    )
  }
  return value
}

/** What `path` (`user.data.userCard.reference`) names among the answers so far. */
function lookup(path: string, named: Record<string, unknown>, where: string): unknown {
  const [name, ...keys] = path.split('.')
  if (!Object.hasOwn(named, name)) {
    const names = Object.keys(named)
    throw new FixtureError(
      `${where}: {{${path}}} names no answer: no earlier step has as "${name}" ` +
        `(${names.length ? `answers named so far: ${names.join(', ')}` : 'no earlier step has an as'})`,
    )
  }
  let value = named[name]
  for (const [depth, key] of keys.entries()) {
    if (value === null || typeof value !== 'object' || !Object.hasOwn(value, key)) {
      const at = depth === 0 ? 'at its top' : `at ${keys.slice(0, depth).join('.')}`
      throw new FixtureError(
        `${where}: {{${path}}} names nothing: the answer named ${name} has no "${key}" ${at}, ` +
          `where it holds ${describeValue(value)}`,
      )
    }
    value = (value as Record<string, unknown>)[key]
  }
  return value
}

/** What a step's answer holds at a place, for an error: its fields, or the value itself. */
function describeValue(value: unknown): string {
  if (Array.isArray(value))
    return value.length ? `a list of ${value.length} (0 to ${value.length - 1})` : 'an empty list'
  if (value !== null && typeof value === 'object') return keysOf(value)
  return JSON.stringify(value) ?? String(value)
}

function keysOf(value: object): string {
  const keys = Object.keys(value)
  return keys.length ? `fields ${keys.join(', ')}` : 'no fields'
}
