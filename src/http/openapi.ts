/**
 * The OpenAPI 3.1 document of the sandbox (PRODUCT §8, `GET /__sandbox/openapi.json`), written
 * from the app itself: its routes come from Hono's `app.routes`, their parameters and bodies
 * from the zod schemas their validators check (validate.ts), and whether they need the token and
 * their summaries from what each declares (route-meta.ts), so the document cannot drift from
 * what the sandbox accepts. Built once per app, on first use.
 */
import { PACKAGE_VERSION } from '../lib/package-files.js'
import type { Hono } from 'hono'
import { z, type ZodType } from 'zod'
import { routeMetaOf, type RouteMeta } from './route-meta.js'
import * as v1Answers from './v1/answers.js'
import { validationOf, type Validation } from './validate.js'

export type JsonSchema = { [keyword: string]: unknown }

export type Parameter = {
  name: string
  in: 'path' | 'query'
  required: boolean
  description?: string
  schema: JsonSchema
}

export type Reference = { $ref: string }

export type Response = {
  description: string
  content?: Record<string, { schema: JsonSchema }>
}

export type Operation = {
  tags: string[]
  summary: string
  operationId: string
  deprecated?: boolean
  security?: Record<string, string[]>[]
  parameters?: Parameter[]
  requestBody?: {
    required: boolean
    content: Record<string, { schema: JsonSchema; example?: unknown }>
  }
  responses: Record<string, Response | Reference>
}

export type OpenApiDocument = {
  openapi: '3.1.0'
  info: { title: string; version: string; description: string }
  jsonSchemaDialect: string
  tags: { name: string; description?: string }[]
  security: Record<string, string[]>[]
  paths: Record<string, Record<string, Operation>>
  components: {
    securitySchemes: Record<string, unknown>
    schemas: Record<string, JsonSchema>
    responses: Record<string, Response>
  }
}

/** Any app, whatever its env and routes: the builder reads only its route table. */
export type RoutedApp = Pick<Hono, 'routes'>

const documents = new WeakMap<RoutedApp, OpenApiDocument>()

/** The document of every route of `app` (cached: routes are all mounted by the first request). */
export function openApiDocument(app: RoutedApp): OpenApiDocument {
  let document = documents.get(app)
  if (!document) {
    document = buildDocument(app)
    documents.set(app, document)
  }
  return document
}

// ---------------------------------------------------------------------------------------------
// Routes, as Hono holds them

/** One method on one path: what its handlers validate, and what it declares (route-meta.ts). */
export type DocumentedRoute = {
  method: string
  path: string
  validations: Validation[]
  /** Absent only on a route that never called `describeRoute()` (a test guards the sandbox's). */
  meta?: RouteMeta
}

/** Methods an OpenAPI path item can hold; Hono's `ALL` entries are middleware. */
const OPERATION_METHODS = new Set(['GET', 'PUT', 'POST', 'DELETE', 'OPTIONS', 'HEAD', 'PATCH'])

/**
 * The route table: Hono lists each handler of a route as its own entry (its declaration, its
 * validators, then the handler), and each `app.use()` as an `ALL` entry, which is skipped.
 */
export function documentedRoutes(app: RoutedApp): DocumentedRoute[] {
  const routes = new Map<string, DocumentedRoute>()
  for (const entry of app.routes) {
    if (!OPERATION_METHODS.has(entry.method)) continue
    const key = `${entry.method} ${entry.path}`
    let route = routes.get(key)
    if (!route) {
      route = { method: entry.method, path: entry.path, validations: [] }
      routes.set(key, route)
    }
    const validation = validationOf(entry.handler)
    if (validation) route.validations.push(validation)
    route.meta ??= routeMetaOf(entry.handler)
  }
  return [...routes.values()]
}

// ---------------------------------------------------------------------------------------------
// The document

const SANDBOX_PREFIX = '/__sandbox'
const SANDBOX_TAG = 'sandbox'

