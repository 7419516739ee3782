/**
 * The report of a record file (the proxy's JSON Lines): its findings grouped by route, counted
 * per (path, kind) with a few examples, and what the recording shows of the delays of the
 * resources that move by themselves: for each delay name, the last read still in the old state
 * and the first read in the new one, measured from each resource's create, beside the sandbox's
 * default.
 */
import { DEFAULT_DELAYS_MS, type DelayName } from '../domain/schedule.js'
import type { Finding, FindingKind } from './compare.js'
import { routeOf } from './contract.js'

/** One line of a record file (the proxy writes them; see docs/drift.md). */
export type RecordLine = {
  /** The wall instant the request arrived (ISO 8601). */
  at: string
  ms?: number
  method: string
  path: string
  query?: string
  request?: { headers?: Record<string, string>; body?: unknown }
  status: number
  response?: { headers?: Record<string, string>; body?: unknown }
  findings?: Finding[]
  /** Set when the upstream gave no (whole) answer: the proxy answered 502 or 504 itself. */
  error?: 'refused' | 'reset' | 'timeout' | 'unreachable'
}

/** Some of what the upstream sent at one (path, kind), and when. */
export type ReportExample = { at: string; upstream: unknown; sandbox: unknown }

export type ReportCount = {
  path: string
  kind: FindingKind
  count: number
  /** Up to three, each with a different upstream value. */
  examples: ReportExample[]
}

export type ReportRoute = {
  /** `GET /v1/cards/{reference}` */
  route: string
  exchanges: number
  findings: number
  /** Most frequent first. */
  counts: ReportCount[]
}

/** What the recording shows of one delay of the sandbox (domain/schedule.ts's names). */
export type ReportDelay = {
  delay: string
  /** The sandbox's default, in milliseconds. */
  sandboxMs: number
  /** Resources created in the recording that this delay moves. */
  resources: number
  /** Of those, how many were read in their new state. */
  moved: number
  /** The latest read still in the old state, from its create (the delay is at least this). */
  lastOldMs: number | null
  /** The earliest read in a new state, from its create (the delay is at most this). */
  firstNewMs: number | null
  /** Every state read after the old one. */
  newStates: string[]
}

export type Report = {
  exchanges: number
  findings: number
  routes: ReportRoute[]
  timing: ReportDelay[]
}

const MAX_EXAMPLES = 3

/** The report of a recording's lines (in any order). */
export function compareRecording(lines: RecordLine[]): Report {
  const routes = new Map<string, ReportRoute>()
  let findings = 0
  for (const line of lines) {
    const route = line.findings?.[0]?.route ?? routeOf(line.method, line.path).route
    let entry = routes.get(route)
    if (!entry) routes.set(route, (entry = { route, exchanges: 0, findings: 0, counts: [] }))
    entry.exchanges++
    for (const finding of line.findings ?? []) {
      findings++
      entry.findings++
      let count = entry.counts.find((c) => c.path === finding.path && c.kind === finding.kind)
      if (!count)
        entry.counts.push(
          (count = { path: finding.path, kind: finding.kind, count: 0, examples: [] }),
        )
      count.count++
      const seen = count.examples.some(
        (e) => JSON.stringify(e.upstream) === JSON.stringify(finding.upstream),
      )
      if (!seen && count.examples.length < MAX_EXAMPLES)
        count.examples.push({ at: line.at, upstream: finding.upstream, sandbox: finding.sandbox })
    }
  }
  for (const entry of routes.values()) entry.counts.sort((a, b) => b.count - a.count)
  return {
    exchanges: lines.length,
    findings,
    // routes with findings first, then by name
    routes: [...routes.values()].sort(
      (a, b) => Number(b.findings > 0) - Number(a.findings > 0) || a.route.localeCompare(b.route),
    ),
    // an exchange the upstream never answered whole tells nothing of its delays
    timing: timingOf(lines.filter((line) => line.error === undefined)),
  }
}

// ---------------------------------------------------------------------------------------------
// Timing

type Read = (body: unknown) => { key: unknown; state: unknown }[]

/** The value at `keys` in a parsed JSON answer, or undefined. */
function dig(value: unknown, ...keys: (string | number)[]): unknown {
  let current = value
  for (const key of keys) {
    if (current === null || typeof current !== 'object') return undefined
    current = (current as Record<string | number, unknown>)[key]
  }
  return current
}

/**
 * A resource that moves by itself: the routes that create it (and where its key and first state
 * are in their answer), the routes that read it, and which states are the old one.
 */
type Move = {
  delay: DelayName
  creates: Record<string, Read>
  reads: Record<string, Read>
  old: (state: unknown) => boolean
}

const one = (record: unknown, key: string, state: string) =>
  record !== null && typeof record === 'object'
    ? [{ key: dig(record, key), state: dig(record, state) }]
    : []
const each = (records: unknown, key: string, state: string) =>
  Array.isArray(records) ? records.flatMap((r: unknown) => one(r, key, state)) : []

const TRANSACTION_CREATES = [
  'POST /v1/transactions/create',
  'POST /v1/transactions/create/card-to-bank',
  'POST /v1/transactions/create/card-to-wallet',
  'POST /v1/transactions/create/wallet-to-card',
]

