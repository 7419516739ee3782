/**
 * GET /__sandbox/openapi.json and /__sandbox/docs (PRODUCT §8): the OpenAPI document of the
 * whole app (`root`: /v1 and /__sandbox) and its HTML rendering. Public, like /health.
 */
import { Hono } from 'hono'
import type { AppEnv } from '../../env.js'
import { docsPage } from '../../ui/docs.js'
import { describeRoute } from '../route-meta.js'
import { openApiDocument } from '../openapi.js'

export function documentationApi(root: Hono<any, any, any>) {
  return new Hono<AppEnv>()
    .get('/openapi.json', describeRoute({ auth: 'none', summary: 'This OpenAPI document' }), (c) =>
      c.json(openApiDocument(root)),
    )
    .get('/docs', describeRoute({ auth: 'none', summary: 'API reference page' }), (c) =>
      c.html(docsPage(openApiDocument(root), 'openapi.json')),
    )
}
