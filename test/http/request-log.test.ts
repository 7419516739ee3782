/** The console request log masks the card access token in the card-reveal page's path. */
import { Hono } from 'hono'
import { describe, expect, it } from 'vitest'
import { requestLog } from '../../src/http/middleware/request-log.js'

const TOKEN = 'WkwHmYXfuih2Bv3hUe8uZfFLeJmDDx5Pjb2AG1veEaGnW8l7VS'

function loggedApp(format: 'pretty' | 'json') {
  const lines: string[] = []
  const app = new Hono()
    .use(
      requestLog(format, (line) => {
        lines.push(line)
        return true
      }),
    )
    .get('/__sandbox/card-reveal/:token', (c) => c.text('card'))
    .get('/v1/cards', (c) => c.text('cards'))
  return { app, lines }
}

describe('request log', () => {
  it.each(['pretty', 'json'] as const)(
    'prints the card-reveal path with its token masked (%s)',
    async (format) => {
      const { app, lines } = loggedApp(format)
      await app.request(`/__sandbox/card-reveal/${TOKEN}`)
      await app.request('/v1/cards')
      expect(lines).toHaveLength(2)
      expect(lines[0]).not.toContain(TOKEN)
      expect(lines[0]).toContain(`/__sandbox/card-reveal/${'*'.repeat(46)}l7VS`)
      expect(lines[1]).toContain('/v1/cards')
    },
  )
})
