/**
 * `--log pretty|json`: one line per request on the console (lib/logger.ts) — tenant (its token,
 * masked as PRODUCT §11 says), method, path, status, latency, and for an error answer its
 * `message`, so that a 422 says which field without opening the journal.
 */
import { createMiddleware } from 'hono/factory'
import type { AppEnv } from '../../wiring/env.js'
import { paint, type Logger } from '../../lib/logger.js'
import { maskSecretPath } from '../../lib/masking.js'

export function requestLog(logger: Logger) {
  return createMiddleware<AppEnv>(async function requestLog(c, next) {
    const started = performance.now()
    await next()
    const ms = Math.round((performance.now() - started) * 10) / 10
    const status = c.res.status
    const path = maskSecretPath(c.req.path)
    const message = status >= 400 ? messageOf(c.get('responseJson')) : undefined
    const colour = status >= 500 ? 'error' : status >= 400 ? 'warn' : 'ok'
    logger.log({
      event: 'request',
      level: status >= 500 ? 'error' : 'info',
      tenant: c.get('tenant')?.token ?? null,
      text:
        `${c.req.method.padEnd(6)} ${path} ${paint(colour, String(status))} ${ms}ms` +
        (message === undefined ? '' : `  ${message}`),
      fields: {
        method: c.req.method,
        path,
        status,
        ms,
        ...(message !== undefined && { message }),
      },
    })
  })
}

const MESSAGE = /"message":("(?:[^"\\]|\\.)*")/

/** The `message` of an error answer's JSON text (errors.ts, or a scenario's body), if any. */
function messageOf(json: string | undefined): string | undefined {
  const match = json === undefined ? null : MESSAGE.exec(json)
  if (!match) return undefined
  try {
    return JSON.parse(match[1]) as string
  } catch {
    return undefined
  }
}