function buildDocument(app: RoutedApp): OpenApiDocument {
  const components = sharedComponents()
  const paths: OpenApiDocument['paths'] = {}
  const tags = new Set<string>()
  for (const route of documentedRoutes(app)) {
    const operation = operationOf(route, components.schemas)
    tags.add(operation.tags[0])
    const item = (paths[openApiPath(route.path)] ??= {})
    item[route.method.toLowerCase()] = operation
  }
  return {
    openapi: '3.1.0',
    info: {
      title: 'card-sandbox',
      version: PACKAGE_VERSION,
      description:
        'Local, offline, stateful sandbox of the card-issuing, mobile-money wallet and ' +
        'disbursement API (/v1) and its control plane (/__sandbox). Any bearer token is a ' +
        'tenant of its own, unless the sandbox was started with --tokens.',
    },
    jsonSchemaDialect: 'https://json-schema.org/draft/2020-12/schema',
    tags: [...tags].map((name) => ({
      name,
      ...(TAG_DESCRIPTIONS[name] && { description: TAG_DESCRIPTIONS[name] }),
    })),
    security: [{ bearerAuth: [] }],
    paths,
    components,
  }
}

const TAG_DESCRIPTIONS: Record<string, string> = {
  [SANDBOX_TAG]:
    'The control plane (PRODUCT §8): clock, state transitions, funding, webhooks, scenarios, ' +
    'pages. Same bearer token, same tenant.',
}

/** A route that declares nothing falls under the document's default: the bearer token. */
const secured = (route: DocumentedRoute) => route.meta?.auth !== 'none'

function operationOf(route: DocumentedRoute, schemas: Record<string, JsonSchema>): Operation {
  const { method, path } = route
  const body = route.validations.find((v) => v.target === 'json')
  const parameters = [
    ...pathParameters(route, schemas),
    ...route.validations
      .filter((v) => v.target === 'query')
      .flatMap((v) => parametersOf(v, schemas)),
  ]
  const doubledPrefix = path.startsWith('/v1/v1/')
  return {
    tags: [tagOf(path)],
    summary: summaryOf(route),
    operationId: operationIdOf(method, path),
    ...(doubledPrefix && { deprecated: true }),
    ...(!secured(route) && { security: [] }),
    ...(parameters.length > 0 && { parameters }),
    ...(body && { requestBody: requestBodyOf(body, schemas) }),
    responses: responsesOf(route, body !== undefined, schemas),
  }
}

/** `/v1/cards/:reference` → `/v1/cards/{reference}`; a `*` is the rest of the path. */
export function openApiPath(path: string): string {
  return path
    .split('/')
    .map((segment) => {
      const name = parameterName(segment)
      return name === undefined ? segment : `{${name}}`
    })
    .join('/')
}

/** `:reference`, `:id{[0-9]+}`, `:id?` name a parameter; `*` is named `path`. */
function parameterName(segment: string): string | undefined {
  if (segment === '*') return 'path'
  if (!segment.startsWith(':')) return undefined
  return segment
    .slice(1)
    .replace(/\{.*\}$/, '')
    .replace(/\?$/, '')
}

function tagOf(path: string): string {
  if (path === '/' || path.startsWith('/favicon.')) return SANDBOX_TAG
  if (path === SANDBOX_PREFIX || path.startsWith(SANDBOX_PREFIX + '/')) return SANDBOX_TAG
  const segments = path.split('/').filter((segment) => segment !== '' && segment !== 'v1')
  return segments[0] ?? 'root'
}

/** `POST /v1/disputes/update/:reference` → `postV1DisputesUpdateByReference`. */
export function operationIdOf(method: string, path: string): string {
  const words = openApiPath(path)
    .split('/')
    .filter(Boolean)
    .map((segment) => segment.replace(/^\{(.*)\}$/, 'by-$1'))
    .flatMap((segment) => segment.split(/[^A-Za-z0-9]+/))
    .filter(Boolean)
  return method.toLowerCase() + words.map((w) => w[0].toUpperCase() + w.slice(1)).join('')
}

// ---------------------------------------------------------------------------------------------
// Parameters and bodies, from the zod schemas

/** Every `{name}` of the path: typed by the route's `param` schema, or a plain string. */
function pathParameters(route: DocumentedRoute, schemas: Record<string, JsonSchema>): Parameter[] {
  const validation = route.validations.find((v) => v.target === 'param')
  const fromSchema = validation ? parametersOf(validation, schemas) : []
  return route.path
    .split('/')
    .map(parameterName)
    .filter((name): name is string => name !== undefined)
    .map((name) => {
      const parameter: Parameter = fromSchema.find((p) => p.name === name) ?? {
        name,
        in: 'path',
        required: true,
        schema: { type: 'string' },
      }
      return { ...parameter, in: 'path', required: true }
    })
}

