/**
 * Pins what drifted: a drift report (and the record lines it was made from) turned into a
 * scenario file that `--scenario` loads, so the sandbox answers in the real service's shape
 * while it keeps creating and moving resources with its own references. Per route with
 * findings: an `edit` rule (a renamed key renamed, renames.ts; an extra key copied from the key
 * of the same answer it equals, else added with a placeholder or the upstream's masked value,
 * pin-values.ts; a missing key dropped, a type changed, a null where the upstream sends one,
 * the status and message of a success), a `respond` rule for an error status the upstream gave
 * where the sandbox succeeds, and a comment for what an edit cannot pin (headers, formats, enum
 * values, key order). The delay bounds the recording shows go into `delays:`. No personal value
 * of the recording is written.
 */
import { createRequire } from 'node:module'
import { DELAY_NAMES } from '../domain/schedule.js'
import type { Edit, EditType } from '../engine/scenarios/edit.js'
import type { Finding } from './compare.js'
import {
  copySource,
  firstValueAt,
  generalPath,
  lastKey,
  personalValues,
  withoutPersonal,
  type PersonalValues,
  type Placeholder,
} from './pin-values.js'
import { findRenames, newName, renamedIn, withRenames } from './renames.js'
import type { RecordLine, Report } from './report.js'

let yaml: typeof import('yaml') | undefined
const loadYaml = () => (yaml ??= createRequire(import.meta.url)('yaml') as typeof import('yaml'))

