/**
 * The control plane under /__sandbox (PRODUCT §8). Every route but /health needs the bearer
 * token and acts on that token's tenant only.
 */
import { Hono } from 'hono'
import { resetTenantData } from '../../domain/reset.js'
import type { AppEnv } from '../../env.js'
import { auth } from '../middleware/auth.js'
import { ok } from '../envelope.js'
import { clockApi } from './clock.js'
import { controlDisputesApi } from './disputes.js'
import { transitionsApi } from './transitions.js'
import { walletCodesApi } from './wallet-codes.js'

export function createControlApi() {
  return new Hono<AppEnv>()
    .get('/health', (c) => c.json({ status: 'ok' }))
    .use(auth())
    .post('/reset', (c) => {
      resetTenantData(c.var.deps.db, c.var.tenant.id)
      c.var.deps.tenants.resetClock(c.var.tenant)
      return ok(c, 'Sandbox reset', { data: { tenant: c.var.tenant.id } })
    })
    .route('/clock', clockApi)
    .route('/disputes', controlDisputesApi)
    .route('/wallet-codes', walletCodesApi)
    .route('/', transitionsApi)
}
