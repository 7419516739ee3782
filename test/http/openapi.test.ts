import { Validator } from '@seriousme/openapi-schema-validator'
import { execFile } from 'node:child_process'
import { symlinkSync, writeFileSync } from 'node:fs'
import { join, relative, resolve } from 'node:path'
import { promisify } from 'node:util'
import { Hono, type Context } from 'hono'
import openapiTS, { astToString, type OpenAPI3 } from 'openapi-typescript'
import ts from 'typescript'
import { describe, expect, it } from 'vitest'
import { z } from 'zod'
import {
  documentedRoutes,
  openApiDocument,
  openApiPath,
  responseMediaType,
  type JsonSchema,
  type Response,
} from '../../src/http/openapi.js'
import { describeRoute } from '../../src/http/route-meta.js'
import { validate } from '../../src/http/validate.js'
import { createCardBody } from '../../src/http/v1/bodies.js'
import { startSandbox } from '../../src/server/sandbox.js'
import { newSandbox, storeOfTest, TOKEN } from '../helpers.js'
import { tempDir } from '../temp-dir.js'

/** Every method + path Hono will answer, read from `app.routes` without the module under test. */
function registeredRoutes(app: Hono<any, any, any>): [method: string, path: string][] {
  const keys = new Set(
    app.routes
      .filter((route) => route.method !== 'ALL')
      .map((route) => `${route.method} ${route.path.replace(/:(\w+)/g, '{$1}')}`),
  )
  return [...keys].map((key) => key.split(' ') as [string, string])
}

/** Every route that validates a JSON body, with the schema that does. */
function bodyRoutes(sandbox: ReturnType<typeof newSandbox>) {
  return documentedRoutes(sandbox.app).flatMap(({ method, path, validations }) =>
    validations.filter((v) => v.target === 'json').map((v) => ({ method, path, schema: v.schema })),
  )
}

