/**
 * The validation stage (http/validate.ts): a query schema's answer to an absent query string is
 * found once and reused, with the same result as validating it; a schema that an empty query
 * fails is still checked, and answered with its 422.
 */
import { Hono } from 'hono'
import { describe, expect, it } from 'vitest'
import { z } from 'zod'
import type { AppEnv } from '../../src/wiring/env.js'
import { onError } from '../../src/http/errors.js'
import { validate } from '../../src/http/validate.js'

function appWith(schema: z.ZodType) {
  const app = new Hono<AppEnv>()
  app.get('/list', validate('query', schema), (c) => c.json(c.req.valid('query') as object))
  app.onError(onError)
  return app
}

describe('query validation', () => {
  it('gives the defaults to a request without a query string, every time', async () => {
    const app = appWith(
      z.object({ page: z.coerce.number().default(1), per_page: z.string().optional() }),
    )
    for (let i = 0; i < 2; i++) {
      const res = await app.request('/list')
      expect(res.status).toBe(200)
      expect(await res.json()).toEqual({ page: 1 })
    }
    expect(await (await app.request('/list?page=3')).json()).toEqual({ page: 3 })
  })

  it('answers 422 naming the field when the schema needs one and there is no query string', async () => {
    const app = appWith(z.object({ status: z.string() }))
    const res = await app.request('/list')
    expect(res.status).toBe(422)
    expect(Object.keys(((await res.json()) as { errors: object }).errors)).toEqual(['status'])
  })
})
