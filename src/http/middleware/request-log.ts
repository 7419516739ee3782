/**
 * `--log pretty|json`: one line per request on the terminal — tenant (its token, masked as
 * PRODUCT §11 says), method, path, status, latency. Pretty lines are coloured on a terminal;
 * JSON lines are for machines.
 */
import { createMiddleware } from 'hono/factory'
import type { AppEnv } from '../../env.js'
import { maskSecretPath, maskToken } from '../../lib/masking.js'

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
    const path = maskSecretPath(c.req.path)
    if (format === 'json') {
      write(
        JSON.stringify({
          tenant: token === undefined ? null : maskToken(token),
          method: c.req.method,
          path,
          status,
          ms,
        }),
      )
      return
    }
    const tenant = token === undefined ? NO_TENANT : shorten(maskToken(token))
    const colour = status >= 500 ? COLOURS.server : status >= 400 ? COLOURS.client : COLOURS.ok
    write(
      `${COLOURS.dim}${tenant.padEnd(16)}${COLOURS.reset} ${c.req.method.padEnd(6)} ${path} ` +
        `${colour}${status}${COLOURS.reset} ${ms}ms`,
    )
  })
}

/** A long masked token keeps its visible end: `…*****abcd`. */
function shorten(masked: string): string {
  return masked.length > 16 ? `…${masked.slice(-15)}` : masked
}
