/**
 * The request journal (PRODUCT §8, `GET /__sandbox/requests`): every request a tenant made and
 * what the sandbox answered, newest first, so a test can assert what its client sent (as with
 * WireMock's verification). Kept in memory and bounded: per tenant a ring of the last
 * MAX_ENTRIES_PER_TENANT records within MAX_BYTES_PER_TENANT of body text, bodies cut at
 * MAX_BODY_CHARS, and the journals of at most MAX_TENANTS tenants (the least recently active is
 * dropped first).
 *
 * Recording is the cheap half: a record is what arrived as it arrived (the header names and
 * values, the body text), the status and the timing, with the bearer token, card numbers, cvv2
 * and secrets masked (lib/masking.ts) before it is kept. Nothing is parsed, copied into objects
 * or pretty-printed then; readers do that (journal/entry.ts) when someone reads. A reader parses
 * a body back only when it nests at most MAX_JSON_DEPTH levels (lib/json-depth.ts), so a hostile
 * body (10 KB nested 5,000 deep) cannot overflow the stack of whatever serialises it again.
 */
import { maskAuthorization, maskJsonSecrets, maskSecretPath } from '../lib/masking.js'

export const MAX_ENTRIES_PER_TENANT = 1000
export const MAX_BYTES_PER_TENANT = 4 * 1024 * 1024
export const MAX_BODY_CHARS = 64 * 1024
export const MAX_TENANTS = 64

/** A request and its answer, as the HTTP layer hands them over (before masking). */
export type Arrival = {
  tenantId: string
  /** The request's instant on the tenant's sandbox clock. */
  at: number
  /**
   * The request's instant on the machine's clock (ms since the epoch): on a manual sandbox clock
   * every request has the same `at`, and this tells them apart.
   */
  wallAt: number
  method: string
  path: string
  /** `?…` as sent, or empty. */
  query: string
  status: number
  latencyMs: number
  /** Header names and values, alternating, as they arrived (node's `rawHeaders`). */
  headers: readonly string[]
  requestBody: string | null
  responseBody: string | null
}

/**
 * One kept record: an arrival masked and bounded, numbered in the order requests were kept. Its
 * headers are one string, names and values parted by newlines (neither can hold one).
 */
export type JournalRecord = Omit<Arrival, 'tenantId' | 'headers'> & { seq: number; headers: string }

export type JournalFilter = {
  method?: string
  /** An exact path, or a pattern where `*` matches any run of characters. */
  path?: string
  /** An exact status (`201`) or a class (`4xx`). */
  status?: string
}

/**
 * A fixed ring of MAX_ENTRIES_PER_TENANT slots: `count` records from slot `first` on, the oldest
 * first. A record is five numbers side by side in `numbers` (off the collector's heap) and six
 * strings side by side in `strings`, so that keeping one writes two runs of adjacent memory
 * (88 KB a tenant, taken at its first request: at most MAX_TENANTS of them are kept). One
 * object per record would outlive the young generation and be copied out of it; strings shared
 * with the request before (the same headers, path, body and answer) leave the collector next
 * to nothing to copy.
 */
type Ring = {
  first: number
  count: number
  bytes: number
  /** seq, at, status, latencyMs, wallAt of each slot */
  numbers: Float64Array
  /** method, path, query, headers, requestBody, responseBody of each slot */
  strings: (string | null)[]
}

/** A record's place in `numbers` (NUMBERS a slot) and in `strings` (STRINGS a slot). */
const SEQ = 0
const AT = 1
const STATUS = 2
const LATENCY_MS = 3
const WALL_AT = 4
const NUMBERS = 5
const METHOD = 0
const PATH = 1
const QUERY = 2
const HEADERS = 3
const REQUEST_BODY = 4
const RESPONSE_BODY = 5
const STRINGS = 6

export type Journal = ReturnType<typeof createJournal>

export function createJournal() {
  const byTenant = new Map<string, Ring>()
  let mostRecent: string | undefined
  let sequence = 0
  // each remembered apart: a request's body is compared with the last request's, an answer's
  // with the last answer's
  const maskedRequest = lastOf(maskJsonSecrets)
  const maskedResponse = lastOf(maskJsonSecrets)
  const maskedAuthorization = lastOf(maskAuthorization)
  const maskedPath = lastOf(maskSecretPath)
  // a client sends the same headers request after request: their record is then the last one's
  let lastHeaders: readonly string[] = []
  let lastJoined = ''
  function headersOf(headers: readonly string[]): string {
    if (!sameStrings(headers, lastHeaders)) {
      lastJoined = maskedHeaders(headers, maskedAuthorization)
      lastHeaders = headers
    }
    return lastJoined
  }

  function ringOf(tenantId: string): Ring {
    let ring = byTenant.get(tenantId)
    if (tenantId === mostRecent && ring) return ring
    if (ring) {
      // re-inserted so that the Map's order is least recently active first
      byTenant.delete(tenantId)
    } else {
      ring = emptyRing()
      if (byTenant.size >= MAX_TENANTS) byTenant.delete(byTenant.keys().next().value!)
    }
    byTenant.set(tenantId, ring)
    mostRecent = tenantId
    return ring
  }

  return {
    /** Keeps a request and its answer (read them back with find: nothing is built here). */
    record(arrival: Arrival): void {
      const ring = ringOf(arrival.tenantId)
      if (ring.count === MAX_ENTRIES_PER_TENANT) dropOldest(ring)
      // slots fill in order, 0 to the last, then round again
      const slot = (ring.first + ring.count) % MAX_ENTRIES_PER_TENANT
      const { numbers, strings } = ring
      const n = slot * NUMBERS
      numbers[n + SEQ] = ++sequence
      numbers[n + AT] = arrival.at
      numbers[n + STATUS] = arrival.status
      numbers[n + LATENCY_MS] = arrival.latencyMs
      numbers[n + WALL_AT] = arrival.wallAt
      const s = slot * STRINGS
      strings[s + METHOD] = arrival.method
      strings[s + PATH] = maskedPath(arrival.path)
      strings[s + QUERY] = arrival.query
      strings[s + HEADERS] = headersOf(arrival.headers)
      strings[s + REQUEST_BODY] = bounded(maskedRequest(arrival.requestBody))
      strings[s + RESPONSE_BODY] = bounded(maskedResponse(arrival.responseBody))
      ring.count++
      ring.bytes += sizeOf(ring, slot)
      while (ring.bytes > MAX_BYTES_PER_TENANT && ring.count > 1) dropOldest(ring)
    },

    /** The tenant's records that match, newest first. */
    find(tenantId: string, filter: JournalFilter = {}): JournalRecord[] {
      const ring = byTenant.get(tenantId)
      if (!ring) return []
      const matches = matcher(filter)
      const found: JournalRecord[] = []
      for (let i = ring.count - 1; i >= 0; i--) {
        const record = recordAt(ring, (ring.first + i) % MAX_ENTRIES_PER_TENANT)
        if (matches(record)) found.push(record)
      }
      return found
    },

    clear(tenantId: string): void {
      byTenant.delete(tenantId)
      if (mostRecent === tenantId) mostRecent = undefined
    },
  }
}

