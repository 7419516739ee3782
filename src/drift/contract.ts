/**
 * The sandbox's /v1 contract as drift compares with it: every route's method, template, statuses
 * and 200 answer schema, read once from the OpenAPI document of the /v1 routes (http/openapi.ts),
 * the 200 answer's message each route declares (http/route-meta.ts), and which route a request
 * takes.
 */
import { Hono } from 'hono'
import {
  documentedRoutes,
  openApiDocument,
  openApiPath,
  type OpenApiDocument,
} from '../http/openapi.js'
import { createV1Api } from '../http/v1/index.js'

/** A JSON Schema of the OpenAPI document (openapi.ts's; named here, the declarations stay plain). */
export type JsonSchema = { [keyword: string]: unknown }

export type Route = {
  method: string
  template: string
  segments: string[]
  /** The documented statuses: 200 and the error statuses the route can give. */
  statuses: number[]
  answer: JsonSchema | undefined
  /** The envelope's `message` of the 200 answer, as the route declares it. */
  message: string | undefined
}

type Contract = { document: OpenApiDocument; routes: Route[] }

let contract: Contract | undefined

/**
 * Built on first use from the /v1 routes alone, in the sandbox's default shapes (`--quirks on`):
 * the OpenAPI document reads what each route declares, so no database is opened.
 */
export function theContract(): Contract {
  if (contract) return contract
  const v1 = new Hono().route('/v1', createV1Api({ quirks: true }))
  const document = openApiDocument(v1)
  const messages = new Map(
    documentedRoutes(v1).map((r) => [`${r.method} ${openApiPath(r.path)}`, r.meta?.message]),
  )
  const routes: Route[] = []
  for (const [template, item] of Object.entries(document.paths)) {
    if (!template.startsWith('/v1/')) continue
    const route = trimmed(template)
    for (const [method, operation] of Object.entries(item)) {
      const ok = operation.responses['200']
      const schema = ok && 'content' in ok ? ok.content?.['application/json']?.schema : undefined
      routes.push({
        method: method.toUpperCase(),
        template: route,
        segments: route.split('/'),
        statuses: Object.keys(operation.responses).map(Number),
        answer: schema,
        message: messages.get(`${method.toUpperCase()} ${route}`),
      })
    }
  }
  contract = { document, routes }
  return contract
}

function trimmed(template: string): string {
  return template.length > 1 ? template.replace(/\/+$/, '') : template
}

const isParameter = (segment: string) => segment.startsWith('{') && segment.endsWith('}')

export function templatesMatching(path: string): Route[] {
  const segments = path.replace(/\?.*$/, '').replace(/\/+$/, '').split('/')
  return theContract().routes.filter(
    (route) =>
      route.segments.length === segments.length &&
      route.segments.every(
        (segment, i) => segment === segments[i] || (isParameter(segment) && segments[i] !== ''),
      ),
  )
}

/**
 * The sandbox's route for a request, as it routes it: a path some route names literally is never
 * taken for a `{reference}` (`GET /v1/cards/create` is a 405, not a card); undefined when the
 * sandbox does not answer it (404 or 405).
 */
export function routeOf(method: string, path: string): { route: string; known: boolean } {
  const upper = method.toUpperCase()
  const candidates = templatesMatching(path)
  const literalness = (route: Route) => route.segments.filter((s) => !isParameter(s)).length
  const best = Math.max(-1, ...candidates.map(literalness))
  const found = candidates.find((r) => literalness(r) === best && r.method === upper)
  if (found) return { route: `${upper} ${found.template}`, known: true }
  return { route: `${upper} ${path.replace(/\?.*$/, '')}`, known: false }
}
