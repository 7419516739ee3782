/**
 * The control plane under /__sandbox (PRODUCT §8). Every route but /health, the API
 * documentation (of `root`, the whole app) and the public `pages` (ui/pages.ts, given by the
 * app) needs the bearer token and acts on that token's tenant only.
 */
import { Hono, type MiddlewareHandler } from 'hono'
import type { AppEnv } from '../../wiring/env.js'
import { describeRoute } from '../route-meta.js'
import { ok } from '../envelope.js'
import type { RoutedApp } from '../openapi.js'
import { clockApi } from './clock.js'
import { delaysApi } from './delays.js'
import { documentationApi } from './docs.js'
import { controlDisputesApi } from './disputes.js'
import { fundingApi } from './funding.js'
import { transitionsApi } from './transitions.js'
import { walletCodesApi } from './wallet-codes.js'
import { fixturesApi } from './fixtures.js'
import { requestsApi } from './requests.js'
import { scenariosApi } from './scenarios.js'
import { snapshotsApi } from './snapshots.js'
import { webhooksApi } from './webhooks.js'

/** `forTenant`: the app's tenant stages (app.ts), run before every route that needs the token. */
export function createControlApi(
  root: RoutedApp,
  pages: Hono<AppEnv>,
  forTenant: MiddlewareHandler<AppEnv>[],
) {
  return new Hono<AppEnv>()
    .get('/health', describeRoute({ auth: 'none', summary: 'Health check' }), (c) =>
      c.json({ status: 'ok' }),
    )
    .route('/', documentationApi(root))
    .route('/', pages)
    .use(...forTenant)
    .post('/reset', describeRoute({ auth: 'bearer', summary: 'Reset the tenant' }), async (c) => {
      const { tenants, scenarios, journal } = c.get('deps')
      const { tenant, retiredId } = await tenants.reset(c.get('tenant').token)
      scenarios.forget(retiredId)
      journal.clear(retiredId)
      c.set('tenant', tenant)
      return ok(c, 'Sandbox reset', { data: { tenant: tenant.id } })
    })
    .route('/clock', clockApi)
    .route('/requests', requestsApi)
    .route('/disputes', controlDisputesApi)
    .route('/wallet-codes', walletCodesApi)
    .route('/scenarios', scenariosApi)
    .route('/fixtures', fixturesApi)
    .route('/snapshots', snapshotsApi)
    .route('/', fundingApi)
    .route('/', delaysApi)
    .route('/', webhooksApi)
    .route('/', transitionsApi)
}