/** What `html` escaped, back as it was. */
function unescaped(text: string): string {
  return text
    .replace(/&quot;/g, '"')
    .replace(/&#39;/g, "'")
    .replace(/&lt;/g, '<')
    .replace(/&gt;/g, '>')
    .replace(/&amp;/g, '&')
}

/** Every list route of the document: a GET whose query takes `page`. */
function listRoutes(document: { paths: Record<string, any> }): string[] {
  return Object.entries(document.paths)
    .filter(([, item]) =>
      item.get?.parameters?.some((p: any) => p.name === 'page' && p.in === 'query'),
    )
    .map(([path]) => path)
}

async function documentOf(sandbox: ReturnType<typeof newSandbox>) {
  const res = await sandbox.call('GET', '/__sandbox/openapi.json', undefined, { token: null })
  expect(res.status).toBe(200)
  return res.body
}

describe('GET /__sandbox/openapi.json', () => {
  const sandbox = newSandbox()

  it('is a valid OpenAPI 3.1 document whose references all resolve', async () => {
    const document = await documentOf(sandbox)
    const validator = new Validator()
    const result = await validator.validate(document)
    expect(result.errors).toBeUndefined()
    expect(result.valid).toBe(true)
    expect(validator.version).toBe('3.1')
    expect(() => validator.resolveRefs()).not.toThrow()
  })

  it('documents every route the app registers, and nothing else', async () => {
    const document = await documentOf(sandbox)
    const routes = registeredRoutes(sandbox.app)
    expect(routes.length).toBeGreaterThan(40)
    for (const [method, path] of routes) {
      expect(document.paths[path]?.[method.toLowerCase()], `${method} ${path}`).toBeDefined()
    }
    const documented = Object.values(document.paths).flatMap((item: any) => Object.keys(item))
    expect(documented).toHaveLength(routes.length)
  })

  it('takes request bodies from the zod schemas that validate them', async () => {
    const document = await documentOf(sandbox)
    const schema =
      document.paths['/v1/cards/create'].post.requestBody.content['application/json'].schema
    expect(schema.required).toEqual(['card_user_reference', 'card_brand', 'card_type'])
    expect(schema.properties.card_brand.enum).toEqual(['visa', 'mastercard', 'gim'])
    expect(schema.properties.card_type.enum).toEqual(['virtual', 'physical'])
    const { $schema: _, examples, ...fromZod } = z.toJSONSchema(createCardBody, { io: 'input' })
    expect(schema).toEqual(fromZod)
    // the schema's example, beside it
    expect(
      document.paths['/v1/cards/create'].post.requestBody.content['application/json'].example,
    ).toEqual((examples as unknown[])[0])
  })

  it('gives every request body an example that the route’s own schema accepts', async () => {
    const document = await documentOf(sandbox)
    const bodies = bodyRoutes(sandbox)
    expect(bodies.length).toBeGreaterThan(30)
    for (const { method, path, schema } of bodies) {
      const content =
        document.paths[openApiPath(path)][method.toLowerCase()].requestBody.content[
          'application/json'
        ]
      expect(content.example, `${method} ${path}`).toBeDefined()
      const parsed = schema.safeParse(content.example)
      expect(parsed.error?.issues, `${method} ${path}: ${JSON.stringify(content.example)}`).toBe(
        undefined,
      )
      expect(parsed.success).toBe(true)
    }
  })

  it('types page and per_page as integers on every list route, other query parameters as sent', async () => {
    const document = await documentOf(sandbox)
    const lists = listRoutes(document)
    expect(lists).toEqual(
      expect.arrayContaining(['/v1/cards', '/__sandbox/requests', '/__sandbox/webhooks']),
    )
    for (const path of lists) {
      const parameters = document.paths[path].get.parameters
      expect(parameters.slice(0, 2), path).toEqual([
        {
          name: 'page',
          in: 'query',
          required: false,
          schema: { type: 'integer', minimum: 1, maximum: 1_000_000 },
        },
        {
          name: 'per_page',
          in: 'query',
          required: false,
          schema: { type: 'integer', minimum: 1, maximum: 100 },
        },
      ])
    }
    const status = document.paths['/__sandbox/requests'].get.parameters.find(
      (p: { name: string }) => p.name === 'status',
    )
    expect(status.schema).toEqual({ type: 'string', pattern: '^([1-5]\\d\\d|[1-5]xx)$' })
  })

  it.each([
    ['abc', 'format is invalid.'],
    ['1.5', 'format is invalid.'],
    ['', 'format is invalid.'],
    ['0', 'must be at least 1.'],
  ])(
    'refuses %j as page or per_page on every list route: "the field %s" (422)',
    async (value, says) => {
      const document = await documentOf(sandbox)
      for (const path of listRoutes(document)) {
        for (const [field, name] of [
          ['page', 'page'],
          ['per_page', 'per page'],
        ]) {
          const res = await sandbox.call('GET', `${path}?${field}=${value}`)
          const message = `The ${name} field ${says}`
          expect(res.status, `${path}?${field}=${value}`).toBe(422)
          expect(res.body, `${path}?${field}=${value}`).toEqual({
            message,
            statusCode: 422,
            errors: { [field]: [message] },
          })
        }
      }
    },
  )

  it('documents a parameter the route reads as a number as that number, any other as sent', () => {
    const app = new Hono().get(
      '/things/:id',
      validate(
        'param',
        z.object({ id: z.string().regex(/^\d+$/).transform(Number).pipe(z.number().int()) }),
      ),
      validate(
        'query',
        z.object({
          limit: z.string().regex(/^\d+$/).transform(Number).pipe(z.number().int().min(1).max(50)),
          ratio: z.string().transform(Number).pipe(z.number().max(1)).optional(),
          since: z
            .string()
            .transform((text) => new Date(text))
            .optional(),
          name: z.string().max(20).optional(),
        }),
      ),
      (c) => c.text('ok'),
    )
    const parameters = openApiDocument(app).paths['/things/{id}'].get.parameters!
    expect(Object.fromEntries(parameters.map((p) => [`${p.in} ${p.name}`, p.schema]))).toEqual({
      'path id': {
        type: 'integer',
        minimum: Number.MIN_SAFE_INTEGER,
        maximum: Number.MAX_SAFE_INTEGER,
      },
      'query limit': { type: 'integer', minimum: 1, maximum: 50 },
      'query ratio': { type: 'number', maximum: 1 },
      'query since': { type: 'string' },
      'query name': { type: 'string', maxLength: 20 },
    })
    expect(parameters.find((p) => p.name === 'limit')!.required).toBe(true)
    expect(parameters.find((p) => p.name === 'ratio')!.required).toBe(false)
  })

  it('types path parameters by their schema', async () => {
    const document = await documentOf(sandbox)
    const [reference] = document.paths['/v1/payments/{reference}'].get.parameters
    expect(reference).toMatchObject({ name: 'reference', in: 'path', required: true })
    expect(reference.schema.format).toBe('uuid')
    const transition = document.paths['/__sandbox/cards/{reference}/transition'].post
    expect(transition.parameters[0]).toMatchObject({ name: 'reference', in: 'path' })
    expect(transition.parameters[0].schema.format).toBe('uuid')
  })

  it('asks for the bearer token on every route that declares it, and on no other', async () => {
    const document = await documentOf(sandbox)
    expect(document.components.securitySchemes.bearerAuth).toMatchObject({
      type: 'http',
      scheme: 'bearer',
    })
    expect(document.security).toEqual([{ bearerAuth: [] }])
    const routes = documentedRoutes(sandbox.app)
    expect(routes.length).toBeGreaterThanOrEqual(56)
    for (const route of routes) {
      const operation = document.paths[openApiPath(route.path)][route.method.toLowerCase()]
      const name = `${route.method} ${route.path}`
      if (route.meta?.auth === 'bearer') {
        expect(operation.security, name).toBeUndefined()
        expect(operation.responses['401'], name).toBeDefined()
      } else {
        expect(route.meta?.auth, name).toBe('none')
        expect(operation.security, name).toEqual([])
        expect(operation.responses['401'], name).toBeUndefined()
      }
    }
    // the dashboard's panel is read with the token (it answers 401 without one)
    expect(document.paths['/__sandbox/ui/panel'].get.security).toBeUndefined()
    expect(document.paths['/__sandbox/health'].get.security).toEqual([])
  })

  it('lists the 403 of a foreign Host on every operation, as every route answers it', async () => {
    const document = await documentOf(sandbox)
    expect(document.components.responses.ForeignHost.description).toMatch(/--allowed-host/)
    const routes = documentedRoutes(sandbox.app)
    for (const route of routes) {
      const operation = document.paths[openApiPath(route.path)][route.method.toLowerCase()]
      const name = `${route.method} ${route.path}`
      expect(operation.responses['403'], name).toEqual({
        $ref: '#/components/responses/ForeignHost',
      })
      const path = route.path.replace(/:(\w+)/g, (_, param) =>
        param === 'resource' ? 'cards' : '3f2504e0-4f89-41d3-9a0c-0305e82c3301',
      )
      const res = await sandbox.app.request(`http://evil.example${path}`, {
        method: route.method,
        headers: { Authorization: 'Bearer t' },
      })
      expect(res.status, name).toBe(403)
      expect(await res.json(), name).toMatchObject({ statusCode: 403 })
    }
  })

  it('summarises each operation with what its route declares', async () => {
    const document = await documentOf(sandbox)
    expect(document.paths['/v1/cards/create'].post.summary).toBe('Create card')
    expect(document.paths['/__sandbox/clock/advance'].post.summary).toBe('Advance the clock')
    expect(document.paths['/__sandbox/cards/{reference}/withdraw'].post.summary).toBe(
      'Withdraw from a card',
    )
    expect(document.paths['/v1/v1/card-users/create'].post).toMatchObject({
      summary: 'Create card user (doubled /v1 prefix, accepted as in SPEC §9)',
      deprecated: true,
    })
    for (const route of documentedRoutes(sandbox.app).filter((r) => !r.path.startsWith('/v1/v1'))) {
      const operation = document.paths[openApiPath(route.path)][route.method.toLowerCase()]
      expect(operation.summary, `${route.method} ${route.path}`).toBe(route.meta!.summary)
    }
  })

  it('gives every operation a summary of its own: none empty, no two the same', async () => {
    const document = await documentOf(sandbox)
    const paths: Record<string, Record<string, { summary: string }>> = document.paths
    const summaries = Object.entries(paths).flatMap(([path, operations]) =>
      Object.entries(operations).map(([method, operation]) => ({
        operation: `${method} ${path}`,
        summary: operation.summary,
      })),
    )
    expect(summaries.filter(({ summary }) => summary.trim() === '')).toEqual([])
    const shared = summaries.filter(
      ({ summary }, i) => summaries.findIndex((other) => other.summary === summary) !== i,
    )
    expect(shared).toEqual([])
  })

  it('tags operations by resource, the control plane as "sandbox", and names them uniquely', async () => {
    const document = await documentOf(sandbox)
    expect(document.paths['/v1/cards/create'].post.tags).toEqual(['cards'])
    expect(document.paths['/v1/card-users'].get.tags).toEqual(['card-users'])
    expect(document.paths['/__sandbox/clock'].get.tags).toEqual(['sandbox'])
    expect(document.paths['/__sandbox/docs'].get.responses['200'].content).toHaveProperty(
      'text/html',
    )
    const reveal = document.paths['/__sandbox/card-reveal/{token}'].get
    expect(reveal.responses['200'].content).toHaveProperty('text/html')
    expect(Object.keys(reveal.responses)).toEqual(['200', '403', '404', '410'])
    expect(reveal.security).toEqual([])
    const accessToken = document.paths['/v1/cards/auth/access_token'].post
    expect(
      Object.keys(accessToken.requestBody.content['application/json'].schema.properties),
    ).toEqual(['reference', 'css_url'])
    expect(document.paths['/v1/cards/{reference}'].get.summary).toBe('Show card')
    expect(document.paths['/v1/card-users/{reference}'].get.summary).toBe('Show card user')
    const ids = Object.values(document.paths).flatMap((item: any) =>
      Object.values(item).map((operation: any) => operation.operationId),
    )
    expect(new Set(ids).size).toBe(ids.length)
  })
})

describe('the document of any app (what the sandbox’s own routes do not use yet)', () => {
  const ok = (c: Context) => c.text('ok')
  type Node = { name: string; note: string | null; children: Node[] }
  const node: z.ZodType<Node> = z.object({
    name: z.string(),
    note: z.string().nullable().default(null),
    children: z.lazy(() => z.array(node)),
  })
  const nodeSchema = (children: JsonSchema) => ({
    type: 'object',
    properties: {
      name: { type: 'string' },
      note: { default: null, type: ['string', 'null'] },
      children,
    },
    required: ['name', 'children'],
  })
  const pathParameter = (name: string) => ({
    name,
    in: 'path',
    required: true,
    schema: { type: 'string' },
  })

  it('documents PATCH, HEAD and OPTIONS, and a patterned, an optional and a wildcard parameter', () => {
    const app = new Hono()
      .patch('/notes/:id{[0-9]+}', validate('json', z.object({ text: z.string() })), ok)
      .on('HEAD', '/notes/:id?', ok)
      .on('OPTIONS', '/files/*', ok)
      .get('/v1', ok)
    const { paths } = openApiDocument(app)
    expect(Object.keys(paths)).toEqual(['/notes/{id}', '/files/{path}', '/v1'])
    expect(Object.keys(paths['/notes/{id}'])).toEqual(['patch', 'head'])
    const { patch, head } = paths['/notes/{id}']
    expect([patch.operationId, head.operationId]).toEqual(['patchNotesById', 'headNotesById'])
    // a route that declares no summary is summarised by its method and path
    expect([patch.summary, head.summary]).toEqual(['PATCH /notes/{id}', 'HEAD /notes/{id}'])
    expect(patch.parameters).toEqual([pathParameter('id')])
    expect(head.parameters).toEqual([pathParameter('id')])
    // PATCH changes what its path names, as POST, PUT and DELETE do
    expect(Object.keys(patch.responses)).toEqual(
      expect.arrayContaining(['404', '409', '422', '400']),
    )
    expect(Object.keys(head.responses)).not.toContain('409')
    const files = paths['/files/{path}'].options
    expect(files.operationId).toBe('optionsFilesByPath')
    expect(files.parameters).toEqual([pathParameter('path')])
    expect(paths['/v1'].get.tags).toEqual(['root'])
  })

  it('documents a query parameter’s description, and a body without an example as its schema alone', () => {
    const app = new Hono()
      .get(
        '/search',
        validate(
          'query',
          z.object({ q: z.string().describe('Words to look for'), page: z.string().optional() }),
        ),
        ok,
      )
      .post('/notes', validate('json', z.object({ text: z.string() })), ok)
    const { paths } = openApiDocument(app)
    expect(paths['/search'].get.parameters).toEqual([
      {
        name: 'q',
        in: 'query',
        required: true,
        description: 'Words to look for',
        schema: { type: 'string' },
      },
      { name: 'page', in: 'query', required: false, schema: { type: 'string' } },
    ])
    const body = paths['/notes'].post.requestBody!
    expect(body.content).toEqual({
      'application/json': {
        schema: { type: 'object', properties: { text: { type: 'string' } }, required: ['text'] },
      },
    })
    // toEqual passes an `example: undefined` too: the keys say there is none
    expect(Object.keys(body.content['application/json'])).toEqual(['schema'])
  })

  it('documents the query of a schema that transforms its whole object as sent', () => {
    const app = new Hono().get(
      '/search',
      validate(
        'query',
        z.object({ q: z.string() }).transform(({ q }) => q.trim()),
      ),
      ok,
    )
    expect(openApiDocument(app).paths['/search'].get.parameters).toEqual([
      { name: 'q', in: 'query', required: true, schema: { type: 'string' } },
    ])
  })

  it('keeps schemas zod pulls out as definitions reachable from the document', async () => {
    const app = new Hono().post('/tree', validate('json', z.object({ root: node })), ok)
    const document = openApiDocument(app)
    const validator = new Validator()
    const result = await validator.validate(document as any)
    expect(result.valid).toBe(true)
    expect(JSON.stringify(document)).not.toContain('#/$defs/')
    const body = document.paths['/tree'].post.requestBody!.content['application/json'].schema
    expect(body.$ref).toMatch(/^#\/components\/schemas\//)
    expect(() => validator.resolveRefs()).not.toThrow()
  })

  it('moves a recursive root and named definitions into components, each reference renamed to reach it', () => {
    const before = Object.keys(openApiDocument(new Hono()).components.schemas).length
    const [trees, forests] = [`Schema${before + 1}`, `Schema${before + 2}`]
    const app = new Hono()
      .post('/trees', validate('json', node), ok)
      .post(
        '/forests',
        validate('json', z.object({ trees: z.array(node.meta({ id: 'Tree node' })) })),
        ok,
      )
    const { paths, components } = openApiDocument(app)
    const bodyOf = (path: string) =>
      paths[path].post.requestBody!.content['application/json'].schema
    expect(bodyOf('/trees')).toEqual({ $ref: `#/components/schemas/${trees}` })
    expect(bodyOf('/forests')).toEqual({ $ref: `#/components/schemas/${forests}` })
    const added = Object.fromEntries(
      Object.entries(components.schemas).filter(([name]) => name.startsWith('Schema')),
    )
    const children = `#/components/schemas/${forests}.__schema0`
    expect(added).toEqual({
      [trees]: nodeSchema({ type: 'array', items: { $ref: `#/components/schemas/${trees}` } }),
      // the id's space is not a name a reference may hold
      [`${forests}.Tree_node`]: nodeSchema({ $ref: children }),
      [`${forests}.__schema0`]: { type: 'array', items: nodeSchema({ $ref: children }) },
      [forests]: {
        type: 'object',
        properties: {
          trees: { type: 'array', items: { $ref: `#/components/schemas/${forests}.Tree_node` } },
        },
        required: ['trees'],
      },
    })
  })

  it('names an answer schema that v1/answers.ts does not export, and keeps it in components', () => {
    const answer = z.object({ ok: z.boolean() })
    const app = new Hono().get(
      '/answers',
      describeRoute({ auth: 'none', summary: 'Answers', answer }),
      ok,
    )
    const { paths, components } = openApiDocument(app)
    const response = paths['/answers'].get.responses['200'] as Response
    const { $ref } = response.content!['application/json'].schema as { $ref: string }
    expect($ref).toMatch(/^#\/components\/schemas\/Answer\d+$/)
    expect(components.schemas[$ref.split('/').pop()!]).toEqual({
      type: 'object',
      properties: { ok: { type: 'boolean' } },
      required: ['ok'],
      additionalProperties: false,
    })
  })

  it.each([
    ['GET', '/v1/cards', 'application/json'],
    ['GET', '/__sandbox/ui', 'text/html'],
    ['GET', '/__sandbox/ui/cards', 'text/html'],
    ['GET', '/__sandbox/ui/state.json', 'application/json'],
    ['GET', '/__sandbox/uikit', 'application/json'],
    ['POST', '/__sandbox/checkout', 'application/json'],
    ['GET', '/__sandbox/ui/app.js', 'application/javascript'],
  ])('answers %s %s with %s', (method, path, mediaType) => {
    expect(responseMediaType(method, path)).toBe(mediaType)
  })
})

describe('GET /__sandbox/docs', () => {
  it('renders every path of the document as one offline HTML page, without a token', async () => {
    const sandbox = newSandbox()
    const document = await documentOf(sandbox)
    const res = await sandbox.app.request('/__sandbox/docs')
    expect(res.status).toBe(200)
    expect(res.headers.get('Content-Type')).toMatch(/^text\/html/)
    const page = await res.text()
    for (const path of Object.keys(document.paths)) expect(page, path).toContain(path)
    expect(page).toContain('href="openapi.json"')
    expect(page).not.toMatch(/<script|src=/i)
    // nothing fetched from elsewhere: the one link is the sandbox's own icon
    expect(page.match(/<link[^>]*>/g)).toEqual([
      '<link rel="icon" type="image/svg+xml" href="/favicon.svg" />',
    ])
  })

  it('shows an example body for every operation that takes one, and its schema folded away', async () => {
    const sandbox = newSandbox()
    const document = await documentOf(sandbox)
    const page = await (await sandbox.app.request('/__sandbox/docs')).text()
    const articles = new Map(
      [...page.matchAll(/<article id="([^"]+)">([\s\S]*?)<\/article>/g)].map((m) => [m[1], m[2]]),
    )
    let shown = 0
    for (const [path, item] of Object.entries<any>(document.paths)) {
      for (const [method, operation] of Object.entries<any>(item)) {
        const article = articles.get(operation.operationId) ?? ''
        const example = article.match(/<pre class="example">([\s\S]*?)<\/pre>/)?.[1]
        if (!operation.requestBody) {
          expect(example, `${method} ${path}`).toBeUndefined()
          continue
        }
        expect(example, `${method} ${path}`).toBeDefined()
        expect(JSON.parse(unescaped(example!))).toEqual(
          operation.requestBody.content['application/json'].example,
        )
        expect(article).toMatch(/<details>\s*<summary>Schema<\/summary>/)
        shown++
      }
    }
    expect(shown).toBe(bodyRoutes(sandbox).length)
  })
})

/** What the generated client's calls answered, as `run.mjs` prints them. */
type Answer = { path: string; page: number; status: number; body: unknown }

/** The pages each list route is asked for, as a client writes them. */
const ASKED = [
  { page: 1, per_page: 3 },
  { page: 2, per_page: 3 },
]

/** A module calling every list route through openapi-fetch, typed by the generated `paths`. */
function callsModule(paths: string[]): string {
  const calls = paths.flatMap((path) =>
    ASKED.map(
      ({ page, per_page }) => `
  {
    const { response, data, error } = await client.GET('${path}', {
      params: { query: { page: ${page}, per_page: ${per_page} } },
    })
    answers.push({ path: '${path}', page: ${page}, status: response.status, body: data ?? error })
  }`,
    ),
  )
  return `import createClient from 'openapi-fetch'
import type { paths } from './schema.js'

export async function callEveryList(baseUrl: string, token: string) {
  const client = createClient<paths>({ baseUrl, headers: { Authorization: \`Bearer \${token}\` } })
  const answers: { path: string; page: number; status: number; body: unknown }[] = []
${calls.join('\n')}
  return answers
}
`
}

/** The compiler's complaints about `file` (strict, as a client's project is); without any, its JavaScript. */
function compile(dir: string, file: string): string[] {
  const program = ts.createProgram([join(dir, file)], {
    strict: true,
    target: ts.ScriptTarget.ES2022,
    module: ts.ModuleKind.NodeNext,
    moduleResolution: ts.ModuleResolutionKind.NodeNext,
    lib: ['lib.es2022.d.ts', 'lib.dom.d.ts'],
    types: [],
    skipLibCheck: true,
    outDir: dir,
  })
  const diagnostics = ts.getPreEmitDiagnostics(program)
  if (diagnostics.length === 0) program.emit()
  return diagnostics.map((d) => {
    const message = ts.flattenDiagnosticMessageText(d.messageText, '\n')
    if (!d.file || d.start === undefined) return message
    const { line } = d.file.getLineAndCharacterOfPosition(d.start)
    return `${relative(dir, d.file.fileName)}:${line + 1}: ${message}`
  })
}

/** A temporary project: `package.json` (ESM) and the repository's node_modules, linked. */
function clientProject(): string {
  const dir = tempDir('card-sandbox-client-')
  writeFileSync(join(dir, 'package.json'), '{ "type": "module" }\n')
  symlinkSync(resolve('node_modules'), join(dir, 'node_modules'), 'dir')
  writeFileSync(
    join(dir, 'run.mjs'),
    "import { callEveryList } from './calls.js'\n" +
      'const [baseUrl, token] = process.argv.slice(2)\n' +
      'console.log(JSON.stringify(await callEveryList(baseUrl, token)))\n',
  )
  return dir
}

/**
 * The paginator summary of a list's answer, wherever its envelope puts it: the shallowest object
 * holding `current_page` (the request journal's rows hold answers of their own, deeper down).
 */
function paginatorOf(body: unknown): Record<string, unknown> | undefined {
  let level: unknown[] = [body]
  while (level.length > 0) {
    const objects = level.filter(
      (v): v is Record<string, unknown> => v !== null && typeof v === 'object',
    )
    const found = objects.find((object) => 'current_page' in object)
    if (found) return found
    level = objects.flatMap((object) => Object.values(object))
  }
  return undefined
}

describe('a client generated from /__sandbox/openapi.json', () => {
  it('calls every list route with page and per_page as numbers: it compiles, and each answers that page', async () => {
    const sandbox = await startSandbox({ port: 0, clock: 'manual', db: storeOfTest() })
    try {
      const document = (await (
        await fetch(`${sandbox.url}/__sandbox/openapi.json`)
      ).json()) as OpenAPI3 & { paths: Record<string, any> }
      const paths = listRoutes(document)
      expect(paths).toEqual(
        expect.arrayContaining(['/v1/cards', '/__sandbox/requests', '/__sandbox/webhooks']),
      )

      const dir = clientProject()
      writeFileSync(join(dir, 'schema.d.ts'), astToString(await openapiTS(document)))
      writeFileSync(join(dir, 'calls.ts'), callsModule(paths))
      expect(compile(dir, 'calls.ts')).toEqual([])

      const { stdout } = await promisify(execFile)(process.execPath, [
        join(dir, 'run.mjs'),
        sandbox.url,
        TOKEN,
      ])
      const answers = JSON.parse(stdout) as Answer[]
      expect(answers.map(({ path, page }) => `${path} ${page}`)).toEqual(
        paths.flatMap((path) => ASKED.map(({ page }) => `${path} ${page}`)),
      )
      for (const { path, page, status, body } of answers) {
        expect(status, `${path} page ${page}: ${JSON.stringify(body)}`).toBe(200)
        expect(paginatorOf(body), `${path} page ${page}`).toMatchObject({
          current_page: page,
          per_page: 3,
        })
      }
    } finally {
      await sandbox.close()
    }
  }, 120_000)
})
