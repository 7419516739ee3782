/**
 * Request bodies (PRODUCT §4): at most 1 MiB (413), JSON only (415), well-formed (400), an
 * object at the top and nested at most MAX_JSON_DEPTH levels (422). A body-less request with no Content-Type is read as `{}`, so a
 * missing body is reported as the list of required fields. Checked once per request: the
 * scenario rules and the validator share the result.
 */
import type { Context, Next } from 'hono'
import { bodyLimit } from 'hono/body-limit'
import { SandboxError } from '../../domain/errors.js'
import { MAX_JSON_DEPTH, nestsDeeperThan } from '../../lib/json-depth.js'
import type { AppEnv } from '../../wiring/env.js'
import { PAYLOAD_TOO_LARGE, validationError } from '../errors.js'
import { requestHeader } from '../request-headers.js'

export const MAX_BODY_BYTES = 1024 * 1024

const JSON_MEDIA_TYPE = /^application\/([\w.-]+\+)?json$/i

const limit = bodyLimit({
  maxSize: MAX_BODY_BYTES,
  onError: () => {
    throw new SandboxError('payload_too_large', PAYLOAD_TOO_LARGE)
  },
})

/**
 * A body announced by Content-Length is measured by that header: hono's bodyLimit would touch
 * the request's body stream, which makes @hono/node-server build a full Request for it (most of
 * a POST's cost). Chunked bodies, of unknown length, still go through bodyLimit.
 */
async function withinSizeLimit(c: Context<AppEnv>, read: () => Promise<void>): Promise<void> {
  const length = requestHeader(c, 'content-length')
  if (length === undefined || requestHeader(c, 'transfer-encoding') !== undefined) {
    await limit(c, read)
    return
  }
  if (Number(length) > MAX_BODY_BYTES)
    throw new SandboxError('payload_too_large', PAYLOAD_TOO_LARGE)
  await read()
}

/** The request's JSON object body (`{}` when there is none), checked as above. */
export async function readJsonBody(c: Context<AppEnv>): Promise<Record<string, unknown>> {
  const checked = c.get('jsonBody')
  if (checked) return checked
  let body: Record<string, unknown> = {}
  await withinSizeLimit(c, async () => {
    const contentType = requestHeader(c, 'content-type')
    const mediaType = contentType?.split(';')[0].trim() ?? ''
    const text = await c.req.text()
    c.set('requestText', text)
    if (!contentType && text.length === 0) return
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
      throw new SandboxError('malformed_json', 'Malformed JSON in request body.')
    }
    if (parsed === null || typeof parsed !== 'object' || Array.isArray(parsed)) {
      throw validationError({ body: ['The request body must be a JSON object.'] })
    }
    if (nestsDeeperThan(text, MAX_JSON_DEPTH)) {
      throw validationError({
        body: [`The request body must not nest deeper than ${MAX_JSON_DEPTH} levels.`],
      })
    }
    body = parsed as Record<string, unknown>
  })
  c.set('jsonBody', body)
  return body
}

export async function checkJsonBody(c: Context<AppEnv>, next: Next): Promise<void> {
  await readJsonBody(c)
  await next()
}
