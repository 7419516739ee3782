/**
 * createApp(deps): the Hono app of one sandbox, as the stages a request goes through, top to
 * bottom (ARCHITECTURE.md, "A request"): only its own Host names get in (PRODUCT §11), pages
 * carry the hardening headers, /v1 (SPEC §4) and the control plane (PRODUCT §8) act for the
 * bearer token's tenant once its due work has run, one error renderer, 404/405 for the rest.
 */
import { Hono, type MiddlewareHandler } from 'hono'
import type { AppEnv } from '../wiring/env.js'
import { createControlApi } from '../http/control/index.js'
import { onError, renderError } from '../http/errors.js'
import { literalRoutesFirst, unmatchedRequestError } from '../http/method-not-allowed.js'
import { answered } from '../http/middleware/answered.js'
import { chained } from '../http/middleware/chained.js'
import { cors } from '../http/middleware/cors.js'
import { dueWork } from '../http/middleware/due-work.js'
import { fixtures } from '../http/middleware/fixtures.js'
import { hostCheck } from '../http/middleware/host-check.js'
import { journal } from '../http/middleware/journal.js'
import { rateLimit } from '../http/middleware/rate-limit.js'
import { requestLog } from '../http/middleware/request-log.js'
import { scenarios } from '../http/middleware/scenarios.js'
import { securityHeaders } from '../http/middleware/security-headers.js'
import { tenant } from '../http/middleware/tenant.js'
import { webhookKick } from '../http/middleware/webhook-kick.js'
import { describeRoute } from '../http/route-meta.js'
import { createV1Api } from '../http/v1/index.js'
import { FAVICON_ICO_PATH, FAVICON_PATH, faviconApi } from '../ui/favicon.js'
import { createPagesApi, PAGE_SCRIPTS } from '../ui/pages.js'
import type { SandboxDeps } from '../wiring/deps.js'

export function createApp(deps: SandboxDeps) {
  const app = new Hono<AppEnv>({ strict: false })
  const unmatched = unmatchedRequestError(app)
  const { options } = deps
  // bench only (deps.ts StageSwitches): a stage switched off is left out of the path
  const on = (stage: keyof NonNullable<typeof options.stages>) => options.stages?.[stage] !== false

  // 1. a request addressed to a name that is not the sandbox's reaches nothing (DNS rebinding);
  // then every stage may read the sandbox's parts (deps); once the answer is known (one stage,
  // answered.ts), 2. the request journal keeps it and 3. the webhook kick sends what it wrote:
  // the last stage of the first layer (chained.ts), so that it waits for the answer of
  // everything below and costs no layer of its own
  const provideDeps: MiddlewareHandler<AppEnv> = (c, next) => {
    c.set('deps', deps)
    return next()
  }
  const guarded: [MiddlewareHandler<AppEnv>, ...MiddlewareHandler<AppEnv>[]] = on('hostCheck')
    ? [hostCheck(deps.allowedHosts), provideDeps]
    : [provideDeps]
  const onAnswer = [
    ...(options.journal ? [journal()] : []),
    ...(on('webhookKick') ? [webhookKick()] : []),
  ]
  app.use(chained(...guarded, ...(onAnswer.length ? [answered(...onAnswer)] : [])))
  // 4. with --cors, pages on the origins given may call it: preflights answered here, before the
  // tenant stage would ask them for a token; every answer carries the CORS headers
  if (options.cors.length) app.use(cors(options.cors))
  // 5. the pages' hardening headers, and their icon's; JSON answers carry nosniff from sendJson
  // (envelope.ts)
  const pageHeaders = securityHeaders(PAGE_SCRIPTS)
  app.use('/__sandbox/*', pageHeaders)
  app.use(FAVICON_PATH, pageHeaders)
  app.use(FAVICON_ICO_PATH, pageHeaders)
  // 6. one line per request on stdout, once the answer is known
  if (options.log !== 'silent') app.use(requestLog(deps.logger))
  // 7. for the bearer token's tenant (401 without a token): the tenant, seeded with --fixtures
  // when new, and what fell due on its clock run first
  const tenantStages: [MiddlewareHandler<AppEnv>, ...MiddlewareHandler<AppEnv>[]] = [
    tenant(),
    ...(options.fixtures ? [fixtures()] : []),
    ...(on('dueWork') ? [dueWork()] : []),
  ]
  const forTenant = [chained(...tenantStages)]
  // 8. /v1 only: the request counted in its tenant's minute (429 past --rate-limit); a path some
  // route names literally is never taken for a `{reference}` (405, method-not-allowed.ts); 9. the
  // scenarios in force, last of the layer (they may have work once answered); then each route:
  // 10. its body and validation (validate.ts), 11. its handler, 12. the envelope (envelope.ts
  // sendJson, with the rate-limit headers)
  app.use(
    '/v1/*',
    chained(
      ...tenantStages,
      rateLimit(options.rateLimit),
      literalRoutesFirst(app),
      ...(on('scenarios') ? [scenarios()] : []),
    ),
  )
  app.route('/v1', createV1Api({ quirks: options.quirks }))
  app.route('/__sandbox', createControlApi(app, createPagesApi(app, forTenant), forTenant))

  // a person who opens the sandbox's address in a browser lands on the dashboard
  app.get(
    '/',
    describeRoute({ auth: 'none', summary: 'The dashboard', redirect: DASHBOARD }),
    () =>
      new Response(null, {
        status: 302,
        headers: { Location: DASHBOARD, 'X-Content-Type-Options': 'nosniff' },
      }),
  )

  app.route('/', faviconApi)

  // what no stage or route answered, or what threw anywhere above
  app.notFound((c) => renderError(c, unmatched(c.req.method, c.req.path)))
  app.onError(onError)
  return app
}

const DASHBOARD = '/__sandbox/ui'

export type SandboxApp = ReturnType<typeof createApp>
