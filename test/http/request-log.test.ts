/**
 * The console request log (lib/logger.ts): the tenant's token and the card access token in the
 * card-reveal page's path masked, and an error answer's message on its line.
 */
import { describe, expect, it } from 'vitest'
import { createSandbox } from '../../src/server/sandbox.js'

const TOKEN = 'WkwHmYXfuih2Bv3hUe8uZfFLeJmDDx5Pjb2AG1veEaGnW8l7VS'
const BEARER = { Authorization: 'Bearer request-log-token' }

function loggedSandbox(log: 'pretty' | 'json') {
  const lines: string[] = []
  const sandbox = createSandbox({ log, clock: 'manual', logWrite: (text) => lines.push(text) })
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
})
