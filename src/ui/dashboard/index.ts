/**
 * The dashboard (PRODUCT §8): `/__sandbox/ui` is a public shell where a person opens a tenant by
 * pasting its token (no tenant's data in it, tokens masked); `/__sandbox/ui/panel`, fetched by
 * the page with that tenant's bearer token every second, renders everything it owns on the
 * server — card users, cards, transactions, payments, disburses, disputes, business operations,
 * webhooks with their bodies and attempts, the request journal, the clock — with a button for
 * every move its state machines allow and the other control-plane actions. Buttons call the
 * control plane itself (the page's script sends the same requests a test would). Tokens, card
 * numbers and cvv2 show masked (masking.ts).
 *
 * Views: shell.ts (the public page, script.ts its script), panel.ts (a tenant), with table.ts,
 * actions.ts, webhooks.ts and journal.ts for its parts.
 */
import { Hono, type MiddlewareHandler } from 'hono'
import type { AppEnv } from '../../wiring/env.js'
import { isLoopback } from '../../http/middleware/host-check.js'
import { describeRoute } from '../../http/route-meta.js'
import { panel } from './panel.js'
import { shell } from './shell.js'
import { ROWS } from './table.js'

/** `forTenant`: the app's tenant stages (app.ts), run before the panel. */
export const createDashboardApi = (forTenant: MiddlewareHandler<AppEnv>[]) =>
  new Hono<AppEnv>()
    .get('/ui', describeRoute({ auth: 'none', summary: 'Dashboard' }), async (c) => {
      const { options, tenants } = c.get('deps')
      // reachable from the network: nobody sees which tenants exist without a token
      return c.html(shell(isLoopback(options.host) ? await tenants.all() : null))
    })
    .get(
      '/ui/panel',
      describeRoute({ auth: 'bearer', summary: "Dashboard panel of the token's tenant (HTML)" }),
      ...forTenant,
      async (c) => {
        const { journal, options } = c.get('deps')
        const ctx = c.get('ctx')
        const requests = options.journal ? journal.find(ctx.tenant.id).slice(0, ROWS) : null
        return c.html(await panel(ctx, requests))
      },
    )
