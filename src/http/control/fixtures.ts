/**
 * POST /__sandbox/fixtures {"name"} or {"fixture": {...}} (PRODUCT §9): seeds the caller's
 * tenant with a named data set of fixtures/ (or an inline one), through the real API.
 */
import { Hono } from 'hono'
import { z } from 'zod'
import { refused } from '../../domain/errors.js'
import { FixtureError, applyFixture, fixtureSchema, loadFixture } from '../../engine/fixtures.js'
import type { AppEnv } from '../../env.js'
import { ok } from '../envelope.js'
import { describeRoute } from '../route-meta.js'
import { validate } from '../validate.js'

export const applyFixtureBody = z.union([
  z.strictObject({
    name: z.string().regex(/^[\w-]{1,64}$/, 'expected the name of a file in fixtures/'),
  }),
  z.strictObject({ fixture: fixtureSchema }),
])

export const fixturesApi = new Hono<AppEnv>().post(
  '/',
  describeRoute({ auth: 'bearer', summary: 'Apply a fixture' }),
  validate('json', applyFixtureBody),
  async (c) => {
    const body = c.req.valid('json')
    try {
      const fixture = 'name' in body ? loadFixture(body.name) : body.fixture
      const steps = await applyFixture(fixture, c.get('deps').callAs!(c.get('tenant').token))
      return ok(c, 'Fixture applied', { data: { name: fixture.name, steps } })
    } catch (error) {
      if (error instanceof FixtureError)
        throw refused('name' in body ? 'name' : 'fixture', error.message)
      throw error
    }
  },
)
