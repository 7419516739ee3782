import { describe, expect, it, vi } from 'vitest'
import { z } from 'zod'
import { fieldErrorsOf, validationError } from '../../src/http/errors.js'
import { phone } from '../../src/http/v1/schemas.js'
import { MAX_JSON_DEPTH, nestsDeeperThan } from '../../src/lib/json-depth.js'
import { createSandbox } from '../../src/server/sandbox.js'
import { newSandbox } from '../helpers.js'

const JSON_HEADERS = { 'Content-Type': 'application/json' }

describe('error shapes (PRODUCT §4)', () => {
  const { call, app } = newSandbox()

  it('answers malformed JSON with a 400', async () => {
    for (const raw of ['{bad', '{"amount": 1,}', '[1, 2', "{'a': 1}", '']) {
      const res = await call('POST', '/v1/cards/create', undefined, { raw, headers: JSON_HEADERS })
      expect(res.status, raw).toBe(400)
      expect(res.body).toEqual({ message: 'Malformed JSON in request body.', statusCode: 400 })
    }
  })

  it('answers deeply nested JSON without crashing', async () => {
    const raw = '['.repeat(100_000) + ']'.repeat(100_000)
    const res = await call('POST', '/v1/cards/create', undefined, { raw, headers: JSON_HEADERS })
    expect([400, 422]).toContain(res.status)
    expect(res.body.statusCode).toBe(res.status)
  })

  it(`refuses a body nested deeper than ${MAX_JSON_DEPTH} levels with a 422 naming body, wherever JSON is free-form`, async () => {
    const { call } = newSandbox()
    const nested = (levels: number) => '{"a":'.repeat(levels) + '1' + '}'.repeat(levels)
    // each route's body around the free-form value, and how many levels that wrapper opens
    const routes: [string, (value: string) => string, number][] = [
      ['/v1/card-users/create', (value) => `{"phone":"+221770000000","x":${value}}`, 1],
      [
        '/__sandbox/scenarios',
        (value) =>
          `{"name":"deep","rules":[{"match":{"path":"/v1/x"},"respond":{"status":400,"body":${value}}}]}`,
        4,
      ],
      [
        '/__sandbox/fixtures',
        (value) => `{"fixture":{"name":"deep","steps":[{"call":"GET /v1/cards","body":${value}}]}}`,
        4,
      ],
    ]
    for (const [path, bodyWith, wrapper] of routes) {
      const tooDeep = await call('POST', path, undefined, {
        raw: bodyWith(nested(5000)),
        headers: JSON_HEADERS,
      })
      expect(tooDeep.status, path).toBe(422)
      expect(tooDeep.body.errors, path).toEqual({
        body: [`The request body must not nest deeper than ${MAX_JSON_DEPTH} levels.`],
      })
      const oneTooDeep = await call('POST', path, undefined, {
        raw: bodyWith(nested(MAX_JSON_DEPTH - wrapper + 1)),
        headers: JSON_HEADERS,
      })
      expect(oneTooDeep.status, path).toBe(422)
      const deepest = await call('POST', path, undefined, {
        raw: bodyWith(nested(MAX_JSON_DEPTH - wrapper)),
        headers: JSON_HEADERS,
      })
      expect(deepest.body.errors?.body, path).toBeUndefined()
      expect(deepest.status, path).toBeLessThan(500)
    }
  })

  it('refuses a JSON body that is not an object with a 422 naming body', async () => {
    for (const raw of ['[]', '"text"', '42', 'null', 'true']) {
      const res = await call('POST', '/v1/cards/create', undefined, { raw, headers: JSON_HEADERS })
      expect(res.status, raw).toBe(422)
      expect(res.body.errors).toEqual({ body: ['The request body must be a JSON object.'] })
    }
  })

  it('refuses a non-JSON content type with a 415', async () => {
    for (const type of [
      'application/x-www-form-urlencoded',
      'text/plain',
      'multipart/form-data; boundary=x',
    ]) {
      const res = await call('POST', '/v1/cards/freeze', undefined, {
        raw: 'reference=1',
        headers: { 'Content-Type': type },
      })
      expect(res.status, type).toBe(415)
      expect(res.body).toEqual({
        message: 'The request body must be JSON, sent with Content-Type: application/json.',
        statusCode: 415,
      })
    }
  })

  it('accepts application/json with a charset', async () => {
    const res = await call('POST', '/v1/card-users/create', undefined, {
      raw: JSON.stringify({ phone: '+221770000000' }),
      headers: { 'Content-Type': 'application/json; charset=utf-8' },
    })
    expect(res.status).toBe(200)
  })

  it('reads a body-less POST as {} and names every required field', async () => {
    const res = await call('POST', '/v1/cards/create')
    expect(res.status).toBe(422)
    expect(res.body).toEqual({
      message: 'The card user reference field is required. (and 2 more errors)',
      statusCode: 422,
      errors: {
        card_user_reference: ['The card user reference field is required.'],
        card_brand: ['The card brand field is required.'],
        card_type: ['The card type field is required.'],
      },
    })
  })

  it('refuses a body over 1 MiB with a 413', async () => {
    const raw = JSON.stringify({ phone: '+221770000000', address: 'x'.repeat(1024 * 1024) })
    const res = await call('POST', '/v1/card-users/create', undefined, {
      raw,
      headers: JSON_HEADERS,
    })
    expect(res.status).toBe(413)
    expect(res.body).toEqual({ message: 'The request body is larger than 1 MiB.', statusCode: 413 })
  })

  it('refuses a streamed body over 1 MiB with a 413', async () => {
    const chunk = new TextEncoder().encode('x'.repeat(64 * 1024))
    let sent = 0
    const stream = new ReadableStream({
      pull(controller) {
        if (sent++ < 20) controller.enqueue(chunk)
        else controller.close()
      },
    })
    const res = await app.request('/v1/card-users/create', {
      method: 'POST',
      headers: { ...JSON_HEADERS, Authorization: 'Bearer t' },
      body: stream,
      duplex: 'half', // undici needs this for a streamed body
    } as RequestInit)
    expect(res.status).toBe(413)
  })

  it('answers an unknown route with a JSON 404', async () => {
    const res = await call('GET', '/v1/nothing-here')
    expect(res.status).toBe(404)
    expect(res.body).toEqual({
      message: 'The route /v1/nothing-here could not be found.',
      statusCode: 404,
    })
  })

  it('answers a known path with the wrong method with a 405 and an Allow header', async () => {
    const res = await call('GET', '/v1/cards/create')
    expect(res.status).toBe(405)
    expect(res.headers.get('Allow')).toBe('POST')
    expect(res.body).toEqual({
      message: 'The GET method is not supported for this route. Supported methods: POST.',
      statusCode: 405,
    })
    const del = await call('DELETE', '/v1/payments/3f2504e0-4f89-41d3-9a0c-0305e82c3301')
    expect(del.status).toBe(405)
    expect(del.headers.get('Allow')).toBe('GET')
  })

  it('names every method a path takes, a trailing slash or two making no difference', async () => {
    for (const path of ['/__sandbox/webhook', '/__sandbox/webhook/', '/__sandbox/webhook//']) {
      const res = await call('POST', path)
      expect(res.status, path).toBe(405)
      expect(res.headers.get('Allow'), path).toBe('GET, PUT')
      expect(res.body.message, path).toBe(
        'The POST method is not supported for this route. Supported methods: GET, PUT.',
      )
    }
  })

  it('answers a non-UUID reference in a path with a 404', async () => {
    const res = await call('GET', '/v1/disburses/not-a-uuid')
    expect(res.status).toBe(404)
    expect(res.body.statusCode).toBe(404)
  })

  it('names every bad field with Laravel messages, nested ones in dot notation', async () => {
    const res = await call('POST', '/v1/disburses/create', {
      amount: '100',
      network: 'carrier-pigeon',
      customer: { email: 'not-an-email' },
    })
    expect(res.status).toBe(422)
    expect(res.body).toEqual({
      message: 'The amount field must be an integer. (and 3 more errors)',
      statusCode: 422,
      errors: {
        amount: ['The amount field must be an integer.'],
        network: [expect.stringMatching(/^The selected network is invalid\./)],
        'customer.full_name': ['The customer.full name field is required.'],
        'customer.email': ['The customer.email field must be a valid email address.'],
      },
    })
  })

  it('never answers with HTML or a stack trace', async () => {
    const attempts = [
      ['POST', '/v1/payments/create', '{"amount": 1e400, "network": null, "customer": []}'],
      [
        'POST',
        '/v1/cards/link',
        '{"identifier": 99999999999999999999999, "card_user_reference": "\'; DROP TABLE cards; --"}',
      ],
      ['POST', '/v1/card-users/create', '{"phone": "\\u0000\\u0001", "email": {"$ne": 1}}'],
      ['GET', '/v1/transactions?page=-1&per_page=1e3&card_reference=%00'],
      ['PATCH', '/v1/cards', '{}'],
      ['POST', '/__sandbox/clock/advance', '{"by": "forever"}'],
      ['PUT', '/__sandbox/clock', '{"mode": "sideways"}'],
    ] as const
    for (const [method, path, raw] of attempts) {
      const res = await call(method, path, undefined, {
        raw: method === 'GET' ? undefined : raw,
        headers: JSON_HEADERS,
      })
      expect(res.status, `${method} ${path}`).toBeGreaterThanOrEqual(400)
      expect(res.status, `${method} ${path}`).toBeLessThan(500)
      expect(res.headers.get('Content-Type')).toMatch(/^application\/json/)
      expect(JSON.stringify(res.body)).not.toMatch(/at .*\.(ts|js):\d+/)
    }
  })
})