/** The YAML text of a scenario pinning the report's findings. */
export function scenarioFromReport(
  report: Report,
  lines: RecordLine[],
  options: { name?: string } = {},
): string {
  const out: string[] = [
    '# Pinned from a drift recording: each rule makes the sandbox answer as the real service did.',
    `# ${lines.length} exchange${lines.length === 1 ? '' : 's'} recorded` +
      (lines.length ? `, ${lines[0].at} to ${lines.at(-1)!.at}` : '') +
      '. Load it with: card-sandbox --scenario <this file>',
    `name: ${options.name ?? 'pinned-drift'}`,
  ]

  const delays = pinDelays(boundsOf(report))
  if (delays.lines.length) out.push(...delays.lines)

  const rules: string[] = []
  const personal = personalValues(lines)
  // the first rule that matches wins: a literal path before a template that would also match it
  const params = (route: string) => (route.match(/\{/g) ?? []).length
  const routes = [...report.routes].sort((a, b) => params(a.route) - params(b.route))
  for (const { route, findings } of routes) {
    if (findings === 0) continue
    rules.push(...pinRoute(route, lines, personal))
  }
  if (rules.length) out.push('rules:', ...rules)
  else out.push('rules: []')
  return out.join('\n') + '\n'
}

/**
 * The delay bounds the report shows, by name: the last read in the old state (the delay is at
 * least this) and the first in the new one (at most this), from each create.
 */
type Bounds = { min?: number; max?: number; sandboxMs?: number }

function boundsOf(report: Report): Record<string, Bounds> {
  const bounds: Record<string, Bounds> = {}
  for (const t of report.timing) {
    if (t.resources === 0) continue
    bounds[t.delay] = {
      sandboxMs: t.sandboxMs,
      ...(t.lastOldMs !== null && { min: t.lastOldMs }),
      ...(t.firstNewMs !== null && { max: t.firstNewMs }),
    }
  }
  return bounds
}

function pinDelays(delays: Record<string, Bounds>) {
  const lines: string[] = []
  const known = new Set<string>(DELAY_NAMES)
  const entries = Object.entries(delays)
  for (const [name, { min, max, sandboxMs }] of entries) {
    const bounds = `observed between ${min ?? '?'} ms and ${max ?? '?'} ms`
    // the move happened after the last old read and by the first new one: a default in between
    // is what the recording shows, and stays
    if (
      sandboxMs !== undefined &&
      min !== undefined &&
      max !== undefined &&
      min < sandboxMs &&
      sandboxMs <= max
    ) {
      lines.push(`  # ${name}: ${bounds}; the sandbox's ${sandboxMs} ms lies within (not pinned)`)
      continue
    }
    // the first read in the new state is a bound the move had happened by
    const value = max ?? min
    if (!known.has(name) || value === undefined) {
      lines.push(`  # ${name}: ${bounds} (${known.has(name) ? 'no bound' : 'not a sandbox delay'})`)
      continue
    }
    const which = max === undefined ? 'the lower bound (no upper one seen)' : 'the upper bound'
    lines.push(`  # ${bounds}; ${which} is pinned`, `  ${name}: ${Math.ceil(value)}ms`)
  }
  return { lines: lines.length ? ['delays:', ...lines] : [] }
}

/**
 * The rules (YAML list items, with their comments) for one route's findings; `personal`: the
 * recording's personal values, never written.
 */
function pinRoute(route: string, lines: RecordLine[], personal: PersonalValues): string[] {
  const [method, template = ''] = route.split(' ')
  const path = template.replace(/\{([^}]+)\}/g, ':$1')
  const recorded = lines.filter(
    (line) => line.method === method && routeMatches(template, line.path),
  )
  const renames = findRenames(route, recorded)
  // each call's findings with its renames read as such (renames.ts)
  const calls = recorded.map((line) => withRenames(line, renames, route))
  // every finding of the route, not only the report's examples of each (path, kind)
  const findings = calls.flatMap((line) => (line.findings ?? []).filter((f) => f.route === route))
  const distinct = dedupe(findings)
  /** A recorded value as a comment shows it: without the recording's personal values. */
  const shown = (value: unknown, where = '$') =>
    describe(withoutPersonal(value, personal, { path: where, key: lastKey(where) }))
  const seen = (f: Finding) =>
    calls.filter((line) => (line.findings ?? []).some((g) => sameFinding(f, g)))
  const out: string[] = []

  if (distinct.some((f) => f.kind === 'unknown-route')) {
    out.push(`  # ${route}: the sandbox has no such route; nothing to pin (${calls.length} calls)`)
    return out
  }

  // an error the upstream gave where the sandbox succeeds: answered as recorded
  const refused = distinct.filter(
    (f) => f.kind === 'status' && statusOf(f.upstream, seen(f)) >= 400,
  )
  for (const finding of refused) {
    const where = seen(finding)
    const first = where[0]
    const status = statusOf(finding.upstream, where)
    const match: Record<string, unknown> = { method, path }
    // only the calls that were refused, when others of the route succeeded
    if (where.length > 0 && where.length < calls.length)
      match.nth = where.map((line) => calls.indexOf(line) + 1)
    const respond = {
      status,
      ...(first?.response?.body !== undefined && {
        body: withoutPersonal(first.response.body, personal, { path: '$', key: '' }),
      }),
    }
    const rule = { match, respond }
    out.push(
      `  # ${route}: status ${status} where the sandbox answers ${describe(finding.sandbox)}` +
        ` — ${where.length || countOf(finding, findings)} of ${calls.length || '?'} calls` +
        (match.nth ? ' (nth: those calls, counted per tenant)' : '') +
        (first ? `, first at ${first.at}` : ''),
      ...item(rule),
    )
  }

  const edit: Edit = {}
  const pinned: Finding[] = []
  const notes: string[] = []
  for (const rename of renames) {
    ;(edit.rename ??= {})[rename.path] = newName(rename)
    notes.push(
      `rename at ${rename.path}: the real service answers it as ${rename.renamed} ` +
        "(each answer's own value moves under the new name)",
    )
  }
  for (const finding of distinct) {
    const where = seen(finding)
    // an edit changes success answers only: what differed in an error answer is a note
    if (
      finding.kind !== 'status' &&
      where.length > 0 &&
      where.every((line) => line.status < 200 || line.status > 299)
    ) {
      notes.push(`${finding.kind} at ${finding.path}: seen on error answers only (not pinned)`)
      continue
    }
    const path = generalPath(finding.path)
    switch (finding.kind) {
      case 'extra-key':
        notes.push(...pinAdded(edit, path, upstreamValue(finding, where), where, personal))
        break
      case 'missing-key':
        ;(edit.drop ??= []).push(path)
        break
      case 'type':
        ;(edit.retype ??= {})[path] = typeOf(upstreamValue(finding, where))
        break
      case 'null':
        ;(edit.retype ??= {})[path] = 'null'
        break
      case 'message':
        if (typeof finding.upstream === 'string')
          edit.message = withoutPersonal(finding.upstream, personal, {
            path: '$.message',
            key: 'message',
          }) as string
        else {
          notes.push(`message at ${finding.path}: ${shown(finding.upstream)} (not pinned)`)
          continue
        }
        break
      case 'status': {
        const status = statusOf(finding.upstream, where)
        if (status >= 400) continue // pinned above
        if (status >= 200 && status <= 299) edit.status = status
        else {
          notes.push(`status ${status} where the sandbox answers ${describe(finding.sandbox)}`)
          continue
        }
        break
      }
      case 'enum':
        // a fixed value would freeze a field that moves (a status) or that the request chooses
        notes.push(
          `enum at ${finding.path}: upstream ${shown(finding.upstream, finding.path)}, sandbox ` +
            `${describe(finding.sandbox)} (not pinned: a fixed value would stop it following the resource)`,
        )
        continue
      case 'header':
        notes.push(
          `header ${finding.path.replace(/^header:/, '')}: upstream ${shown(finding.upstream)},` +
            ` sandbox ${describe(finding.sandbox)} (edits change bodies, not headers)`,
        )
        continue
      default:
        notes.push(
          `${finding.kind} at ${finding.path}: upstream ${shown(finding.upstream, finding.path)}, ` +
            `sandbox ${describe(finding.sandbox)} (not pinned: an instant, a format or an order differs per answer)`,
        )
        continue
    }
    pinned.push(finding)
  }

  if (pinned.length || renames.length) {
    const kinds = [...new Set([...renames.map(() => 'rename'), ...pinned.map((f) => f.kind)])].join(
      ', ',
    )
    const count = pinned.length + renames.length
    const where = calls.filter(
      (line, i) =>
        renames.some((rename) => renamedIn(recorded[i], rename)) ||
        (line.findings ?? []).some((g) => pinned.some((f) => sameFinding(f, g))),
    )
    out.push(
      `  # ${route}: ${kinds} — ${count} finding${count === 1 ? '' : 's'}` +
        ` on ${where.length || '?'} of ${calls.length || '?'} calls` +
        (where[0] ? `, first at ${where[0].at}` : ''),
      ...notes.map((note) => `  #   ${note}`),
      ...item({ match: { method, path }, edit }),
    )
  } else if (notes.length) {
    out.push(`  # ${route}: nothing an edit can pin`, ...notes.map((note) => `  #   ${note}`))
  }
  return out
}