/** One parameter per property of an object schema (query or path). */
function parametersOf(validation: Validation, schemas: Record<string, JsonSchema>): Parameter[] {
  const schema = jsonSchemaOf(validation.schema, schemas)
  const properties = (schema.properties ?? {}) as Record<string, JsonSchema>
  const readAs = propertiesReadAs(validation.schema)
  const required = (schema.required ?? []) as string[]
  const location = validation.target === 'param' ? 'path' : 'query'
  return Object.entries(properties).map(([name, property]) => {
    const { description, ...propertySchema } = parameterSchema(property, readAs[name])
    return {
      name,
      in: location,
      required: location === 'path' || required.includes(name),
      ...(typeof description === 'string' && { description }),
      schema: propertySchema,
    }
  })
}

/**
 * A parameter travels as text, and OpenAPI types it by the value that text carries: one the route
 * reads as a number (`page`: its digits, then a number from 1) is documented as that number,
 * bounds included, so that a client generated from the document sends `page: 1`. Any other keeps
 * the schema of its text.
 */
function parameterSchema(sent: JsonSchema, read: JsonSchema | undefined): JsonSchema {
  const readAsNumber = read?.type === 'integer' || read?.type === 'number'
  return sent.type === 'string' && readAsNumber ? read : sent
}

/** The properties of an object schema as the route reads them: the output of their transforms. */
function propertiesReadAs(schema: ZodType): Record<string, JsonSchema> {
  const output = z.toJSONSchema(schema, {
    target: 'draft-2020-12',
    io: 'output',
    unrepresentable: 'any',
  }) as JsonSchema
  return (output.properties ?? {}) as Record<string, JsonSchema>
}

/** The body's schema, and the example it carries (`withExample`, v1/schemas.ts) beside it. */
function requestBodyOf(validation: Validation, schemas: Record<string, JsonSchema>) {
  // read from zod's registry: its JSON Schema leaves examples out of a schema that transforms
  const examples = z.globalRegistry.get(validation.schema)?.examples
  const example = Array.isArray(examples) ? (examples[0] as unknown) : undefined
  const { examples: _inSchema, ...schema } = jsonSchemaOf(validation.schema, schemas)
  return {
    required: true,
    content: { 'application/json': { schema, ...(example !== undefined && { example }) } },
  }
}

/**
 * The input side of a zod schema (a body as sent, before its transforms), as JSON Schema
 * 2020-12, the dialect of OpenAPI 3.1. Definitions zod pulls out (`$defs`: shared or recursive
 * schemas) move to the document's components, where their references can reach them.
 */
export function jsonSchemaOf(
  schema: ZodType,
  schemas: Record<string, JsonSchema>,
  io: 'input' | 'output' = 'input',
): JsonSchema {
  const converted = z.toJSONSchema(schema, {
    target: 'draft-2020-12',
    io,
    unrepresentable: 'any',
  }) as JsonSchema
  const { $schema: _dialect, $defs, ...root } = converted
  const definitions = ($defs ?? {}) as Record<string, JsonSchema>
  if (Object.keys(definitions).length === 0 && !hasReference(root, '#')) return root
  // a recursive root refers to itself as `#`: it becomes a component too
  const prefix = `Schema${Object.keys(schemas).length + 1}`
  const rename = (ref: string) =>
    ref === '#'
      ? `#/components/schemas/${prefix}`
      : ref.replace(
          /^#\/\$defs\/(.*)$/,
          (_, name: string) => `#/components/schemas/${prefix}.${componentName(name)}`,
        )
  for (const [name, definition] of Object.entries(definitions))
    schemas[`${prefix}.${componentName(name)}`] = withReferences(definition, rename)
  schemas[prefix] = withReferences(root, rename)
  return { $ref: `#/components/schemas/${prefix}` }
}

function componentName(name: string): string {
  return name.replace(/[^A-Za-z0-9._-]/g, '_')
}

/** Whether a `$ref` to `ref` is anywhere in `value` (an array's entries are its items). */
function hasReference(value: unknown, ref: string): boolean {
  if (value === null || typeof value !== 'object') return false
  return Object.entries(value).some(([key, inner]) =>
    key === '$ref' ? inner === ref : hasReference(inner, ref),
  )
}

