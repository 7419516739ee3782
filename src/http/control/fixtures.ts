/**
 * /__sandbox/fixtures (PRODUCT §9): `GET` lists the fixtures of fixtures/; `POST {"name"}` or
 * `{"fixture": {...}}` seeds the caller's tenant with one, through the real API, all or nothing:
 * a step that fails puts the tenant back as it was before the fixture (domain/snapshots.ts) and
 * none of the fixture's webhooks is sent (they are held while it runs). A step the store could
 * not answer (503) makes the whole a 503, undone the same way.
 */
import { Hono } from 'hono'
import { z } from 'zod'
import { SandboxError, refused } from '../../domain/errors.js'
import { undoneOnFailure } from '../../domain/snapshots.js'
import {
  FixtureError,
  applyFixture,
  fixtureSchema,
  knownFixtures,
  loadFixture,
} from '../../engine/fixtures.js'
import type { AppEnv } from '../../wiring/env.js'
import { ok } from '../envelope.js'
import { STORE_UNREACHABLE } from '../errors.js'
import { describeRoute } from '../route-meta.js'
import { validate } from '../validate.js'
import { withExample } from '../v1/schemas.js'

export const applyFixtureBody = withExample(
  z.union([
    z.strictObject({
      name: z.string().regex(/^[\w-]{1,64}$/, 'expected the name of a file in fixtures/'),
    }),
    z.strictObject({ fixture: fixtureSchema }),
  ]),
  { name: 'verified-user-funded-card' },
)

export const fixturesApi = new Hono<AppEnv>()
  .get('/', describeRoute({ auth: 'bearer', summary: 'List the fixtures' }), (c) =>
    ok(c, 'Fixtures', { data: knownFixtures() }),
  )
  .post(
    '/',
    describeRoute({ auth: 'bearer', summary: 'Apply a fixture' }),
    validate('json', applyFixtureBody),
    async (c) => {
      const body = c.req.valid('json')
      const field = 'name' in body ? 'name' : 'fixture'
      let fixture
      try {
        fixture = 'name' in body ? loadFixture(body.name) : body.fixture
      } catch (error) {
        if (error instanceof FixtureError) throw refused(field, error.message)
        throw error
      }
      const deps = c.get('deps')
      const token = c.get('tenant').token
      const release = deps.deliverer.hold(token)
      try {
        const steps = await undoneOnFailure(deps, token, () =>
          applyFixture(fixture, deps.callAs!(token)),
        )
        return ok(c, 'Fixture applied', { data: { name: fixture.name, steps } })
      } catch (error) {
        if (!(error instanceof FixtureError)) throw error
        const tenant = (await deps.tenants.forToken(token))!
        deps.scenarios.forget(tenant.id)
        c.set('tenant', tenant)
        // a step the store could not answer: nothing wrong with the fixture, retry it
        if (error.storeUnreachable) throw new SandboxError('unavailable', STORE_UNREACHABLE)
        throw refused(field, `${error.message} — the tenant is as it was before the fixture`)
      } finally {
        release()
      }
    },
  )
