/**
 * The console request log (lib/logger.ts): the tenant's token and the card access token in the
 * card-reveal page's path masked, and an error answer's message on its line.
 */
import { describe, expect, it } from 'vitest'
import { join } from 'node:path'
import { createSandbox } from '../../src/server/sandbox.js'

const TOKEN = 'WkwHmYXfuih2Bv3hUe8uZfFLeJmDDx5Pjb2AG1veEaGnW8l7VS'
const BEARER = { Authorization: 'Bearer request-log-token' }

function loggedSandbox(log: 'pretty' | 'json', scenarios?: string[]) {
  const lines: string[] = []
  const sandbox = createSandbox({
    log,
    clock: 'manual',
    logWrite: (text) => lines.push(text),
    scenarios,
  })
  return { app: sandbox.app, lines, close: () => sandbox.close() }
}

describe('request log', () => {
  it.each(['pretty', 'json'] as const)(
    'prints the card-reveal path with its token masked (%s)',
    async (format) => {
      const { app, lines, close } = loggedSandbox(format)
      await app.request(`/__sandbox/card-reveal/${TOKEN}`)
      await app.request('/v1/cards', { headers: BEARER })
      close()
      expect(lines).toHaveLength(2)
      expect(lines[0]).not.toContain(TOKEN)
      expect(lines[0]).toContain(`/__sandbox/card-reveal/${'*'.repeat(46)}l7VS`)
      expect(lines[1]).toContain('/v1/cards')
      expect(lines.join('')).not.toContain('request-log-token')
    },
  )

  it('prints one JSON object per line: time, level, event, masked tenant, request fields', async () => {
    const { app, lines, close } = loggedSandbox('json')
    await app.request('/v1/cards', { headers: BEARER })
    close()
    expect(lines).toHaveLength(1)
    expect(lines[0].endsWith('\n')).toBe(true)
    expect(JSON.parse(lines[0])).toEqual({
      time: expect.stringMatching(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/),
      level: 'info',
      event: 'request',
      tenant: '*************oken',
      method: 'GET',
      path: '/v1/cards',
      status: 200,
      ms: expect.any(Number),
    })
  })

  it('carries the message of a 4xx answer (json and pretty)', async () => {
    const json = loggedSandbox('json')
    await json.app.request('/v1/cards/create', {
      method: 'POST',
      headers: { ...BEARER, 'Content-Type': 'application/json' },
      body: JSON.stringify({ card_brand: 'visa', card_type: 'virtual' }),
    })
    await json.app.request('/v1/cards')
    json.close()
    const [invalid, unauthenticated] = json.lines.map((line) => JSON.parse(line))
    expect(invalid).toMatchObject({ status: 422, level: 'info' })
    expect(invalid.message).toBe('The card user reference field is required.')
    expect(unauthenticated).toMatchObject({ status: 401, tenant: null })
    expect(unauthenticated.message).toEqual(expect.any(String))

    const pretty = loggedSandbox('pretty')
    await pretty.app.request('/v1/cards/create', {
      method: 'POST',
      headers: { ...BEARER, 'Content-Type': 'application/json' },
      body: JSON.stringify({ card_brand: 'visa', card_type: 'virtual' }),
    })
    pretty.close()
    expect(pretty.lines[0]).toMatch(
      /^\d\d:\d\d:\d\d\.\d{3} …\*{11}oken\s+POST\s+\/v1\/cards\/create 422 [\d.]+ms {2}The card user reference field is required\.\n$/,
    )
  })

  it('prints a 2xx line without a message', async () => {
    const { app, lines, close } = loggedSandbox('json')
    await app.request('/v1/cards', { headers: BEARER })
    close()
    expect(JSON.parse(lines[0])).not.toHaveProperty('message')
  })

  it('prints a pretty 2xx line ending at its latency, a fraction of a second', async () => {
    const { app, lines, close } = loggedSandbox('pretty')
    await app.request('/v1/cards', { headers: BEARER })
    close()
    expect(lines[0]).toMatch(/ GET {4}\/v1\/cards 200 [\d.]+ms\n$/)
    const ms = Number(/ ([\d.]+)ms\n$/.exec(lines[0])![1])
    expect(ms).toBeGreaterThanOrEqual(0)
    expect(ms).toBeLessThan(1_000)
    expect(Math.round(ms * 10)).toBeCloseTo(ms * 10, 6) // to a tenth of a millisecond
  })

  it('carries the message of a 400 and says nothing of a 4xx answer that is not JSON', async () => {
    const { app, lines, close } = loggedSandbox('json')
    const malformed = await app.request('/v1/cards/create', {
      method: 'POST',
      headers: { ...BEARER, 'Content-Type': 'application/json' },
      body: '{"card_brand":',
    })
    const page = await app.request('/__sandbox/no-such-page', { headers: { Accept: 'text/html' } })
    close()
    const [first, second] = lines.map((line) => JSON.parse(line))
    expect(malformed.status).toBe(400)
    expect(first).toMatchObject({ status: 400, level: 'info', message: expect.any(String) })
    expect(first.message.length).toBeGreaterThan(0)
    expect(second.status).toBe(page.status)
    if (!page.headers.get('content-type')?.includes('json'))
      expect(second).not.toHaveProperty('message')
  })

  it('logs a 5xx answer at the error level, with its message (json and pretty)', async () => {
    const scenarios = [join(import.meta.dirname, '../../scenarios/flaky-network.yaml')]
    const send = (app: ReturnType<typeof createSandbox>['app']) =>
      app.request('/v1/transactions/create/card-to-wallet', {
        method: 'POST',
        headers: { ...BEARER, 'Content-Type': 'application/json' },
        body: '{}',
      })
    const json = loggedSandbox('json', scenarios)
    expect((await send(json.app)).status).toBe(503)
    json.close()
    expect(JSON.parse(json.lines[0])).toMatchObject({
      level: 'error',
      status: 503,
      message: 'Service Unavailable',
    })
    const pretty = loggedSandbox('pretty', scenarios)
    await send(pretty.app)
    pretty.close()
    expect(pretty.lines[0]).toMatch(
      / error: POST {3}\/v1\/transactions\/create\/card-to-wallet 503 [\d.]+ms {2}Service Unavailable\n$/,
    )
  })
})
