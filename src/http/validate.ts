/**
 * The validation stage of a route: its zod schema applied to one part of the request, every
 * failure thrown into the one error renderer with all bad fields named (STYLE §2.2). A JSON body
 * is first checked for size, media type and syntax (json-body.ts), and that parse is the one the
 * schema checks. Bad path parameters are references that name nothing: 404. Each validator
 * remembers what it checks, so that the OpenAPI document is written from the same schemas.
 *
 * What Hono's validator (and @hono/zod-validator's) would do, without its cost on every request:
 * the schemas are synchronous, so `safeParse` rather than `safeParseAsync`, and the body is not
 * parsed a second time. The checked value is handed to the handler as Hono's would be
 * (`c.req.valid(target)`).
 */
import type { Context, MiddlewareHandler, ValidationTargets } from 'hono'
import type { AppEnv } from '../env.js'
import type { z, ZodType } from 'zod'
import { SandboxError } from '../domain/errors.js'
import { fieldErrorsOf, validationError } from './errors.js'
import { refreshTenant } from './middleware/tenant.js'
import { readJsonBody } from './middleware/json-body.js'

/** The parts of a request a route validates. */
export type Target = 'json' | 'query' | 'param'

/** What a validator made by `validate()` checks: part of the request, and its schema. */
export type Validation = { target: keyof ValidationTargets; schema: ZodType }

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
  const check = (c: Context<AppEnv>, value: unknown) => {
    const result = schema.safeParse(value)
    if (!result.success) {
      if (target === 'param')
        throw new SandboxError('not_found', 'No resource found for this reference.')
      throw validationError(fieldErrorsOf(result.error, value))
    }
    c.req.addValidatedData(target, result.data as object)
  }
  const validator: Validator<T, Schema> =
    target === 'json'
      ? async (c, next) => {
          check(c, await readJsonBody(c))
          // reading the body waits: the tenant is brought up to date before the handler runs
          refreshTenant(c)
          await next()
        }
      : (c, next) => {
          check(c, target === 'query' ? queryOf(c) : c.req.param())
          return next()
        }
  validations.set(validator, { target, schema })
  return validator
}

/** The query as Hono's validator reads it: a repeated name's values as a list. */
function queryOf(c: Context<AppEnv>): Record<string, string | string[]> {
  if (!c.req.url.includes('?')) return {}
  return Object.fromEntries(
    Object.entries(c.req.queries()).map(([name, values]) => [
      name,
      values.length === 1 ? values[0] : values,
    ]),
  )
}
