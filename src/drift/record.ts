/**
 * The record file of `card-sandbox proxy` (proxy.ts): one JSON line per exchange, written whole by
 * one appendFileSync: what was sent and answered, masked (mask.ts), and the findings `compare`
 * made of the raw answer before masking.
 */
import { appendFileSync } from 'node:fs'
import type { IncomingMessage, OutgoingHttpHeaders } from 'node:http'
import { brotliDecompressSync, gunzipSync, inflateSync } from 'node:zlib'
import { parsedBody } from '../journal/entry.js'
import type { Exchange, Finding } from './compare.js'
import {
  maskBody,
  maskFindingValue,
  maskHeaders,
  maskRecordValue,
  type MaskOptions,
} from './mask.js'

/** One line of the record file (JSON Lines), as written (report.ts reads it as `RecordLine`). */
export type WrittenLine = {
  /** When the request arrived (ISO 8601, wall time). */
  at: string
  /** The upstream round trip in milliseconds. */
  ms: number
  method: string
  path: string
  /** `""` or `"?a=1&b=2"`, as sent. */
  query: string
  request: { headers: Record<string, string>; body: unknown; truncated?: true }
  status: number
  response: { headers: Record<string, string>; body: unknown; truncated?: true }
  findings: Finding[]
  /** Set when the upstream gave no (whole) answer: the proxy answered 502 or 504 itself, or cut the relay. */
  error?: 'refused' | 'reset' | 'timeout' | 'unreachable'
}

/** The most of one body kept in a record line; the relay itself is never cut. */
export const RECORD_BODY_LIMIT = 1024 * 1024

/**
 * Appends each line to `file` (nothing when there is none); a file that cannot be written is said
 * once on stderr, and the relay goes on.
 */
export function recordWriter(file: string | undefined): (line: WrittenLine) => void {
  let failed = false
  return (line) => {
    if (file === undefined) return
    try {
      appendFileSync(file, JSON.stringify(line) + '\n')
    } catch (error) {
      if (!failed)
        process.stderr.write(
          `card-sandbox proxy: cannot write --record ${file}: ${(error as Error).message}\n`,
        )
      failed = true
    }
  }
}

/** One exchange as the relay saw it end, before masking. */
export type RelayedExchange = {
  arrived: number
  ms: number
  method: string
  path: string
  query: string
  sentHeaders: OutgoingHttpHeaders
  requestBody: Capture
  answerBody: Capture
  status: number
  answerHeaders: Record<string, string>
  error?: WrittenLine['error']
  /** The proxy's own answer when it answered itself (a 502 or 504; null: a relay cut short). */
  ownBody?: unknown
}

/** The record line of an exchange: the raw answer compared, then everything masked. */
export function recordLine(
  exchange: RelayedExchange,
  mask: MaskOptions,
  compare: ((exchange: Exchange) => Finding[]) | false,
): WrittenLine {
  const { method, path, query, status, answerHeaders, error, requestBody, answerBody } = exchange
  let findings: Finding[] = []
  let body: unknown = exchange.ownBody
  if (error === undefined) {
    body = answerBody.body(answerHeaders)
    if (compare && !answerBody.truncated) {
      try {
        findings = compare({ method, path, status, headers: answerHeaders, body })
      } catch (failure) {
        process.stderr.write(
          `card-sandbox proxy: the comparison of ${method} ${maskRecordValue(undefined, path, mask) as string} failed: ${(failure as Error).message}\n`,
        )
      }
    }
  }
  const requestHeaders = headerRecord(exchange.sentHeaders)
  return {
    at: new Date(exchange.arrived).toISOString(),
    ms: exchange.ms,
    method,
    path: maskRecordValue(undefined, path, mask) as string,
    query: maskRecordValue(undefined, query, mask) as string,
    request: {
      headers: maskHeaders(requestHeaders, mask),
      body: maskBody(requestBody.body(requestHeaders), mask),
      ...(requestBody.truncated && { truncated: true as const }),
    },
    status,
    response: {
      headers: maskHeaders(answerHeaders, mask),
      body: maskBody(body, mask),
      ...(answerBody.truncated && { truncated: true as const }),
    },
    findings: findings.map((finding) => ({
      ...finding,
      upstream: maskFindingValue(finding.path, finding.upstream, mask),
    })),
    ...(error && { error }),
  }
}

/** Headers as one string per lower-case name (repeats joined with ", "). */
export function headerRecord(
  headers: OutgoingHttpHeaders | IncomingMessage['headers'],
): Record<string, string> {
  const out: Record<string, string> = {}
  for (const [name, value] of Object.entries(headers)) {
    if (value === undefined) continue
    out[name.toLowerCase()] = Array.isArray(value) ? value.join(', ') : String(value)
  }
  return out
}

/** A body's first RECORD_BODY_LIMIT bytes, for the record and the comparison. */
export class Capture {
  private chunks: Buffer[] = []
  private size = 0
  truncated = false

  add(chunk: Buffer) {
    if (this.size >= RECORD_BODY_LIMIT) {
      this.truncated = true
      return
    }
    const room = RECORD_BODY_LIMIT - this.size
    if (chunk.length > room) this.truncated = true
    const kept = chunk.length > room ? chunk.subarray(0, room) : chunk
    this.chunks.push(kept)
    this.size += kept.length
  }

  /** Parsed JSON if JSON, else the text, null if none; decoded when the headers say gzip, deflate or br. */
  body(headers: Record<string, string>): unknown {
    if (this.size === 0) return null
    let bytes = Buffer.concat(this.chunks)
    const encoding = (headers['content-encoding'] ?? '').trim().toLowerCase()
    if (encoding && encoding !== 'identity') {
      if (this.truncated) return `(${encoding} body over ${RECORD_BODY_LIMIT} bytes, not kept)`
      try {
        const limit = { maxOutputLength: RECORD_BODY_LIMIT }
        bytes =
          encoding === 'gzip' || encoding === 'x-gzip'
            ? gunzipSync(bytes, limit)
            : encoding === 'deflate'
              ? inflateSync(bytes, limit)
              : encoding === 'br'
                ? brotliDecompressSync(bytes, limit)
                : bytes
      } catch {
        return `(${encoding} body, not decoded)`
      }
      if (!['gzip', 'x-gzip', 'deflate', 'br'].includes(encoding))
        return `(${encoding} body, not decoded)`
    }
    const text = bytes.toString('utf8')
    const type = (headers['content-type'] ?? '').toLowerCase()
    // deeper than the journal keeps parsed stays text: the masking walks what is parsed
    if (!this.truncated && (type.includes('json') || /^\s*[[{]/.test(text))) return parsedBody(text)
    return text
  }
}
