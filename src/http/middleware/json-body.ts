/**
 * Request bodies (PRODUCT §4): at most 1 MiB (413), JSON only (415), well-formed (400), an
 * object at the top and nested at most MAX_JSON_DEPTH levels (422). A body-less request with no Content-Type is read as `{}`, so a
 * missing body is reported as the list of required fields. Checked once per request: the
 * scenario rules and the validator share the result.
 */
import type { HttpBindings } from '@hono/node-server'
import type { Context, Next } from 'hono'
import { MALFORMED_JSON, SandboxError } from '../../domain/errors.js'
import { MAX_JSON_DEPTH, nestsDeeperThan } from '../../lib/json-depth.js'
import type { AppEnv } from '../../wiring/env.js'
import { PAYLOAD_TOO_LARGE, validationError } from '../errors.js'
import { requestHeader } from '../request-headers.js'

export const MAX_BODY_BYTES = 1024 * 1024

const JSON_MEDIA_TYPE = /^application\/([\w.-]+\+)?json$/i

/**
 * How much of a chunked body past MAX_BODY_BYTES is read and dropped, so that its connection
 * can carry the next request; a body still going past this is refused with the connection.
 */
const MAX_DISCARDED_BYTES = 16 * MAX_BODY_BYTES

/** Decodes as `Request.text()` does (a byte-order mark dropped, bad bytes replaced). */
const utf8 = new TextDecoder()

const tooLarge = () => new SandboxError('payload_too_large', PAYLOAD_TOO_LARGE)

/**
 * The body's text, its size checked. A body announced by Content-Length is measured by that
 * header, before anything is read: reading the request's body stream makes @hono/node-server
 * build a full Request for it (most of a POST's cost), and the body of a refused one is drained
 * by @hono/node-server once the answer is sent. A chunked body, of unknown length, is measured
 * as it arrives (readChunkedText).
 */
async function readBodyText(c: Context<AppEnv>): Promise<string> {
  const length = requestHeader(c, 'content-length')
  if (length === undefined || requestHeader(c, 'transfer-encoding') !== undefined)
    return readChunkedText(c)
  if (Number(length) > MAX_BODY_BYTES) throw tooLarge()
  return c.req.text()
}

/**
 * A body of unknown length, read as it arrives and kept up to MAX_BODY_BYTES. Past them it is
 * refused once read to its end, the rest dropped as it comes (memory stays bounded): a body left
 * unread would stall its keep-alive connection, and @hono/node-server then drops the socket
 * under the client's next request. One still going after MAX_DISCARDED_BYTES is refused with
 * `Connection: close`, so the client opens a new connection for its next request.
 */
async function readChunkedText(c: Context<AppEnv>): Promise<string> {
  const body = c.req.raw.body
  if (!body) return ''
  const reader = body.getReader()
  const chunks: Uint8Array[] = []
  let size = 0
  for (;;) {
    const { done, value } = await reader.read()
    if (done) return utf8.decode(Buffer.concat(chunks, size))
    size += value.byteLength
    if (size > MAX_BODY_BYTES) break
    chunks.push(value)
  }
  while (size <= MAX_DISCARDED_BYTES) {
    const { done, value } = await reader.read()
    if (done) throw tooLarge()
    size += value.byteLength
  }
  closeAfterAnswer(c)
  throw tooLarge()
}

/** Asks node to close the connection once the answer is sent, and says so in the answer. */
function closeAfterAnswer(c: Context<AppEnv>): void {
  ;(c.env as HttpBindings | undefined)?.outgoing?.setHeader('Connection', 'close')
}

/** The request's JSON object body (`{}` when there is none), checked as above. */
export async function readJsonBody(c: Context<AppEnv>): Promise<Record<string, unknown>> {
  const checked = c.get('jsonBody')
  if (checked) return checked
  const text = await readBodyText(c)
  c.set('requestText', text)
  const body = jsonObjectOf(text, requestHeader(c, 'content-type'))
  c.set('jsonBody', body)
  return body
}

/** The body's JSON object, or the error that refuses it. */
function jsonObjectOf(text: string, contentType: string | undefined): Record<string, unknown> {
  if (!contentType && text.length === 0) return {}
  const mediaType = contentType?.split(';')[0].trim() ?? ''
  if (!JSON_MEDIA_TYPE.test(mediaType)) {
    throw new SandboxError(
      'unsupported_media_type',
      'The request body must be JSON, sent with Content-Type: application/json.',
    )
  }
  let parsed: unknown
  try {
    parsed = JSON.parse(text)
  } catch {
    throw new SandboxError('malformed_json', MALFORMED_JSON)
  }
  if (parsed === null || typeof parsed !== 'object' || Array.isArray(parsed)) {
    throw validationError({ body: ['The request body must be a JSON object.'] })
  }
  if (nestsDeeperThan(text, MAX_JSON_DEPTH)) {
    throw validationError({
      body: [`The request body must not nest deeper than ${MAX_JSON_DEPTH} levels.`],
    })
  }
  return parsed as Record<string, unknown>
}

export async function checkJsonBody(c: Context<AppEnv>, next: Next): Promise<void> {
  await readJsonBody(c)
  await next()
}
