/**
 * The request journal (PRODUCT §8, `GET /__sandbox/requests`): every request a tenant made and
 * what the sandbox answered, newest first, so a test can assert what its client sent (as with
 * WireMock's verification). Kept in memory and bounded: per tenant the last
 * MAX_ENTRIES_PER_TENANT entries and MAX_BYTES_PER_TENANT of body text, bodies cut at
 * MAX_BODY_CHARS, and the journals of at most MAX_TENANTS tenants (the least recently active is
 * dropped first). Card numbers, cvv2 and secrets are masked (masking.ts) before anything is
 * stored. Bodies are kept as the text that was sent or answered; a reader parses one back only
 * when it nests at most MAX_JSON_DEPTH levels (lib/json-depth.ts), so a hostile body (10 KB nested
 * 5,000 deep) cannot overflow the stack of whatever serialises the entry again.
 */
import { maskJsonSecrets } from '../lib/masking.js'
import { MAX_JSON_DEPTH, nestsDeeperThan } from '../lib/json-depth.js'

export const MAX_ENTRIES_PER_TENANT = 1000
export const MAX_BYTES_PER_TENANT = 4 * 1024 * 1024
export const MAX_BODY_CHARS = 64 * 1024
export const MAX_TENANTS = 64

export type JournalRecord = {
  tenantId: string
  /** The request's instant on the tenant's sandbox clock. */
  at: number
  method: string
  path: string
  query: string
  status: number
  latencyMs: number
  requestHeaders: Record<string, string>
  requestBody: string | null
  responseBody: string | null
}

export type JournalEntry = JournalRecord & { id: string }

export type JournalFilter = {
  method?: string
  /** An exact path, or a pattern where `*` matches any run of characters. */
  path?: string
  /** An exact status (`201`) or a class (`4xx`). */
  status?: string
}

type TenantJournal = { entries: JournalEntry[]; bytes: number }

export type Journal = ReturnType<typeof createJournal>

export function createJournal() {
  const byTenant = new Map<string, TenantJournal>()
  let sequence = 0

  function journalOf(tenantId: string): TenantJournal {
    let journal = byTenant.get(tenantId)
    if (journal) {
      // re-inserted so that the Map's order is least recently active first
      byTenant.delete(tenantId)
    } else {
      journal = { entries: [], bytes: 0 }
      if (byTenant.size >= MAX_TENANTS) byTenant.delete(byTenant.keys().next().value!)
    }
    byTenant.set(tenantId, journal)
    return journal
  }

  return {
    record(record: JournalRecord): JournalEntry {
      const entry: JournalEntry = {
        ...record,
        id: `req_${++sequence}`,
        requestBody: storedBody(record.requestBody),
        responseBody: storedBody(record.responseBody),
      }
      const journal = journalOf(record.tenantId)
      journal.entries.push(entry)
      journal.bytes += sizeOf(entry)
      while (
        journal.entries.length > MAX_ENTRIES_PER_TENANT ||
        (journal.bytes > MAX_BYTES_PER_TENANT && journal.entries.length > 1)
      ) {
        journal.bytes -= sizeOf(journal.entries.shift()!)
      }
      return entry
    },

    /** The tenant's entries that match, newest first. */
    find(tenantId: string, filter: JournalFilter = {}): JournalEntry[] {
      const entries = byTenant.get(tenantId)?.entries ?? []
      const matches = matcher(filter)
      const found: JournalEntry[] = []
      for (let i = entries.length - 1; i >= 0; i--) if (matches(entries[i])) found.push(entries[i])
      return found
    },

    clear(tenantId: string): void {
      byTenant.delete(tenantId)
    },
  }
}

function sizeOf(entry: JournalEntry): number {
  return (entry.requestBody?.length ?? 0) + (entry.responseBody?.length ?? 0) + 256
}

function storedBody(text: string | null): string | null {
  if (text === null || text.length === 0) return null
  const masked = maskJsonSecrets(text)
  return masked.length > MAX_BODY_CHARS ? masked.slice(0, MAX_BODY_CHARS) : masked
}

function matcher(filter: JournalFilter): (entry: JournalEntry) => boolean {
  const method = filter.method?.toUpperCase()
  const path = filter.path === undefined ? undefined : pathPattern(filter.path)
  const status = filter.status
  return (entry) =>
    (method === undefined || entry.method === method) &&
    (path === undefined || path.test(entry.path)) &&
    (status === undefined || statusMatches(entry.status, status))
}

function pathPattern(path: string): RegExp {
  const escaped = path.split('*').map((part) => part.replace(/[.+?^${}()|[\]\\]/g, '\\$&'))
  return new RegExp(`^${escaped.join('.*')}$`)
}

function statusMatches(status: number, wanted: string): boolean {
  if (/^[1-5]xx$/i.test(wanted)) return Math.floor(status / 100) === Number(wanted[0])
  return status === Number(wanted)
}

/** A stored body as JSON when it parses and nests at most MAX_JSON_DEPTH levels, else its text. */
export function parsedBody(text: string | null): unknown {
  if (text === null) return null
  if (nestsDeeperThan(text, MAX_JSON_DEPTH)) return text
  try {
    return JSON.parse(text)
  } catch {
    return text
  }
}