/** A rule as a YAML list item, two spaces in under `rules:`. */
function item(rule: Record<string, unknown>): string[] {
  const text = loadYaml().stringify(rule, { lineWidth: 0 }).trimEnd().split('\n')
  return text.map((line, i) => (i === 0 ? `  - ${line}` : `    ${line}`))
}

function dedupe(findings: Finding[]): Finding[] {
  const out: Finding[] = []
  for (const f of findings) if (!out.some((g) => sameFinding(f, g))) out.push(f)
  return out
}

function sameFinding(a: Finding, b: Finding): boolean {
  return a.route === b.route && a.kind === b.kind && generalPath(a.path) === generalPath(b.path)
}

function countOf(finding: Finding, findings: Finding[]): number {
  return findings.filter((f) => sameFinding(f, finding)).length
}

/**
 * What the upstream sent where a finding is: read from the recorded (masked) answer, which keeps
 * each value's JSON type, else the finding's own `upstream`.
 */
function upstreamValue(finding: Finding, where: RecordLine[]): unknown {
  for (const line of where) {
    const own = (line.findings ?? []).find((g) => sameFinding(finding, g))
    const value = own && firstValueAt(line.response?.body, own.path)
    if (value !== undefined) return value
  }
  return finding.upstream
}

/**
 * An added key, pinned as a copy of the key it equals in every answer recorded, else added with
 * the recorded value less what belongs to one resource or one person; the notes that say so.
 */
function pinAdded(
  edit: Edit,
  path: string,
  recorded: unknown,
  where: RecordLine[],
  personal: PersonalValues,
): string[] {
  const source = copySource(
    path,
    where.map((line) => line.response?.body),
  )
  if (source !== undefined) {
    ;(edit.copy ??= {})[path] = source
    return [`${path}: a copy of ${source}, as in every answer recorded`]
  }
  const placeholders: Placeholder[] = []
  const at = { path, key: lastKey(path), placeholders }
  ;(edit.add ??= {})[path] = withoutPersonal(recorded ?? null, personal, at)
  return placeholders.map(placeholderNote)
}

function placeholderNote({ path, value, what }: Placeholder): string {
  return what === 'a personal field'
    ? `${path}: ${describe(value)}, a placeholder for a personal field (the recording's is never written)`
    : `${path}: ${describe(value)}, a placeholder for ${what} (the recorded one is one resource's)`
}

function routeMatches(template: string, path: string): boolean {
  const source = template
    .split('/')
    .map((part) => (/^\{.+\}$/.test(part) ? '[^/]+' : part.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')))
    .join('/')
  return new RegExp(`^${source}/?$`).test(path.split('?')[0])
}

function statusOf(upstream: unknown, where: RecordLine[]): number {
  if (typeof upstream === 'number') return upstream
  if (typeof upstream === 'string' && /^\d{3}$/.test(upstream)) return Number(upstream)
  return where[0]?.status ?? 0
}

function typeOf(value: unknown): EditType {
  if (value === null) return 'null'
  if (Array.isArray(value)) return 'array'
  const type = typeof value
  return type === 'number' || type === 'boolean' || type === 'object' ? type : 'string'
}

function describe(value: unknown): string {
  return value === undefined ? 'nothing' : JSON.stringify(value)
}