describe('field names that are Object.prototype members', () => {
  it('names "constructor", "toString" and "__proto__" like any other unknown field', async () => {
    const { call } = newSandbox()
    const res = await call('PUT', '/__sandbox/delays', undefined, {
      raw: '{"constructor": 1, "toString": 2, "__proto__": 3}',
      headers: { 'Content-Type': 'application/json' },
    })
    expect(res.status).toBe(422)
    expect(Object.keys(res.body.errors).sort()).toEqual(['__proto__', 'constructor', 'toString'])
  })
})

describe('nestsDeeperThan', () => {
  it('counts objects and arrays open at once, not brackets inside strings', () => {
    expect(nestsDeeperThan('{"a":[{"b":[]}]}', 4)).toBe(false)
    expect(nestsDeeperThan('{"a":[{"b":[[]]}]}', 4)).toBe(true)
    expect(nestsDeeperThan('[[],[],[],[],[]]', 2)).toBe(false)
    expect(nestsDeeperThan('{"a":"[[[[{{{{"}', 1)).toBe(false)
    expect(nestsDeeperThan('{"a":"\\"[[["}', 1)).toBe(false)
    expect(nestsDeeperThan('{"a":"\\\\","b":[[]]}', 2)).toBe(true)
  })
})

describe('a database that cannot be reached', () => {
  it('answers a JSON 503 to say so, and logs one line naming the cause (a team sandbox whose PostgreSQL restarts)', async () => {
    const logged = vi.spyOn(console, 'error').mockImplementation(() => {})
    // nothing listens on port 1: every statement fails to connect
    const s = createSandbox({ db: 'postgres://root@127.0.0.1:1/sandbox', ticking: false })
    try {
      const res = await s.app.request('/v1/cards', { headers: { Authorization: 'Bearer t' } })
      expect(res.status).toBe(503)
      expect(await res.json()).toEqual({
        message: 'The database is unreachable; retry the request shortly.',
        statusCode: 503,
      })
      expect(logged.mock.calls.map((call) => String(call[0]))).toEqual([
        expect.stringMatching(/^card-sandbox: the database is unreachable: .*ECONNREFUSED/),
      ])
    } finally {
      s.close()
      logged.mockRestore()
    }
  })
})

