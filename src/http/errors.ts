/**
 * The one place errors become responses (PRODUCT §4): Laravel's shape, JSON always,
 * `{"message", "statusCode"}` plus `errors` naming every bad field on 422 (and on a 404 for a
 * reference sent in a body). A database that cannot be reached (PostgreSQL restarting) is a 503;
 * anything else unexpected is logged and answered as a JSON 500.
 */
import type { Context } from 'hono'
import { HTTPException } from 'hono/http-exception'
import type { ContentfulStatusCode } from 'hono/utils/http-status'
import type { $ZodIssue } from 'zod/v4/core'
import { MALFORMED_JSON, SandboxError, type ErrorCode, type FieldErrors } from '../domain/errors.js'
import { FixtureError } from '../engine/fixtures.js'
import { describeCause, storeUnreachable } from '../store/open.js'
import { sendJson } from './envelope.js'

const STATUS_BY_CODE: Record<ErrorCode, ContentfulStatusCode> = {
  malformed_json: 400,
  unauthenticated: 401,
  forbidden: 403,
  not_found: 404,
  method_not_allowed: 405,
  invalid_transition: 409,
  conflict: 409,
  payload_too_large: 413,
  unsupported_media_type: 415,
  too_many_requests: 429,
  validation: 422,
  business_rule: 422,
  unavailable: 503,
  internal: 500,
}

export function errorBody(error: SandboxError) {
  const status = STATUS_BY_CODE[error.code]
  const { errors, allowed, from, to } = error.details
  return {
    status,
    body: {
      message: error.message,
      statusCode: status,
      ...(errors && { errors }),
      ...(allowed && { from, to, allowed }),
    },
  }
}

export function renderError(c: Context, error: SandboxError): Response {
  const { status, body } = errorBody(error)
  const allow = error.details.allow
  return sendJson(c, body, status, allow && new Headers({ Allow: allow.join(', ') }))
}

export function onError(error: Error, c: Context): Response {
  if (error instanceof SandboxError) return renderError(c, error)
  if (error instanceof HTTPException) {
    // Hono raises these for unreadable bodies (its validator, its body limit).
    const code: ErrorCode = error.status === 413 ? 'payload_too_large' : 'malformed_json'
    const message = error.status === 413 ? PAYLOAD_TOO_LARGE : MALFORMED_JSON
    return renderError(c, new SandboxError(code, message))
  }
  if (error instanceof FixtureError) {
    // the start-up fixture could not seed this tenant: a configuration problem, said plainly
    return renderError(
      c,
      new SandboxError('internal', `The --fixtures data set failed: ${error.message}`),
    )
  }
  if (storeUnreachable(error)) {
    // a team sandbox whose PostgreSQL restarts: nothing wrong with the request, retry it
    console.error(`card-sandbox: the database is unreachable: ${describeCause(error)}`)
    return renderError(c, new SandboxError('unavailable', STORE_UNREACHABLE))
  }
  console.error('card-sandbox: unexpected error', error)
  return renderError(c, new SandboxError('internal', 'Server Error'))
}

export const PAYLOAD_TOO_LARGE = 'The request body is larger than 1 MiB.'

export const STORE_UNREACHABLE = 'The database is unreachable; retry the request shortly.'

/** Laravel's top-level validation message: the first error, and how many more there are. */
export function validationError(errors: FieldErrors): SandboxError {
  const messages = Object.values(errors).flat()
  const more = messages.length - 1
  const message =
    messages[0] + (more > 0 ? ` (and ${more} more error${more === 1 ? '' : 's'})` : '')
  return new SandboxError('validation', message, { errors })
}

/** Every zod issue, flattened into Laravel's per-field map with dot-notation names. */
export function fieldErrorsOf(error: { issues: readonly Issue[] }, input: unknown): FieldErrors {
  // no prototype: a field may be called "constructor" or "__proto__"
  const errors: FieldErrors = Object.create(null)
  for (const issue of error.issues) {
    // a strict object names each key it does not know
    if (issue.code === 'unrecognized_keys') {
      for (const key of issue.keys) {
        const field = [...issue.path.map(String), key].join('.')
        ;(errors[field] ??= []).push(`The ${field.replaceAll('_', ' ')} field is not allowed.`)
      }
      continue
    }
    const field = issue.path.map(String).join('.') || 'body'
    const message = laravelMessage(issue, field, valueAt(input, issue.path))
    const list = (errors[field] ??= [])
    if (!list.includes(message)) list.push(message)
  }
  return errors
}

function valueAt(input: unknown, path: readonly PropertyKey[]): unknown {
  let value = input
  for (const key of path) {
    if (value === null || typeof value !== 'object') return undefined
    value = (value as Record<PropertyKey, unknown>)[key]
  }
  return value
}

type Issue = $ZodIssue

function laravelMessage(issue: Issue, field: string, value: unknown): string {
  const name = `The ${field.replaceAll('_', ' ')} field`
  if (issue.code !== 'custom' && (value === undefined || value === null))
    return `${name} is required.`
  switch (issue.code) {
    case 'invalid_type':
      return `${name} must be ${article(issue.expected)}.`
    case 'too_small':
      if (issue.origin === 'string') {
        return Number(issue.minimum) <= 1
          ? `${name} is required.`
          : `${name} must be at least ${issue.minimum} characters.`
      }
      // `.positive()` reports "more than 0"; every number here is an integer, so say "at least 1".
      return `${name} must be at least ${issue.inclusive ? issue.minimum : Number(issue.minimum) + 1}.`
    case 'too_big':
      if (issue.origin === 'string')
        return `${name} must not be greater than ${issue.maximum} characters.`
      return `${name} must not be greater than ${issue.maximum}.`
    case 'invalid_format':
      if (issue.format === 'uuid') return `${name} must be a valid UUID.`
      if (issue.format === 'email') return `${name} must be a valid email address.`
      if (issue.format === 'url') return `${name} must be a valid URL.`
      if (issue.format === 'phone') return `${name} must be a valid phone number.`
      return `${name} format is invalid.`
    case 'invalid_value':
      return `The selected ${field.replaceAll('_', ' ')} is invalid. Allowed: ${issue.values.map(String).join(', ')}.`
    default:
      return issue.message.startsWith('The ')
        ? issue.message
        : `${name} is invalid: ${issue.message}.`
  }
}

function article(expected: string): string {
  if (expected === 'int' || expected === 'number') return 'an integer'
  if (expected === 'object') return 'an object'
  if (expected === 'array') return 'an array'
  if (expected === 'boolean') return 'true or false'
  return `a ${expected}`
}
