/**
 * zValidator, wrapped once so that every failure throws into the one error renderer with all
 * bad fields named (STYLE §2.2). A JSON body is first checked for size, media type and syntax
 * (json-body.ts). Bad path parameters are references that name nothing: 404. Each validator
 * remembers what it checks, so that the OpenAPI document is written from the same schemas.
 */
import { zValidator } from '@hono/zod-validator'
import type { Context, ValidationTargets } from 'hono'
import type { AppEnv } from '../env.js'
import type { ZodType } from 'zod'
import { SandboxError } from '../domain/errors.js'
import { fieldErrorsOf, validationError } from './errors.js'
import { refreshTenant } from './middleware/tenant.js'
import { checkJsonBody } from './middleware/json-body.js'

/** What a validator made by `validate()` checks: part of the request, and its schema. */
export type Validation = { target: keyof ValidationTargets; schema: ZodType }

const validations = new WeakMap<object, Validation>()

/** The validation a route handler performs, if it is a validator made by `validate()`. */
export function validationOf(handler: object): Validation | undefined {
  return validations.get(handler)
}

export function validate<Target extends keyof ValidationTargets, Schema extends ZodType>(
  target: Target,
  schema: Schema,
) {
  const validator = zValidator(target, schema, (result) => {
    if (result.success) return
    if (target === 'param') {
      throw new SandboxError('not_found', 'No resource found for this reference.')
    }
    throw validationError(fieldErrorsOf(result.error, result.data))
  })
  if (target !== 'json') return remembered(validator, { target, schema })
  // reading the body waits: the tenant is brought up to date before the handler runs
  const withBodyChecks: typeof validator = (c, next) =>
    checkJsonBody(c as unknown as Context<AppEnv>, () =>
      validator(c, () => {
        refreshTenant(c as unknown as Context<AppEnv>)
        return next()
      }).then(() => undefined),
    )
  return remembered(withBodyChecks, { target, schema })
}

function remembered<Handler extends object>(handler: Handler, validation: Validation): Handler {
  validations.set(handler, validation)
  return handler
}
