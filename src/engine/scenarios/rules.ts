/**
 * Matching requests against scenario rules (PRODUCT §9), msw's model: the scenarios loaded from
 * files at start apply to every tenant; those posted at run time apply to the posting tenant
 * only and go away on its reset. Counters for `nth` and `times` are per tenant and rule.
 */
import { TOO_MANY_ATTEMPTS, UNAUTHENTICATED } from '../../domain/errors.js'
import type { Edit } from './edit.js'
import type { FieldMatcher, Outcome, Rule, Scenario } from './schema.js'

export type ScenarioRequest = {
  method: string
  path: string
  body: unknown
  token: string
  tenantId: string
}

export type Effects = {
  respond?: { status: number; headers: Record<string, string>; body: unknown }
  latencyMs: number
  drop: boolean
  /** Edits of the answer, in the order the rules matched. */
  edits: Edit[]
  outcome?: { to: Outcome; afterMs?: number }
  /** The rules that matched, `scenario/rule`, for the request log. */
  matched: string[]
}

/** A loaded scenario and where it came from (a file path, or `tenant`). */
export type ActiveScenario = { source: string; scenario: Scenario }

const NO_EFFECTS: Effects = { latencyMs: 0, drop: false, edits: [], matched: [] }

export function createRuleMatcher(random: () => number) {
  const counters = new Map<string, number>()
  const pathPatterns = new Map<string, RegExp>()

  function pathMatches(pattern: string, path: string): boolean {
    let regex = pathPatterns.get(pattern)
    if (!regex) {
      const source = pattern
        .replace(/\/+$/, '')
        .split('/')
        .map((part) =>
          part.startsWith(':')
            ? '[^/]+'
            : part === '*'
              ? '.*'
              : part.replace(/[.*+?^${}()|[\]\\]/g, '\\$&'),
        )
        .join('/')
      regex = new RegExp(`^${source}/?$`)
      pathPatterns.set(pattern, regex)
    }
    return regex.test(path)
  }

  function matches(rule: Rule, request: ScenarioRequest): boolean {
    const { match } = rule
    if (match.method && match.method !== request.method) return false
    if (match.path && !pathMatches(match.path, request.path)) return false
    if (match.tenant && match.tenant !== request.token) return false
    for (const [field, matcher] of Object.entries(match.body ?? {})) {
      if (!fieldMatches(valueAt(request.body, field), matcher)) return false
    }
    return true
  }

  return {
    evaluate(active: ActiveScenario[], request: ScenarioRequest): Effects {
      let effects = NO_EFFECTS
      for (const { source, scenario } of active) {
        for (const [index, rule] of scenario.rules.entries()) {
          if (!matches(rule, request)) continue
          const key = `${request.tenantId}\0${source}\0${scenario.name}\0${index}`
          const count = (counters.get(key) ?? 0) + 1
          counters.set(key, count)
          const { nth, times, rate } = rule.match
          if (nth !== undefined && !(Array.isArray(nth) ? nth : [nth]).includes(count)) continue
          if (times !== undefined && count > times) continue
          if (rate !== undefined && random() >= rate) continue
          effects = merge(effects, rule, `${scenario.name}/${rule.name ?? `rule ${index + 1}`}`)
          if (!rule.continue) return effects
        }
      }
      return effects
    },

    /** Forgets a tenant's counts (its reset). */
    resetCounts(tenantId: string): void {
      for (const key of counters.keys()) if (key.startsWith(`${tenantId}\0`)) counters.delete(key)
    },
  }
}

function merge(effects: Effects, rule: Rule, name: string): Effects {
  return {
    respond:
      effects.respond ??
      (rule.respond && {
        status: rule.respond.status,
        headers: rule.respond.headers ?? {},
        body: rule.respond.body ?? {
          message: defaultMessage(rule.respond.status),
          statusCode: rule.respond.status,
        },
      }),
    latencyMs: effects.latencyMs + (rule.latency ?? 0),
    drop: effects.drop || rule.drop === true,
    edits: rule.edit ? [...effects.edits, rule.edit] : effects.edits,
    outcome: effects.outcome ?? (rule.outcome && { to: rule.outcome, afterMs: rule.outcome_after }),
    matched: [...effects.matched, name],
  }
}

const MESSAGES: Record<number, string> = {
  400: 'Bad Request',
  401: UNAUTHENTICATED,
  403: 'Forbidden',
  404: 'Not Found',
  409: 'Conflict',
  422: 'The given data was invalid.',
  429: TOO_MANY_ATTEMPTS,
  500: 'Server Error',
  502: 'Bad Gateway',
  503: 'Service Unavailable',
  504: 'Gateway Timeout',
}

function defaultMessage(status: number): string {
  return MESSAGES[status] ?? (status >= 500 ? 'Server Error' : 'Error')
}

function valueAt(body: unknown, path: string): unknown {
  let value = body
  for (const key of path.split('.')) {
    if (value === null || typeof value !== 'object') return undefined
    value = (value as Record<string, unknown>)[key]
  }
  return value
}

function fieldMatches(value: unknown, matcher: FieldMatcher): boolean {
  if (matcher === null || typeof matcher !== 'object') return value === matcher
  if ('eq' in matcher && matcher.eq !== undefined && value !== matcher.eq) return false
  if (matcher.in && !matcher.in.includes(value as never)) return false
  if (matcher.pattern !== undefined && !(typeof value === 'string' || typeof value === 'number'))
    return false
  if (matcher.pattern !== undefined && !new RegExp(matcher.pattern).test(String(value)))
    return false
  const ranged =
    matcher.gt !== undefined ||
    matcher.gte !== undefined ||
    matcher.lt !== undefined ||
    matcher.lte !== undefined
  if (!ranged) return true
  if (typeof value !== 'number') return false
  return (
    (matcher.gt === undefined || value > matcher.gt) &&
    (matcher.gte === undefined || value >= matcher.gte) &&
    (matcher.lt === undefined || value < matcher.lt) &&
    (matcher.lte === undefined || value <= matcher.lte)
  )
}