function emptyRing(): Ring {
  return {
    first: 0,
    count: 0,
    bytes: 0,
    numbers: new Float64Array(MAX_ENTRIES_PER_TENANT * NUMBERS),
    strings: new Array<string | null>(MAX_ENTRIES_PER_TENANT * STRINGS).fill(null),
  }
}

function recordAt(ring: Ring, slot: number): JournalRecord {
  const { numbers, strings } = ring
  const n = slot * NUMBERS
  const s = slot * STRINGS
  return {
    seq: numbers[n + SEQ],
    at: numbers[n + AT],
    status: numbers[n + STATUS],
    latencyMs: numbers[n + LATENCY_MS],
    wallAt: numbers[n + WALL_AT],
    method: strings[s + METHOD]!,
    path: strings[s + PATH]!,
    query: strings[s + QUERY]!,
    headers: strings[s + HEADERS]!,
    requestBody: strings[s + REQUEST_BODY],
    responseBody: strings[s + RESPONSE_BODY],
  }
}

/** Drops the oldest record, and lets go of its bodies. */
function dropOldest(ring: Ring): void {
  ring.bytes -= sizeOf(ring, ring.first)
  const s = ring.first * STRINGS
  ring.strings[s + REQUEST_BODY] = null
  ring.strings[s + RESPONSE_BODY] = null
  ring.first = (ring.first + 1) % MAX_ENTRIES_PER_TENANT
  ring.count--
}

function sizeOf(ring: Ring, slot: number): number {
  const s = slot * STRINGS
  return (
    (ring.strings[s + REQUEST_BODY]?.length ?? 0) +
    (ring.strings[s + RESPONSE_BODY]?.length ?? 0) +
    256
  )
}

/**
 * The headers with every Authorization value masked, as one string (the caller's list is left
 * alone). `mask` remembers its last answer: a client sends the same token request after request.
 */
function maskedHeaders(headers: readonly string[], mask: (value: string) => string | null): string {
  let kept = headers
  for (let i = 0; i < headers.length; i += 2) {
    const name = headers[i]
    if (name.length !== 13 || name.toLowerCase() !== 'authorization') continue
    if (kept === headers) kept = headers.slice()
    ;(kept as string[])[i + 1] = mask(headers[i + 1])!
  }
  // join makes one flat string (+= would keep a tree of the parts)
  return kept.join('\n')
}

function sameStrings(a: readonly string[], b: readonly string[]): boolean {
  if (a.length !== b.length) return false
  for (let i = 0; i < a.length; i++) if (a[i] !== b[i]) return false
  return true
}

function bounded(text: string | null): string | null {
  if (text === null || text.length === 0) return null
  return text.length > MAX_BODY_CHARS ? text.slice(0, MAX_BODY_CHARS) : text
}

/**
 * `mask`, remembering its last answer: a list page served from the read cache hands the
 * journal the same text again and again (a client the same token, often the same body), which
 * is then masked once and kept once: a text equal to the last one is kept as the last one's
 * string, and the new one is left to the young generation.
 */
function lastOf(mask: (text: string) => string): (text: string | null) => string | null {
  let lastText: string | undefined
  let lastMasked = ''
  return (text) => {
    if (text === null) return null
    if (text !== lastText) {
      lastMasked = mask(text)
      lastText = text
    }
    return lastMasked
  }
}

function matcher(filter: JournalFilter): (record: JournalRecord) => boolean {
  const method = filter.method?.toUpperCase()
  const path = filter.path === undefined ? undefined : pathPattern(filter.path)
  const status = filter.status
  return (record) =>
    (method === undefined || record.method === method) &&
    (path === undefined || path.test(record.path)) &&
    (status === undefined || statusMatches(record.status, status))
}

function pathPattern(path: string): RegExp {
  const escaped = path.split('*').map((part) => part.replace(/[.+?^${}()|[\]\\]/g, '\\$&'))
  return new RegExp(`^${escaped.join('.*')}$`)
}

function statusMatches(status: number, wanted: string): boolean {
  if (/^[1-5]xx$/i.test(wanted)) return Math.floor(status / 100) === Number(wanted[0])
  return status === Number(wanted)
}
