/**
 * zValidator, wrapped once so that every failure throws into the one error renderer with all
 * bad fields named (STYLE §2.2). A JSON body is first checked for size, media type and syntax
 * (json-body.ts). Bad path parameters are references that name nothing: 404.
 */
import { zValidator } from '@hono/zod-validator'
import type { Context, ValidationTargets } from 'hono'
import type { AppEnv } from '../env.js'
import type { ZodType } from 'zod'
import { SandboxError } from '../domain/errors.js'
import { fieldErrorsOf, validationError } from './errors.js'
import { checkJsonBody } from './middleware/json-body.js'

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
  if (target !== 'json') return validator
  const withBodyChecks: typeof validator = (c, next) =>
    checkJsonBody(c as unknown as Context<AppEnv>, () => validator(c, next).then(() => undefined))
  return withBodyChecks
}
