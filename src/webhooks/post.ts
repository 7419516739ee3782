/**
 * One webhook POST: what the deliverer (delivery.ts) makes for each attempt and what the CLI's
 * `listen --forward-to` makes for each delivery it forwards. The timeout covers the answer too;
 * at most `readBytes` of the answer are read before its connection is dropped, whatever the
 * receiver streams; a redirect is an answer, not followed.
 */

/** How much of a response (or error) an attempt keeps. */
export const RESPONSE_PREFIX_BYTES = 512

export type PostOutcome = {
  /** The receiver's status; null when it never answered. */
  statusCode: number | null
  /** The first RESPONSE_PREFIX_BYTES of its answer; null when it never answered. */
  response: string | null
  /** Why it never answered (a timeout, a refused connection…); null when it answered. */
  error: string | null
  /** It did not answer within the timeout. */
  timedOut: boolean
  /** The system's code of a failed connection (ECONNREFUSED, ENOTFOUND…), when there is one. */
  code: string | null
}

export async function postWebhook(
  url: string,
  headers: Record<string, string>,
  body: string,
  { timeoutMs, readBytes }: { timeoutMs: number; readBytes: number },
): Promise<PostOutcome> {
  // one controller for the timeout and the cut-off: AbortSignal.any holds its sources weakly,
  // and a collected AbortSignal.timeout never fires (seen here under load)
  const abort = new AbortController()
  const timer = setTimeout(
    () => abort.abort(new DOMException('timed out', 'TimeoutError')),
    timeoutMs,
  )
  try {
    const res = await fetch(url, {
      method: 'POST',
      headers,
      body,
      redirect: 'manual',
      signal: abort.signal,
    })
    const { text, whole } = await readAtMost(res, readBytes)
    if (!whole) abort.abort() // drops the connection: nothing more is received
    const response = text.slice(0, RESPONSE_PREFIX_BYTES)
    return { statusCode: res.status, response, error: null, timedOut: false, code: null }
  } catch (cause) {
    const timedOut =
      cause instanceof Error && (cause.name === 'TimeoutError' || cause.name === 'AbortError')
    const code = (cause as { cause?: { code?: string } }).cause?.code ?? null
    const error = timedOut ? `timed out after ${timeoutMs} ms` : describe(cause)
    return { statusCode: null, response: null, error, timedOut, code }
  } finally {
    clearTimeout(timer)
  }
}

/** The first `limit` bytes of a body (as text), and whether that was all of it. */
async function readAtMost(res: Response, limit: number): Promise<{ text: string; whole: boolean }> {
  if (!res.body) return { text: '', whole: true }
  const reader = res.body.getReader()
  const chunks: Uint8Array[] = []
  let size = 0
  while (size <= limit) {
    const { done, value } = await reader.read()
    if (done) return { text: Buffer.concat(chunks).toString('utf8'), whole: true }
    chunks.push(value)
    size += value.length
  }
  return { text: Buffer.concat(chunks).subarray(0, limit).toString('utf8'), whole: false }
}

function describe(cause: unknown): string {
  const error = cause as Error & { cause?: { code?: string; message?: string } }
  const detail = error.cause?.code ?? error.cause?.message
  return (detail ? `${error.message}: ${detail}` : String(error.message ?? cause)).slice(
    0,
    RESPONSE_PREFIX_BYTES,
  )
}
