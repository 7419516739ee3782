/**
 * /__sandbox/scenarios (PRODUCT §9): `GET` lists the scenarios in force for the tenant (files
 * for everyone, then its own); `POST` adds one for the tenant only, replacing one of the same
 * name, until its reset; `DELETE /{name}` takes one of its own out of force. The body is the
 * scenario as JSON; errors name every bad field.
 */
import { Hono, type Context } from 'hono'
import { z } from 'zod'
import { SandboxError } from '../../domain/errors.js'
import { scenarioSchema } from '../../engine/scenarios/schema.js'
import type { AppEnv } from '../../wiring/env.js'
import { ok } from '../envelope.js'
import { describeRoute } from '../route-meta.js'
import { validate } from '../validate.js'
import { withExample } from '../v1/schemas.js'

/** A scenario file's content, as JSON (scenarios/*.yaml hold the same). */
const scenarioBody = withExample(scenarioSchema, {
  name: 'card-issuing-failure',
  description: 'virtual mastercard issuing fails',
  rules: [
    {
      name: 'virtual mastercards fail',
      match: {
        method: 'POST',
        path: '/v1/cards/create',
        body: { card_brand: 'mastercard', card_type: 'virtual' },
      },
      outcome: 'failed',
    },
  ],
})

async function activeJson(c: Context<AppEnv>) {
  return (await c.get('deps').scenarios.active(c.get('tenant').id)).map(({ source, scenario }) => ({
    name: scenario.name,
    source,
    description: scenario.description ?? null,
    delays: scenario.delays ?? {},
    rules: scenario.rules.length,
  }))
}

export const scenariosApi = new Hono<AppEnv>()
  .get('/', describeRoute({ auth: 'bearer', summary: 'List scenarios in force' }), async (c) =>
    ok(c, 'Scenarios in force', { data: await activeJson(c) }),
  )
  .post(
    '/',
    describeRoute({ auth: 'bearer', summary: 'Add a scenario' }),
    validate('json', scenarioBody),
    async (c) => {
      // the body as sent (validate keeps it): no await between the tenant's refresh and the write
      await c.get('deps').scenarios.add(c.get('tenant').id, c.req.valid('json'), c.get('jsonBody'))
      return ok(c, 'Scenario added', { data: await activeJson(c) })
    },
  )
  .delete(
    '/:name',
    describeRoute({ auth: 'bearer', summary: "Remove one of the tenant's scenarios" }),
    validate('param', z.object({ name: z.string().min(1).max(200) })),
    async (c) => {
      const { name } = c.req.valid('param')
      const outcome = await c.get('deps').scenarios.remove(c.get('tenant').id, name)
      if (outcome === 'file')
        throw new SandboxError(
          'conflict',
          `The scenario ${name} comes from a --scenario file, in force for every tenant: edit or ` +
            'remove the file (it is watched), or restart without it.',
        )
      if (outcome === 'unknown') {
        const names = (await activeJson(c)).map((scenario) => scenario.name)
        throw new SandboxError(
          'not_found',
          `No scenario named ${name} is in force for this tenant` +
            (names.length ? ` (in force: ${names.join(', ')}).` : ' (none is).'),
        )
      }
      return ok(c, 'Scenario removed', { data: await activeJson(c) })
    },
  )
