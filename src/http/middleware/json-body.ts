/**
 * Request bodies (PRODUCT §4): at most 1 MiB (413), JSON only (415), well-formed (400) and an
 * object at the top (422). A body-less request with no Content-Type is read as `{}`, so a
 * missing body is reported as the list of required fields.
 */
import type { Context, Next } from 'hono'
import { bodyLimit } from 'hono/body-limit'
import { SandboxError } from '../../domain/errors.js'
import { PAYLOAD_TOO_LARGE, validationError } from '../errors.js'

export const MAX_BODY_BYTES = 1024 * 1024

const JSON_MEDIA_TYPE = /^application\/([\w.-]+\+)?json$/i

const limit = bodyLimit({
  maxSize: MAX_BODY_BYTES,
  onError: () => {
    throw new SandboxError('payload_too_large', PAYLOAD_TOO_LARGE)
  },
})

export async function checkJsonBody(c: Context, next: Next): Promise<void> {
  await limit(c, async () => {
    const contentType = c.req.header('Content-Type')
    const mediaType = contentType?.split(';')[0].trim() ?? ''
    const text = await c.req.text()
    if (!contentType && text.length === 0) return next()
    if (!JSON_MEDIA_TYPE.test(mediaType)) {
      throw new SandboxError(
        'unsupported_media_type',
        'The request body must be JSON, sent with Content-Type: application/json.',
      )
    }
    let body: unknown
    try {
      body = JSON.parse(text)
    } catch {
      throw new SandboxError('malformed_json', 'Malformed JSON in request body.')
    }
    if (body === null || typeof body !== 'object' || Array.isArray(body)) {
      throw validationError({ body: ['The request body must be a JSON object.'] })
    }
    await next()
  })
}
