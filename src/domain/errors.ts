/**
 * The one error type of the domain. HTTP maps each code to a status in src/http/errors.ts;
 * the domain never knows about statuses (PRODUCT §4).
 */
export const ERROR_CODES = [
  'malformed_json',
  'unauthenticated',
  'forbidden',
  'not_found',
  'method_not_allowed',
  'invalid_transition',
  'conflict',
  'payload_too_large',
  'unsupported_media_type',
  'too_many_requests',
  'validation',
  'business_rule',
  'unavailable',
  'internal',
] as const

export type ErrorCode = (typeof ERROR_CODES)[number]

/** Per-field messages, Laravel's `errors` map: `{ "amount": ["The amount field is required."] }`. */
export type FieldErrors = Record<string, string[]>

export type ErrorDetails = {
  errors?: FieldErrors
  allowed?: string[]
  from?: string
  to?: string
  allow?: string[]
}

/** The messages of the refusals whose words never depend on the request, as Laravel words them. */
export const UNAUTHENTICATED = 'Unauthenticated.'
export const MALFORMED_JSON = 'Malformed JSON in request body.'
export const TOO_MANY_ATTEMPTS = 'Too Many Attempts.'

/**
 * An answer the sandbox gives (a refusal, or the 5xx it renders for a fault logged with the
 * fault's own stack): it carries no stack trace, which V8 would capture at every throw (about a
 * tenth of a refused request's time) for no reader. Other errors keep theirs.
 */
export class SandboxError extends Error {
  constructor(
    readonly code: ErrorCode,
    message: string,
    readonly details: ErrorDetails = {},
  ) {
    const limit = Error.stackTraceLimit
    Error.stackTraceLimit = 0
    super(message)
    Error.stackTraceLimit = limit
    this.name = 'SandboxError'
  }
}

/** A reference in a body or path that names nothing of the tenant's (PRODUCT §10). */
export function notFound(field: string, what: string, value: unknown): SandboxError {
  const message = `No ${what} found for ${field} ${JSON.stringify(value)}.`
  return new SandboxError('not_found', message, { errors: { [field]: [message] } })
}

/** A business rule refusal (422) naming the field it is about. */
export function refused(field: string, message: string): SandboxError {
  return new SandboxError('business_rule', message, { errors: { [field]: [message] } })
}
