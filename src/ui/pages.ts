/**
 * The pages under /__sandbox (PRODUCT §8), all public: the API reference of `root` (the whole
 * app), the verification widget, the checkout, the card-reveal page and the dashboard. The control plane mounts them
 * before its bearer check; PAGE_SCRIPTS are their inline scripts, which the Content-Security-
 * Policy allows by hash (http/middleware/security-headers.ts).
 */
import { Hono, type MiddlewareHandler } from 'hono'
import type { AppEnv } from '../wiring/env.js'
import { openApiDocument, type RoutedApp } from '../http/openapi.js'
import { describeRoute } from '../http/route-meta.js'
import { cardRevealApi } from './card-reveal.js'
import { CHECKOUT_SCRIPT, checkoutApi } from './checkout.js'
import { createDashboardApi } from './dashboard/index.js'
import { DASHBOARD_SCRIPT } from './dashboard/script.js'
import { docsPage } from './docs.js'
import { VERIFY_PAGE_SCRIPT, widgetApi } from './widget.js'

/** The inline script of each page (layout.ts writes each exactly, so its hash matches). */
export const PAGE_SCRIPTS = [DASHBOARD_SCRIPT, VERIFY_PAGE_SCRIPT, CHECKOUT_SCRIPT]

/** `forTenant`: the app's tenant stages (app.ts), for the dashboard's panel. */
export function createPagesApi(root: RoutedApp, forTenant: MiddlewareHandler<AppEnv>[]) {
  return new Hono<AppEnv>()
    .get('/docs', describeRoute({ auth: 'none', summary: 'API reference page' }), (c) =>
      c.html(docsPage(openApiDocument(root), 'openapi.json')),
    )
    .route('/', widgetApi)
    .route('/', checkoutApi)
    .route('/', cardRevealApi)
    .route('/', createDashboardApi(forTenant))
}
