/**
 * /__sandbox/scenarios (PRODUCT §9): `GET` lists the scenarios in force for the tenant (files
 * for everyone, then its own); `POST` adds one for the tenant only, replacing one of the same
 * name, until its reset. The body is the scenario as JSON; errors name every bad field.
 */
import { Hono, type Context } from 'hono'
import { scenarioSchema } from '../../engine/scenarios/schema.js'
import type { AppEnv } from '../../env.js'
import { ok } from '../envelope.js'
import { describeRoute } from '../route-meta.js'
import { validate } from '../validate.js'

function activeJson(c: Context<AppEnv>) {
  return c
    .get('deps')
    .scenarios.active(c.get('tenant').id)
    .map(({ source, scenario }) => ({
      name: scenario.name,
      source,
      description: scenario.description ?? null,
      delays: scenario.delays ?? {},
      rules: scenario.rules.length,
    }))
}

export const scenariosApi = new Hono<AppEnv>()
  .get('/', describeRoute({ auth: 'bearer', summary: 'List scenarios in force' }), (c) =>
    ok(c, 'Scenarios in force', { data: activeJson(c) }),
  )
  .post(
    '/',
    describeRoute({ auth: 'bearer', summary: 'Add a scenario' }),
    validate('json', scenarioSchema),
    (c) => {
      // the body as sent (validate keeps it): no await between the tenant's refresh and the write
      c.get('deps').scenarios.add(c.get('tenant').id, c.req.valid('json'), c.get('jsonBody'))
      return ok(c, 'Scenario added', { data: activeJson(c) })
    },
  )
