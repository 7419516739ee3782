/**
 * `--cors` (http/middleware/cors.ts): off by default; with origins given, a preflight is answered
 * 204 before any token is asked for, and every answer to those origins carries the CORS headers,
 * errors included. The browser side is in test/ui/browser.test.ts.
 */
import { describe, expect, it } from 'vitest'
import { parseFlags } from '../../src/cli/flags.js'
import { createSandbox, startSandbox } from '../../src/server/sandbox.js'

const FRONT_END = 'http://localhost:5173'

function preflight(app: ReturnType<typeof createSandbox>['app'], path: string, origin: string) {
  return app.request(path, {
    method: 'OPTIONS',
    headers: {
      Origin: origin,
      'Access-Control-Request-Method': 'POST',
      'Access-Control-Request-Headers': 'authorization, content-type',
    },
  })
}

describe('CORS', () => {
  it('is off by default: no CORS header, and a preflight is not answered as one', async () => {
    const { app, close } = createSandbox()
    const res = await preflight(app, '/v1/cards/create', FRONT_END)
    const get = await app.request('/v1/cards', {
      headers: { Origin: FRONT_END, Authorization: 'Bearer t' },
    })
    close()
    expect(res.status).toBe(401) // the tenant stage asks the preflight for a token
    expect(res.headers.get('Access-Control-Allow-Origin')).toBeNull()
    expect(get.headers.get('Access-Control-Allow-Origin')).toBeNull()
  })

  it('answers a preflight from a listed origin with 204, before any token is asked for', async () => {
    const { app, close } = createSandbox({ cors: [FRONT_END, 'http://127.0.0.1:3000'] })
    const res = await preflight(app, '/v1/cards/create', FRONT_END)
    close()
    expect(res.status).toBe(204)
    expect(res.headers.get('Access-Control-Allow-Origin')).toBe(FRONT_END)
    expect(res.headers.get('Access-Control-Allow-Methods')).toBe('GET,HEAD,POST,PUT,PATCH,DELETE')
    expect(res.headers.get('Access-Control-Allow-Headers')).toBe('authorization,content-type')
    expect(res.headers.get('Access-Control-Max-Age')).toBe('600')
    expect(res.headers.get('Vary')).toContain('Origin')
    expect(res.headers.get('Access-Control-Allow-Credentials')).toBeNull()
  })

  it('gives an origin not in the list no CORS header', async () => {
    const { app, close } = createSandbox({ cors: [FRONT_END] })
    const res = await preflight(app, '/v1/cards/create', 'http://evil.test')
    const get = await app.request('/v1/cards', {
      headers: { Origin: 'http://evil.test', Authorization: 'Bearer t' },
    })
    close()
    expect(res.headers.get('Access-Control-Allow-Origin')).toBeNull()
    expect(get.status).toBe(200)
    expect(get.headers.get('Access-Control-Allow-Origin')).toBeNull()
  })

  it('carries the headers on answers and errors, exposing the rate-limit and scenario headers', async () => {
    const { app, close } = createSandbox({ cors: [FRONT_END] })
    const ok = await app.request('/v1/cards', {
      headers: { Origin: FRONT_END, Authorization: 'Bearer t' },
    })
    const unauthenticated = await app.request('/v1/cards', { headers: { Origin: FRONT_END } })
    const invalid = await app.request('/v1/cards/create', {
      method: 'POST',
      headers: { Origin: FRONT_END, Authorization: 'Bearer t', 'Content-Type': 'application/json' },
      body: '{}',
    })
    const page = await app.request('/__sandbox/ui', { headers: { Origin: FRONT_END } })
    close()
    for (const res of [ok, unauthenticated, invalid, page])
      expect(res.headers.get('Access-Control-Allow-Origin')).toBe(FRONT_END)
    expect([ok.status, unauthenticated.status, invalid.status]).toEqual([200, 401, 422])
    expect(ok.headers.get('Access-Control-Expose-Headers')?.split(',')).toEqual([
      'X-RateLimit-Limit',
      'X-RateLimit-Remaining',
      'Retry-After',
      'x-card-sandbox-scenario',
    ])
    expect(ok.headers.get('X-RateLimit-Limit')).toBe('60')
  })

  it("answers any origin with '*', without Vary", async () => {
    const { app, close } = createSandbox({ cors: ['*'] })
    const res = await preflight(app, '/__sandbox/clock', 'http://anywhere.test:8080')
    close()
    expect(res.status).toBe(204)
    expect(res.headers.get('Access-Control-Allow-Origin')).toBe('*')
  })

  it('takes an origin given with spaces around it', async () => {
    const { app, close } = createSandbox({ cors: [` ${FRONT_END} `] })
    const res = await preflight(app, '/v1/cards/create', FRONT_END)
    close()
    expect(res.headers.get('Access-Control-Allow-Origin')).toBe(FRONT_END)
  })

  it('refuses an option that is not an origin', () => {
    expect(() => createSandbox({ cors: ['localhost:5173'] })).toThrow(/is not an origin/)
    expect(() => createSandbox({ cors: ['http://localhost:5173/app'] })).toThrow(/is not an origin/)
  })

  it('with a list of origins, answers each listed origin with its own, not only the first', async () => {
    const origins = ['https://a.example', 'https://b.example', 'https://c.example']
    const command = parseFlags(['--cors', origins.join(','), '--port', '0'])
    if (command.kind !== 'run') throw new Error(command.kind)
    const sandbox = await startSandbox(command.options)
    try {
      const ask = (origin: string, method: 'OPTIONS' | 'GET') =>
        fetch(`${sandbox.url}/v1/cards`, {
          method,
          headers:
            method === 'OPTIONS'
              ? { Origin: origin, 'Access-Control-Request-Method': 'GET' }
              : { Origin: origin, Authorization: 'Bearer cors-list' },
        })
      for (const origin of origins.slice(1)) {
        const preflight = await ask(origin, 'OPTIONS')
        expect(preflight.status, origin).toBe(204)
        expect(preflight.headers.get('Access-Control-Allow-Origin'), origin).toBe(origin)
        expect(preflight.headers.get('Vary'), origin).toContain('Origin')
        const get = await ask(origin, 'GET')
        expect(get.status, origin).toBe(200)
        expect(get.headers.get('Access-Control-Allow-Origin'), origin).toBe(origin)
        await get.body?.cancel()
      }
      for (const method of ['OPTIONS', 'GET'] as const) {
        const stranger = await ask('https://d.example', method)
        expect(stranger.headers.get('Access-Control-Allow-Origin'), method).toBeNull()
        await stranger.body?.cancel()
      }
    } finally {
      await sandbox.close()
    }
  })
})