function withReferences<T>(value: T, rename: (ref: string) => string): T {
  if (Array.isArray(value)) return value.map((item) => withReferences(item, rename)) as T
  if (value === null || typeof value !== 'object') return value
  return Object.fromEntries(
    Object.entries(value).map(([key, inner]) => [
      key,
      key === '$ref' && typeof inner === 'string' ? rename(inner) : withReferences(inner, rename),
    ]),
  ) as T
}

// ---------------------------------------------------------------------------------------------
// Responses

/** What a route answers with: JSON but for the pages (GET), scripts and icon of the sandbox. */
export function responseMediaType(method: string, path: string): string {
  if (path.endsWith('.js')) return 'application/javascript'
  if (path.endsWith('.svg')) return 'image/svg+xml'
  if (path.endsWith('.ico')) return 'image/x-icon'
  if (path.endsWith('.json') || method !== 'GET') return 'application/json'
  const isPage = HTML_PAGES.some((page) => path === page || path.startsWith(page + '/'))
  return isPage ? 'text/html' : 'application/json'
}

const HTML_PAGES = [
  '/__sandbox/docs',
  '/__sandbox/ui',
  '/__sandbox/checkout',
  '/__sandbox/verify',
  '/__sandbox/card-reveal',
]

const MUTATING = new Set(['POST', 'PUT', 'PATCH', 'DELETE'])

function responsesOf(
  route: DocumentedRoute,
  hasBody: boolean,
  schemas: Record<string, JsonSchema>,
): Operation['responses'] {
  const isApi = responseMediaType(route.method, route.path) === 'application/json'
  const hasPathParameters = route.path
    .split('/')
    .some((segment) => parameterName(segment) !== undefined)
  // an illegal state change (409) or a business rule (422) refuses what a request asks of a resource
  const changesState = isApi && MUTATING.has(route.method) && (hasBody || hasPathParameters)
  const validated = route.validations.some((v) => v.target !== 'param')
  const answer = route.meta?.answer
  const responses: Operation['responses'] =
    route.meta?.redirect !== undefined
      ? { '302': { description: `Redirect to ${route.meta.redirect}` } }
      : { '200': answer ? answerOf(answer, schemas) : successOf(route.method, route.path) }
  if (hasBody) {
    responses['400'] = ref('MalformedJson')
    responses['413'] = ref('PayloadTooLarge')
    responses['415'] = ref('UnsupportedMediaType')
  }
  if (secured(route)) responses['401'] = ref('Unauthenticated')
  // every operation: the Host check (host-check.ts) runs before any route
  responses['403'] = ref('ForeignHost')
  // a reference names nothing of this tenant, in the path or (for the API) in the body
  if (hasPathParameters || (isApi && hasBody)) responses['404'] = ref('NotFound')
  if (changesState) responses['409'] = ref('Conflict')
  if (validated || changesState) responses['422'] = ref('ValidationFailed')
  // every /v1 request is counted in its tenant's minute (rate-limit.ts)
  if (route.path.startsWith('/v1/')) responses['429'] = ref('TooManyRequests')
  // the card-reveal page of a card access token past its time (ui/card-reveal.ts)
  if (route.path.startsWith(`${SANDBOX_PREFIX}/card-reveal/`))
    responses['410'] = { description: 'The link has expired: an HTML page saying so.' }
  return responses
}

function ref(name: string): Reference {
  return { $ref: `#/components/responses/${name}` }
}

/** Each /v1 answer schema is a component named as v1/answers.ts exports it: `OneCardAnswer`. */
const ANSWER_NAMES = new Map<unknown, string>(
  Object.entries(v1Answers).map(([name, schema]) => [
    schema,
    name[0].toUpperCase() + name.slice(1),
  ]),
)

function answerOf(schema: ZodType, schemas: Record<string, JsonSchema>): Response {
  const name =
    ANSWER_NAMES.get(schema) ?? `Answer${ANSWER_NAMES.size + Object.keys(schemas).length}`
  schemas[name] ??= jsonSchemaOf(schema, schemas, 'output')
  return json('The answer, in the default shapes (`--quirks on`, `--sdk-compat off`).', {
    $ref: `#/components/schemas/${name}`,
  })
}

