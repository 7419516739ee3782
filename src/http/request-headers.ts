/**
 * A request header, read as the Fetch API reads it (case-insensitive, duplicates joined with
 * ", "), but over a socket straight from node's list of what arrived: `c.req.header()` makes
 * @hono/node-server build a Headers object for the request, which costs a few µs on every
 * request that asks (the tenant stage asks each one for its token). In-process
 * (`app.request()`) the request is a Fetch Request already, and is asked directly.
 */
import type { HttpBindings } from '@hono/node-server'
import type { Context } from 'hono'

/** `name` in lower case. */
export function requestHeader(c: Context, name: string): string | undefined {
  const raw = (c.env as HttpBindings | undefined)?.incoming?.rawHeaders
  if (!raw) return c.req.header(name)
  let value: string | undefined
  for (let i = 0; i < raw.length; i += 2) {
    const key = raw[i]
    if (key.length === name.length && key.toLowerCase() === name) {
      const field = raw[i + 1].trim()
      value = value === undefined ? field : `${value}, ${field}`
    }
  }
  return value
}
