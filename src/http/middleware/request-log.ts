/** `--log pretty|json`: one line per request on the terminal (method, path, status, latency). */
import { createMiddleware } from 'hono/factory'
import type { AppEnv } from '../../env.js'

const TTY = process.stdout.isTTY === true
const COLOURS = TTY
  ? { ok: '\x1b[32m', client: '\x1b[33m', server: '\x1b[31m', reset: '\x1b[0m' }
  : { ok: '', client: '', server: '', reset: '' }

export function requestLog(
  format: 'pretty' | 'json',
  write = (line: string) => process.stdout.write(line + '\n'),
) {
  return createMiddleware<AppEnv>(async function requestLog(c, next) {
    const started = performance.now()
    await next()
    const ms = Math.round((performance.now() - started) * 10) / 10
    const status = c.res.status
    if (format === 'json') {
      write(
        JSON.stringify({
          method: c.req.method,
          path: c.req.path,
          status,
          ms,
          tenant: c.get('tenant')?.id ?? null,
        }),
      )
      return
    }
    const colour = status >= 500 ? COLOURS.server : status >= 400 ? COLOURS.client : COLOURS.ok
    write(`${c.req.method.padEnd(6)} ${c.req.path} ${colour}${status}${COLOURS.reset} ${ms}ms`)
  })
}