function successOf(method: string, path: string): Response | Reference {
  const mediaType = responseMediaType(method, path)
  if (mediaType === 'text/html')
    return {
      description: 'An HTML page.',
      content: { 'text/html': { schema: { type: 'string' } } },
    }
  if (mediaType.startsWith('image/'))
    return {
      description: 'An image.',
      content: { [mediaType]: { schema: { type: 'string', contentMediaType: mediaType } } },
    }
  if (mediaType === 'application/javascript')
    return {
      description: 'A script.',
      content: { 'application/javascript': { schema: { type: 'string' } } },
    }
  if (path === `${SANDBOX_PREFIX}/health`)
    return json('The sandbox is up.', {
      type: 'object',
      required: ['status'],
      properties: { status: { const: 'ok' } },
    })
  if (path.endsWith('.json')) return json('A JSON document.', { type: 'object' })
  return ref('Success')
}

function json(description: string, schema: JsonSchema): Response {
  return { description, content: { 'application/json': { schema } } }
}

/** The success envelope (SPEC §2.1) and Laravel's error shape (PRODUCT §4). */
function sharedComponents(): OpenApiDocument['components'] {
  const errorRef = { $ref: '#/components/schemas/Error' }
  return {
    securitySchemes: {
      bearerAuth: {
        type: 'http',
        scheme: 'bearer',
        description: 'Any token: each one is a tenant of its own (PRODUCT §3).',
      },
    },
    schemas: {
      Envelope: {
        type: 'object',
        description:
          'SPEC §2.1: `message` and `statusCode` beside the resource fields (`data`, `meta`, …).',
        required: ['message', 'statusCode'],
        properties: { message: { type: 'string' }, statusCode: { const: 200 } },
        additionalProperties: true,
      },
      Error: {
        type: 'object',
        description: 'PRODUCT §4: Laravel’s error shape; `errors` names every bad field.',
        required: ['message', 'statusCode'],
        properties: {
          message: { type: 'string' },
          statusCode: { type: 'integer' },
          errors: {
            type: 'object',
            additionalProperties: { type: 'array', items: { type: 'string' } },
          },
        },
      },
      ValidationError: {
        allOf: [errorRef, { type: 'object', required: ['errors'] }],
      },
      TransitionError: {
        allOf: [
          errorRef,
          {
            type: 'object',
            required: ['allowed'],
            properties: {
              from: { type: 'string' },
              to: { type: 'string' },
              allowed: { type: 'array', items: { type: 'string' } },
            },
          },
        ],
      },
    },
    responses: {
      Success: json('The success envelope.', { $ref: '#/components/schemas/Envelope' }),
      MalformedJson: json('The body is not well-formed JSON.', errorRef),
      Unauthenticated: json(
        'No bearer token, a malformed one, or one kept out by --tokens.',
        errorRef,
      ),
      ForeignHost: json(
        'The Host header names none of this sandbox’s hosts (DNS-rebinding protection, ' +
          'PRODUCT §11); start it with --allowed-host <name> to answer to that name.',
        errorRef,
      ),
      NotFound: json('No resource of this tenant has this reference.', errorRef),
      Conflict: json('An illegal state change; `allowed` names the states it may move to.', {
        $ref: '#/components/schemas/TransitionError',
      }),
      PayloadTooLarge: json('The body is over 1 MiB.', errorRef),
      UnsupportedMediaType: json('The body is not sent as application/json.', errorRef),
      TooManyRequests: json(
        'Only with --rate-limit: past that many /v1 requests in a minute of the tenant’s clock. ' +
          '`Retry-After` says in how many seconds of that clock the minute ends.',
        errorRef,
      ),
      ValidationFailed: json('A validation or business-rule failure, naming every bad field.', {
        $ref: '#/components/schemas/ValidationError',
      }),
    },
  }
}

// ---------------------------------------------------------------------------------------------
// Summaries

/** The route's declared summary; the doubled-prefix copy of a route says what it is. */
function summaryOf(route: DocumentedRoute): string {
  const summary = route.meta?.summary ?? `${route.method} ${openApiPath(route.path)}`
  return route.path.startsWith('/v1/v1/')
    ? `${summary} (doubled /v1 prefix, accepted as in SPEC §9)`
    : summary
}
