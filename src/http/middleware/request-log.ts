/**
 * `--log pretty|json`: one line per request on the terminal — tenant (its token, shortened),
 * method, path, status, latency. Pretty lines are coloured on a terminal; JSON lines are for
 * machines.
 */
import { createMiddleware } from 'hono/factory'
import type { AppEnv } from '../../env.js'

const TTY = process.stdout.isTTY === true
const COLOURS = TTY
  ? { ok: '\x1b[32m', client: '\x1b[33m', server: '\x1b[31m', dim: '\x1b[2m', reset: '\x1b[0m' }
  : { ok: '', client: '', server: '', dim: '', reset: '' }

/** Shown instead of a tenant for requests that have none (401s, public pages). */
const NO_TENANT = '-'

export function requestLog(
  format: 'pretty' | 'json',
  write = (line: string) => process.stdout.write(line + '\n'),
) {
  return createMiddleware<AppEnv>(async function requestLog(c, next) {
    const started = performance.now()
    await next()
    const ms = Math.round((performance.now() - started) * 10) / 10
    const status = c.res.status
    const token = c.get('tenant')?.token
    if (format === 'json') {
      write(
        JSON.stringify({
          tenant: token ?? null,
          method: c.req.method,
          path: c.req.path,
          status,
          ms,
        }),
      )
      return
    }
    const tenant = token === undefined ? NO_TENANT : shorten(token)
    const colour = status >= 500 ? COLOURS.server : status >= 400 ? COLOURS.client : COLOURS.ok
    write(
      `${COLOURS.dim}${tenant.padEnd(16)}${COLOURS.reset} ${c.req.method.padEnd(6)} ${c.req.path} ` +
        `${colour}${status}${COLOURS.reset} ${ms}ms`,
    )
  })
}

function shorten(token: string): string {
  return token.length > 16 ? `${token.slice(0, 15)}…` : token
}
