/**
 * The validation stage of a route: the route's zod schema on one part of the request, every
 * failure thrown into the one error renderer with all bad fields named (STYLE §2.2). A JSON body
 * is first checked for size, media type, syntax and depth (json-body.ts), then given to the
 * schema as parsed there; the query and path parameters go through @hono/zod-validator.
 * Bad path parameters are references that name nothing: 404. The schemas are synchronous, so
 * they run with `safeParse` rather than the validator's default `safeParseAsync`. Each validator
 * remembers what it checks, so that the OpenAPI document is written from the same schemas.
 */
import { zValidator } from '@hono/zod-validator'
import type { MiddlewareHandler } from 'hono'
import type { AppEnv } from '../wiring/env.js'
import type { z, ZodType } from 'zod'
import { SandboxError } from '../domain/errors.js'
import { fieldErrorsOf, validationError } from './errors.js'
import { refreshTenantAfterBody } from './middleware/tenant.js'
import { readJsonBody } from './middleware/json-body.js'

/** The parts of a request a route validates. */
export type Target = 'json' | 'query' | 'param'

/** What a validator made by `validate()` checks: part of the request, and its schema. */
export type Validation = { target: Target; schema: ZodType }

const validations = new WeakMap<object, Validation>()

/** The validation a route handler performs, if it is a validator made by `validate()`. */
export function validationOf(handler: object): Validation | undefined {
  return validations.get(handler)
}

/** A validator, typed as Hono's are, so that `c.req.valid(target)` is the schema's output. */
type Validator<T extends Target, Schema extends ZodType> = MiddlewareHandler<
  AppEnv,
  string,
  {
    in: { [K in T]: z.input<Schema> }
    out: { [K in T]: z.output<Schema> }
  }
>

export function validate<T extends Target, Schema extends ZodType>(
  target: T,
  schema: Schema,
): Validator<T, Schema> {
  if (target === 'json') {
    const validator = checkedJsonBody(schema) as Validator<T, Schema>
    validations.set(validator, { target, schema })
    return validator
  }
  const checked = zValidator(
    target,
    schema,
    (result) => {
      if (result.success) return
      if (target === 'param')
        throw new SandboxError('not_found', 'No resource found for this reference.')
      throw validationError(fieldErrorsOf(result.error, result.data))
    },
    // synchronous schemas: safeParse, not the default safeParseAsync (types differ by zod build)
    { validationFunction: (s, value) => s.safeParse(value) as never },
  ) as unknown as Validator<T, Schema>
  const validator = target === 'query' ? withoutQueryString(schema, checked) : checked
  validations.set(validator, { target, schema })
  return validator
}

/**
 * A JSON body, checked by json-body.ts and parsed once there, then by the schema; /v1 bodies
 * with their null fields left out. Not through the zod validator: Hono's would build the
 * request's Headers to read its content type and parse the body again.
 */
function checkedJsonBody(schema: ZodType): MiddlewareHandler<AppEnv> {
  return async (c, next) => {
    const body = await readJsonBody(c)
    // reading the body may have waited: the tenant is brought up to date before the handler runs
    await refreshTenantAfterBody(c)
    const result = schema.safeParse(c.req.path.startsWith('/v1/') ? withoutNulls(body) : body)
    if (!result.success) throw validationError(fieldErrorsOf(result.error, body))
    c.req.addValidatedData('json', result.data as object)
    return next()
  }
}

/**
 * A request without a query string (most list reads) takes the schema's answer to `{}`, found
 * once: the validator would parse an empty query and run the schema again on every request.
 * Handlers read what was validated and never change it, so one answer serves them all.
 */
function withoutQueryString<T extends Target, Schema extends ZodType>(
  schema: Schema,
  checked: Validator<T, Schema>,
): Validator<T, Schema> {
  let empty: { success: boolean; data?: unknown } | undefined
  return (c, next) => {
    if (c.req.url.includes('?')) return checked(c, next)
    empty ??= schema.safeParse({})
    if (!empty.success) return checked(c, next)
    c.req.addValidatedData('query', empty.data as object)
    return next()
  }
}

/**
 * A /v1 body with its null fields left out (PRODUCT §4): the real service (Laravel) reads a
 * null as absent, so an optional field sent as null is accepted (alal-php sends `"code": null`
 * on every wallet-to-card) and a required one is reported as missing.
 */
export function withoutNulls(value: unknown): unknown {
  if (!isRecord(value) || !holdsNull(value)) return value
  // no prototype: a field may be called "__proto__"
  const kept: Record<string, unknown> = Object.create(null) as Record<string, unknown>
  for (const [key, field] of Object.entries(value)) {
    if (field !== null) kept[key] = withoutNulls(field)
  }
  return kept
}

const isRecord = (value: unknown): value is Record<string, unknown> =>
  value !== null && typeof value === 'object' && !Array.isArray(value)

/**
 * Whether withoutNulls has anything to leave out: most bodies hold no null, and are then
 * validated as parsed (a copy without a prototype is a slow object for every read after it).
 */
function holdsNull(value: Record<string, unknown>): boolean {
  for (const key in value) {
    const field = value[key]
    if (field === null || (isRecord(field) && holdsNull(field))) return true
  }
  return false
}
