/**
 * createApp(deps): the Hono app of one sandbox. Only its own Host names get in (PRODUCT §11),
 * pages carry the hardening headers, /v1 (SPEC §4) is behind bearer auth, the control
 * plane under /__sandbox (PRODUCT §8), one error renderer, 404/405 for the rest.
 */
import { Hono } from 'hono'
import type { AppEnv } from './env.js'
import { createControlApi } from './http/control/index.js'
import { onError, renderError } from './http/errors.js'
import { unmatchedRequestError } from './http/method-not-allowed.js'
import { auth } from './http/middleware/auth.js'
import { hostCheck } from './http/middleware/host-check.js'
import { journal } from './http/middleware/journal.js'
import { requestLog } from './http/middleware/request-log.js'
import { scenarios } from './http/middleware/scenarios.js'
import { securityHeaders } from './http/middleware/security-headers.js'
import { createV1Api } from './http/v1/index.js'
import { createPagesApi, PAGE_SCRIPTS } from './ui/pages.js'
import type { SandboxDeps } from './deps.js'

export function createApp(deps: SandboxDeps) {
  const app = new Hono<AppEnv>()
  const unmatched = unmatchedRequestError(app)

  // first: a request addressed to a name that is not the sandbox's reaches nothing (DNS rebinding)
  app.use(hostCheck(deps.allowedHosts))
  // the pages live here; JSON answers carry nosniff from sendJson (envelope.ts)
  app.use('/__sandbox/*', securityHeaders(PAGE_SCRIPTS))
  app.use(async function provideDeps(c, next) {
    c.set('deps', deps)
    await next()
  })
  if (deps.options.log !== 'silent') app.use(requestLog(deps.options.log))
  app.use(journal())
  app.use('/v1/*', auth(), scenarios())
  app.route('/v1', createV1Api({ quirks: deps.options.quirks }))
  app.route('/__sandbox', createControlApi(app, createPagesApi(app)))

  app.notFound((c) => renderError(c, unmatched(c.req.method, c.req.path)))
  app.onError(onError)
  return app
}

export type SandboxApp = ReturnType<typeof createApp>
