/**
 * 404 or 405 for a request no route answered (PRODUCT §4, §10): a known path asked with the
 * wrong method is a 405 with an `Allow` header. A literal path is known by its literal routes
 * alone: `GET /v1/cards/create` is a 405 (Allow: POST) although `GET /v1/cards/:reference`
 * would match it, and literalRoutesFirst keeps that `{reference}` route from answering it.
 */
import type { Hono, MiddlewareHandler } from 'hono'
import { SandboxError } from '../domain/errors.js'

type RoutePattern = { method: string; pattern: RegExp; literal: boolean }

type RouteTable = Pick<Hono, 'routes'>

export function unmatchedRequestError(app: RouteTable) {
  let patterns: RoutePattern[] | undefined
  return function unmatched(method: string, path: string): SandboxError {
    patterns ??= operations(app).map((route) => ({
      method: route.method,
      pattern: toRegExp(route.path),
      literal: isLiteral(route.path),
    }))
    const matching = patterns.filter((r) => r.pattern.test(path))
    const literal = matching.filter((r) => r.literal)
    const allow = [...new Set((literal.length > 0 ? literal : matching).map((r) => r.method))]
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

/**
 * A path some route names literally, asked with a method none of its literal routes has, is a
 * 405 before any `{reference}` route of that method can take it as a reference. One Map lookup
 * per request; the table is read on the first (every route is mounted by then).
 */
export function literalRoutesFirst(app: RouteTable): MiddlewareHandler {
  const unmatched = unmatchedRequestError(app)
  let methodsByPath: Map<string, Set<string>> | undefined
  return function literalRoutesFirst(c, next) {
    methodsByPath ??= literalMethods(app)
    const path = c.req.path
    const methods = methodsByPath.get(path.endsWith('/') ? path.replace(/\/+$/, '') : path)
    if (methods && !methods.has(c.req.method)) throw unmatched(c.req.method, path)
    return next()
  }
}

function operations(app: RouteTable) {
  return app.routes.filter((route) => route.method !== 'ALL')
}

function isLiteral(path: string): boolean {
  return !path.includes(':') && !path.includes('*')
}

function literalMethods(app: RouteTable): Map<string, Set<string>> {
  const methods = new Map<string, Set<string>>()
  for (const route of operations(app)) {
    if (!isLiteral(route.path)) continue
    const path = route.path.replace(/\/+$/, '')
    let set = methods.get(path)
    if (!set) methods.set(path, (set = new Set()))
    set.add(route.method)
  }
  return methods
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
