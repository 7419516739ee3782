/**
 * The read side of the request journal: what a kept record (journal.ts) looks like to whoever
 * reads it, worked out only when someone reads (the control plane's `GET /__sandbox/requests`,
 * the dashboard).
 */
import { MAX_JSON_DEPTH, nestsDeeperThan } from '../lib/json-depth.js'
import type { JournalRecord } from './journal.js'

/** `req_12`: the record's id, in the order records were kept. */
export function entryId(record: JournalRecord): string {
  return `req_${record.seq}`
}

/**
 * The request's headers as a Fetch `Headers` shows them: names in lower case and in order, the
 * values of a repeated name joined with `, ` (Authorization already masked).
 */
export function requestHeaders(record: JournalRecord): Record<string, string> {
  const headers = new Headers()
  const kept = record.headers === '' ? [] : record.headers.split('\n')
  for (let i = 0; i < kept.length; i += 2) headers.append(kept[i], kept[i + 1])
  const out: Record<string, string> = {}
  headers.forEach((value, name) => (out[name] = value))
  return out
}

/** A kept body as JSON when it parses and nests at most MAX_JSON_DEPTH levels, else its text. */
export function parsedBody(text: string | null): unknown {
  if (text === null) return null
  if (nestsDeeperThan(text, MAX_JSON_DEPTH)) return text
  try {
    return JSON.parse(text)
  } catch {
    return text
  }
}
