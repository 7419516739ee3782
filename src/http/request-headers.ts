/**
 * A request's headers as they arrived: over a socket straight from node's list (its
 * `rawHeaders`), since `c.req.header()` makes @hono/node-server build a Headers object for the
 * request, which costs a few µs on every request that asks (the tenant stage asks each one for
 * its token). In-process (`app.request()`) the request is a Fetch Request already, and is asked
 * directly.
 */
import type { HttpBindings } from '@hono/node-server'
import type { Context } from 'hono'

/** node's list of the header names and values that arrived, or none in-process. */
const nodeRawHeaders = (c: Context): readonly string[] | undefined =>
  (c.env as HttpBindings | undefined)?.incoming?.rawHeaders

/** The header names and values, alternating, as they arrived (what the journal keeps). */
export function arrivedHeaders(c: Context): readonly string[] {
  const raw = nodeRawHeaders(c)
  if (raw) return raw
  const pairs: string[] = []
  c.req.raw.headers.forEach((value, name) => pairs.push(name, value))
  return pairs
}

/**
 * One header, read as the Fetch API reads it: case-insensitive, duplicates joined with ", ".
 * `name` in lower case.
 */
export function requestHeader(c: Context, name: string): string | undefined {
  const raw = nodeRawHeaders(c)
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
