/**
 * GET /__sandbox/openapi.json (PRODUCT §8): the OpenAPI document of the whole app (`root`: /v1
 * and /__sandbox). Public, like /health; its HTML rendering, /__sandbox/docs, is a page
 * (ui/pages.ts).
 */
import { Hono } from 'hono'
import type { AppEnv } from '../../wiring/env.js'
import { describeRoute } from '../route-meta.js'
import { openApiDocument, type RoutedApp } from '../openapi.js'

export function documentationApi(root: RoutedApp) {
  return new Hono<AppEnv>().get(
    '/openapi.json',
    describeRoute({ auth: 'none', summary: 'This OpenAPI document' }),
    (c) => c.json(openApiDocument(root)),
  )
}