const MOVES: Move[] = [
  {
    delay: 'card_user_verification',
    // the full-data flow only (under `data`): a widget-flow user waits for the widget
    creates: {
      'POST /v1/card-users/create': (b) => one(dig(b, 'data', 'userCard'), 'reference', 'status'),
      'POST /v1/card-users/resubmit': (b) => one(dig(b, 'data', 'userCard'), 'reference', 'status'),
    },
    reads: {
      'GET /v1/card-users/{reference}': (b) =>
        one(dig(b, 'data', 'cardUser'), 'reference', 'status'),
      'GET /v1/card-users': (b) =>
        ((dig(b, 'data') ?? []) as unknown[]).flatMap((page) =>
          each(dig(page, 'data'), 'reference', 'status'),
        ),
    },
    old: (state) => state === 'pending' || state === undefined,
  },
  {
    delay: 'card_issuing',
    creates: { 'POST /v1/cards/create': (b) => one(dig(b, 'data', 'card'), 'reference', 'status') },
    reads: {
      'GET /v1/cards/{reference}': (b) => one(dig(b, 'data', 'card'), 'reference', 'status'),
      'GET /v1/cards': (b) => each(dig(b, 'data'), 'reference', 'status'),
    },
    old: (state) => state === 'issuing',
  },
  {
    delay: 'card_link_details',
    // a linked card answers `issued` at once; its number comes after the delay
    creates: {
      'POST /v1/cards/link': (b) =>
        one(dig(b, 'data', 'card'), 'reference', 'card_number').map(filled('number')),
    },
    reads: {
      'GET /v1/cards/{reference}': (b) =>
        one(dig(b, 'data', 'card'), 'reference', 'card_number').map(filled('number')),
      'GET /v1/cards': (b) => each(dig(b, 'data'), 'reference', 'last_four').map(filled('number')),
    },
    old: (state) => state === 'no number',
  },
  {
    delay: 'transaction_settlement',
    creates: Object.fromEntries(
      TRANSACTION_CREATES.map((route) => [
        route,
        (b: unknown) => one(dig(b, 'data', 'transaction'), 'slug', 'status'),
      ]),
    ),
    reads: {
      'GET /v1/transactions/{reference}': (b) =>
        one(dig(b, 'transaction') ?? dig(b, 'data', 'transaction'), 'slug', 'status'),
      'GET /v1/transactions': (b) => each(dig(b, 'data', 'transaction'), 'slug', 'status'),
    },
    old: (state) => state === 'pending',
  },
  {
    delay: 'disburse_settlement',
    creates: {
      'POST /v1/disburses/create': (b) => one(dig(b, 'data', 'disburse'), 'reference', 'status'),
    },
    reads: {
      'GET /v1/disburses/{reference}': (b) => one(dig(b, 'data'), 'reference', 'status'),
      'GET /v1/disburses': (b) => each(dig(b, 'data'), 'reference', 'status'),
    },
    old: (state) => state === 'processing',
  },
  {
    delay: 'payment_outcome',
    creates: {
      'POST /v1/payments/create': (b) =>
        one(dig(b, 'data', 'payment') ?? dig(b, 'payment'), 'reference', 'status'),
    },
    reads: {
      'GET /v1/payments/{reference}': (b) => one(dig(b, 'data'), 'reference', 'status'),
      'GET /v1/payments': (b) => each(dig(b, 'data'), 'reference', 'status'),
    },
    old: (state) => state === 'pending',
  },
]

function filled(label: string) {
  return ({ key, state }: { key: unknown; state: unknown }) => ({
    key,
    state: state === null || state === undefined ? `no ${label}` : `${label} filled`,
  })
}

type Seen = {
  createdAt: number
  lastOld: number | null
  firstNew: number | null
  newStates: Set<string>
}

function timingOf(lines: RecordLine[]): ReportDelay[] {
  const ordered = lines
    .map((line) => ({ line, at: Date.parse(line.at) }))
    .filter(({ at, line }) => Number.isFinite(at) && line.status >= 200 && line.status < 300)
    .sort((a, b) => a.at - b.at)
  const routed = ordered.map(({ line, at }) => ({
    at,
    route: routeOf(line.method, line.path).route,
    body: line.response?.body,
  }))
  // a read in the same millisecond as the create comes after it
  const isCreate = (route: string) => MOVES.some((move) => route in move.creates)
  routed.sort((a, b) => a.at - b.at || Number(isCreate(b.route)) - Number(isCreate(a.route)))
  return MOVES.map((move) => {
    const resources = new Map<string, Seen>()
    for (const { at, route, body } of routed) {
      const create = move.creates[route]
      if (create) {
        for (const { key, state } of safely(create, body)) {
          if (typeof key !== 'string' || resources.has(key)) continue
          resources.set(key, {
            createdAt: at,
            lastOld: move.old(state) ? 0 : null,
            firstNew: move.old(state) ? null : 0,
            newStates: new Set(move.old(state) ? [] : [String(state)]),
          })
        }
        continue
      }
      const read = move.reads[route]
      if (!read) continue
      for (const { key, state } of safely(read, body)) {
        const seen = typeof key === 'string' ? resources.get(key) : undefined
        if (!seen) continue
        const after = at - seen.createdAt
        if (move.old(state)) seen.lastOld = Math.max(seen.lastOld ?? 0, after)
        else {
          seen.firstNew = Math.min(seen.firstNew ?? after, after)
          seen.newStates.add(String(state))
        }
      }
    }
    const all = [...resources.values()]
    const olds = all.map((s) => s.lastOld).filter((v): v is number => v !== null)
    const news = all.map((s) => s.firstNew).filter((v): v is number => v !== null)
    return {
      delay: move.delay,
      sandboxMs: DEFAULT_DELAYS_MS[move.delay],
      resources: all.length,
      moved: news.length,
      lastOldMs: olds.length ? Math.max(...olds) : null,
      firstNewMs: news.length ? Math.min(...news) : null,
      newStates: [...new Set(all.flatMap((s) => [...s.newStates]))].sort(),
    }
  })
}

function safely(read: Read, body: unknown) {
  try {
    return read(body)
  } catch {
    return []
  }
}
