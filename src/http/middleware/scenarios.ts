/**
 * Applies the scenarios in force to a /v1 request (PRODUCT §9): added latency, a dropped
 * connection, a canned response, an edit of the handler's answer, or an async outcome forced on
 * what the request creates.
 * Also hands the scenarios' delay overrides to the domain. Matched rules are named in the
 * `x-card-sandbox-scenario` response header.
 */
import type { HttpBindings } from '@hono/node-server'
import type { Context, MiddlewareHandler, Next } from 'hono'
import type { ContentfulStatusCode } from 'hono/utils/http-status'
import type { ScenarioRegistry } from '../../engine/scenarios/registry.js'
import { applyEdits, type Edit } from '../../engine/scenarios/edit.js'
import type { AppEnv } from '../../wiring/env.js'
import { stampsOf } from '../../store/tenants.js'
import { sendJson } from '../envelope.js'
import { refreshTenant } from './tenant.js'
import { readJsonBody } from './json-body.js'

/** The scenarios in force for a tenant, as the registry keeps them. */
type InForce = Awaited<ReturnType<ScenarioRegistry['inForce']>>

const METHODS_WITH_BODY = new Set(['POST', 'PUT', 'PATCH', 'DELETE'])

export const SCENARIO_HEADER = 'x-card-sandbox-scenario'

export function scenarios(): MiddlewareHandler<AppEnv> {
  return function scenarios(c, next) {
    const registry = c.get('deps').scenarios
    const tenant = c.get('tenant')
    const stamp = stampsOf(tenant)?.scenarios
    const decide = (inForce: InForce) =>
      inForce.scenarios.length === 0 ? next() : apply(c, next, inForce)
    const known = registry.inForceKnown(tenant.id, stamp)
    return known ? decide(known) : registry.inForce(tenant.id, stamp).then(decide)
  }
}

async function apply(c: Context<AppEnv>, next: Next, inForce: InForce): Promise<Response | void> {
  const tenant = c.get('tenant')
  const effects = await c.get('deps').scenarios.evaluate({
    method: c.req.method,
    path: c.req.path,
    // read only when a rule looks at bodies, with the same checks the validator makes
    body:
      inForce.needsBody && METHODS_WITH_BODY.has(c.req.method) ? await readJsonBody(c) : undefined,
    token: tenant.token,
    tenantId: tenant.id,
  })
  // not `{ ...ctx, scenarioDelays, … }` (ARCHITECTURE.md, "Objects on a request's path")
  c.set(
    'ctx',
    Object.assign(
      {},
      c.get('ctx'),
      { scenarioDelays: inForce.delays },
      effects.outcome && { outcome: effects.outcome },
    ),
  )
  if (effects.matched.length === 0) return next()

  if (effects.latencyMs > 0) {
    await new Promise((resolve) => setTimeout(resolve, effects.latencyMs))
    await refreshTenant(c)
  }
  if (effects.drop) {
    const incoming = (c.env as HttpBindings | undefined)?.incoming
    if (incoming) {
      incoming.socket.destroy()
      return new Response(null, { status: 599 })
    }
    // in-process (app.request) there is no connection to drop: a 502 stands in for it
    return sendJson(c, { message: 'Connection dropped by scenario.', statusCode: 502 }, 502)
  }
  const matched = effects.matched.join(', ')
  if (effects.respond) {
    const { headers } = effects.respond
    const { status, body } = applyEdits(
      { status: effects.respond.status, body: structuredClone(effects.respond.body) },
      effects.edits,
    )
    const answer = new Headers({ [SCENARIO_HEADER]: matched })
    for (const [name, value] of Object.entries(headers)) answer.set(name, value)
    return sendJson(c, body, status as ContentfulStatusCode, answer)
  }
  await next()
  if (effects.edits.length > 0) await editAnswer(c, effects.edits)
  c.res.headers.set(SCENARIO_HEADER, matched)
}

/** The handler's JSON answer, edited; its headers stay (a non-JSON answer is left as it is). */
async function editAnswer(c: Context<AppEnv>, edits: Edit[]): Promise<void> {
  const res = c.res
  if (!res.headers.get('content-type')?.includes('application/json')) return
  const text = c.get('responseJson') ?? (await res.clone().text())
  let body: unknown
  try {
    body = JSON.parse(text)
  } catch {
    return
  }
  const edited = applyEdits({ status: res.status, body }, edits)
  const json = JSON.stringify(edited.body)
  c.set('responseJson', json)
  const headers = new Headers(res.headers)
  headers.delete('content-length')
  c.res = undefined
  c.res = new Response(json, { status: edited.status, headers })
}
