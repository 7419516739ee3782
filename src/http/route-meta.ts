/**
 * What a route declares about itself, beside its handler: whether it needs the bearer token
 * (PRODUCT §3, §10) and what it does. `describeRoute(meta)` goes first in the route's handlers;
 * the OpenAPI document (openapi.ts) reads the declarations back from the app's route table, as
 * it reads the zod schemas of validate.ts. The declaration is plain data that survives bundling
 * (unlike a function's name), and test/auth.test.ts checks every one against what the route
 * answers without a token, so the document cannot call a route public while it answers 401.
 */
import type { MiddlewareHandler } from 'hono'
import type { ZodType } from 'zod'

export type RouteMeta = {
  /** `bearer`: `Authorization: Bearer <token>` or 401; `none`: public (health, docs, hosted pages). */
  auth: 'bearer' | 'none'
  /** What the operation does, in the words of SPEC §4 and PRODUCT §8: the OpenAPI summary. */
  summary: string
  /**
   * The 200 answer's schema in the default shapes (quirks on): every /v1 route declares one
   * (v1/answers.ts); the OpenAPI document shows it, test/http/v1/answers.test.ts checks live answers.
   */
  answer?: ZodType
  /**
   * The envelope's `message` of the 200 answer (SPEC §2.1): every /v1 route declares the one its
   * handler answers with, and drift (drift/contract.ts) compares upstream's with it.
   */
  message?: string
  /** Where the route sends the browser (a 302 instead of a 200). */
  redirect?: string
}

const declarations = new WeakMap<object, RouteMeta>()

/**
 * Declares a route's metadata; a middleware that only passes the request on.
 * @example
 * api.get('/', describeRoute({ auth: 'bearer', summary: 'List cards' }), (c) => …)
 */
export function describeRoute(meta: RouteMeta): MiddlewareHandler {
  const declaration: MiddlewareHandler = (_c, next) => next()
  declarations.set(declaration, meta)
  return declaration
}

/** The metadata a route handler declares, if it is a declaration made by `describeRoute()`. */
export function routeMetaOf(handler: object): RouteMeta | undefined {
  return declarations.get(handler)
}
