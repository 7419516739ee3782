/**
 * The scenario file format (PRODUCT §9), YAML or JSON: a name, delay overrides, and rules.
 * A rule matches requests (method, path with :params, body fields, tenant, nth call, rate) and
 * has effects (respond, latency, drop the connection, edit the handler's answer, force the
 * async outcome of what the request creates). Rules apply in order; the first match wins unless it says `continue`.
 */
import { z } from 'zod'
import { DELAY_NAMES } from '../../domain/schedule.js'
import { parseDuration } from '../../domain/clock.js'
import { editSchema } from './edit.js'

const duration = z.union([z.string(), z.number()]).transform((value, check) => {
  const ms = parseDuration(value)
  if (ms === null) {
    check.addIssue({
      code: 'custom',
      message: 'expected a duration such as "500ms", "5s", "15m" or a number of ms',
    })
    return z.NEVER
  }
  return ms
})

const regex = z.string().refine(
  (source) => {
    try {
      new RegExp(source)
      return true
    } catch {
      return false
    }
  },
  { message: 'expected a valid regular expression' },
)

const scalar = z.union([z.string(), z.number(), z.boolean(), z.null()])

/** A body field matches a value exactly, or a range, a pattern or a list. */
export const fieldMatcher = z.union([
  scalar,
  z
    .strictObject({
      eq: scalar.optional(),
      gt: z.number().optional(),
      gte: z.number().optional(),
      lt: z.number().optional(),
      lte: z.number().optional(),
      pattern: regex.optional(),
      in: z.array(scalar).optional(),
    })
    .refine((m) => Object.keys(m).length > 0, {
      message: 'expected at least one of eq, gt, gte, lt, lte, pattern, in',
    }),
])

const positive = z.number().int().min(1)

/**
 * Why a rule's path can never match, if it cannot: scenarios apply to /v1 requests only (the
 * control plane and the pages are the sandbox's own), so a path must start with /v1, a `*` or
 * a `:param`.
 */
function neverMatches(path: string): string | undefined {
  if (!path.startsWith('/')) return undefined
  const first = path.split('/')[1] ?? ''
  if (first === 'v1' || first === '*' || first.startsWith(':')) return undefined
  if (first === '__sandbox')
    return 'never matches: scenarios apply to /v1 requests, not to the control plane or the pages'
  return `never matches: scenarios apply to /v1 requests only (did you mean /v1${path}?)`
}

export const OUTCOMES = ['failed', 'expired', 'success'] as const

export const ruleSchema = z.strictObject({
  name: z.string().optional(),
  match: z
    .strictObject({
      method: z
        .string()
        .transform((m) => m.toUpperCase())
        .pipe(z.enum(['GET', 'POST', 'PUT', 'PATCH', 'DELETE'])),
      path: z
        .string()
        .startsWith('/', { message: 'expected a path starting with /' })
        .superRefine((path, check) => {
          const hint = neverMatches(path)
          if (hint) check.addIssue({ code: 'custom', message: hint })
        }),
      /** Dot paths for nested fields: `customer.phone`. */
      body: z.record(z.string(), fieldMatcher),
      /** The bearer token of the tenant the rule is for. */
      tenant: z.string().min(1),
      /** Only the nth matching call(s), counted per tenant from 1. */
      nth: z.union([positive, z.array(positive).min(1)]),
      /** Only the first n matching calls. */
      times: positive,
      /** The share of matching calls it applies to, 0 to 1 (seeded). */
      rate: z.number().min(0).max(1),
    })
    .partial()
    .default({}),
  respond: z
    .strictObject({
      status: z.number().int().min(200).max(599),
      headers: z.record(z.string(), z.string()).optional(),
      /** Default: the Laravel error shape `{"message", "statusCode"}`. */
      body: z.unknown().optional(),
    })
    .optional(),
  latency: duration.optional(),
  drop: z.boolean().optional(),
  /** Edits the JSON answer after the handler ran (edit.ts); the resource is still made. */
  edit: editSchema.optional(),
  /** Forces the async outcome of the resource the request creates. */
  outcome: z.enum(OUTCOMES).optional(),
  /** When the forced outcome happens; default: the resource's usual delay. */
  outcome_after: duration.optional(),
  continue: z.boolean().optional(),
})

export const scenarioSchema = z.strictObject({
  name: z.string().min(1),
  description: z.string().optional(),
  delays: z
    .strictObject(Object.fromEntries(DELAY_NAMES.map((name) => [name, duration.optional()])))
    .optional(),
  rules: z.array(ruleSchema).default([]),
})

export type Scenario = z.infer<typeof scenarioSchema>
export type Rule = z.infer<typeof ruleSchema>
export type FieldMatcher = z.infer<typeof fieldMatcher>
export type Outcome = (typeof OUTCOMES)[number]
