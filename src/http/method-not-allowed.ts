/**
 * 404 or 405 for a request no route answered (PRODUCT §4, §10): a known path asked with the
 * wrong method is a 405 with an `Allow` header.
 */
import type { Hono } from 'hono'
import { SandboxError } from '../domain/errors.js'

type RoutePattern = { method: string; pattern: RegExp }

export function unmatchedRequestError(app: Pick<Hono, 'routes'>) {
  let patterns: RoutePattern[] | undefined
  return function unmatched(method: string, path: string): SandboxError {
    patterns ??= app.routes
      .filter((route) => route.method !== 'ALL')
      .map((route) => ({ method: route.method, pattern: toRegExp(route.path) }))
    const allow = [...new Set(patterns.filter((r) => r.pattern.test(path)).map((r) => r.method))]
    if (allow.length > 0 && !allow.includes(method)) {
      return new SandboxError(
        'method_not_allowed',
        `The ${method} method is not supported for this route. Supported methods: ${allow.join(', ')}.`,
        { allow },
      )
    }
    return new SandboxError('not_found', `The route ${path} could not be found.`)
  }
}

function toRegExp(path: string): RegExp {
  const source = path
    .replace(/\/+$/, '')
    .split('/')
    .map((segment) =>
      segment.startsWith(':') ? '[^/]+' : segment.replace(/[.*+?^${}()|[\]\\]/g, '\\$&'),
    )
    .join('/')
  return new RegExp(`^${source}/?$`)
}