describe("zod's issues in Laravel's words (fieldErrorsOf, validationError)", () => {
  const errorsOf = (schema: z.ZodType, input: unknown) => {
    const parsed = schema.safeParse(input)
    if (parsed.success) throw new Error('the input was expected to fail')
    return fieldErrorsOf(parsed.error, input)
  }

  it('names each kind of issue the way Laravel does, nested fields in dot notation', () => {
    const schema = z.strictObject({
      name: z.string().min(3).max(5),
      short: z.string().min(3),
      tags: z.array(z.string()),
      flag: z.boolean(),
      digits: z.string().regex(/^\d+$/),
      phone: phone(),
      customer: z.strictObject({ full_name: z.string() }),
      said: z.string().refine(() => false, 'The said field says no.'),
      other: z.string().refine(() => false, 'no way'),
    })
    const errors = errorsOf(schema, {
      name: 'abcdefg',
      short: 'ab',
      tags: 'a',
      flag: 'yes',
      digits: '12a',
      phone: 'call me',
      customer: { full_name: 'Awa', bank_id: 'x' },
      said: 'x',
      other: 'x',
      extra_field: 1,
    })
    expect({ ...errors }).toEqual({
      name: ['The name field must not be greater than 5 characters.'],
      short: ['The short field must be at least 3 characters.'],
      tags: ['The tags field must be an array.'],
      flag: ['The flag field must be true or false.'],
      digits: ['The digits field format is invalid.'],
      phone: ['The phone field must be a valid phone number.'],
      'customer.bank_id': ['The customer.bank id field is not allowed.'],
      said: ['The said field says no.'],
      other: ['The other field is invalid: no way.'],
      extra_field: ['The extra field field is not allowed.'],
    })
  })

  it('names a body that is not an object "body", and gives one field a message once', () => {
    expect({ ...errorsOf(z.object({ a: z.string() }), []) }).toEqual({
      body: ['The body field must be an object.'],
    })
    const twice = z
      .string()
      .refine(() => false, 'The a field is bad.')
      .refine(() => false, 'The a field is bad.')
    expect({ ...errorsOf(z.object({ a: twice }), { a: 'x' }) }).toEqual({
      a: ['The a field is bad.'],
    })
  })

  it('says how many more errors there are after the first, in the singular for one', () => {
    expect(validationError({ a: ['A.'] }).message).toBe('A.')
    expect(validationError({ a: ['A.'], b: ['B.'] }).message).toBe('A. (and 1 more error)')
    expect(validationError({ a: ['A.', 'A2.'], b: ['B.'] }).message).toBe('A. (and 2 more errors)')
  })
})
