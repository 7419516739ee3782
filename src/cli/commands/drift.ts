/**
 * `card-sandbox drift <file> [--json] [--check] [--scenario <out.yaml>]`: the report of a record
 * file written by `card-sandbox proxy --record <file>`: where the real service's answers differ
 * from the sandbox's, grouped by route with counts, and the delays the recording shows. `--check`
 * makes it a CI gate: exit 1 on any finding, 0 on none. `--scenario` also writes what drifted as
 * a scenario file. `drift --webhook <delivery.json> [--secret <s>]` compares a saved real webhook
 * delivery with the sandbox's event instead. A missing or unreadable file is exit 2.
 */
import { readFileSync, writeFileSync } from 'node:fs'
import { parseArgs } from 'node:util'
import { helpRow } from '../help.js'
import { flagErrorMessage } from '../suggest.js'
import { scenarioFromReport } from '../../drift/pin.js'
import { compareRecording, type RecordLine, type Report } from '../../drift/report.js'
import { compareWebhook, type SavedDelivery, type WebhookFinding } from '../../drift/webhook.js'
import { SIGNATURE_HEADER } from '../../webhooks/sign.js'
import type { Command } from './command.js'

/** Every flag of `drift`, parsed in one place (parseDriftArgs). */
const FLAGS = {
  json: { type: 'boolean' },
  check: { type: 'boolean' },
  scenario: { type: 'string' },
  webhook: { type: 'string' },
  secret: { type: 'string' },
} as const

export type DriftArgs =
  | { file: string; json: boolean; check: boolean; scenario?: string }
  | { webhook: string; secret?: string; json: boolean; check: boolean }

export const SECRET_ENV = 'CARD_SANDBOX_WEBHOOK_SECRET'

export const driftCommand: Command = {
  name: 'drift',
  usage: 'drift <file> [--json] [--check] [--scenario <out.yaml>]',
  summary: 'report where the real service differed from the sandbox in a proxy record file',
  help: [
    helpRow('<file>', 'the JSON Lines file of proxy --record'),
    helpRow('--json', 'print the report (or the webhook findings) as JSON'),
    helpRow('--check', 'exit 1 if there is any difference, 0 if none'),
    helpRow(
      '--scenario <out.yaml>',
      'also write what drifted as a scenario file (load it: card-sandbox --scenario <out.yaml>)',
    ),
    helpRow(
      '--webhook <delivery.json>',
      'instead of <file>: compare a real webhook delivery saved as {headers, body} (body: the ' +
        "raw string received) with the sandbox's event of its type",
    ),
    helpRow(
      '--secret <s>',
      `with --webhook: check that the signature verifies with this secret (else ${SECRET_ENV})`,
    ),
  ],
  run: drift,
}

/** The arguments, or the message saying what is wrong with them. */
export function parseDriftArgs(args: string[]): DriftArgs | string {
  try {
    const { values, positionals } = parseArgs({
      args,
      strict: true,
      allowPositionals: true,
      options: FLAGS,
    })
    const json = values.json ?? false
    const check = values.check ?? false
    if (values.webhook !== undefined) {
      if (positionals.length > 0)
        return `--webhook reads the delivery file alone (a record file was given too: ${positionals.join(', ')})`
      if (values.scenario !== undefined)
        return '--scenario pins a record file, not a webhook delivery'
      return { webhook: values.webhook, secret: values.secret, json, check }
    }
    if (values.secret !== undefined) return '--secret goes with --webhook <delivery.json>'
    if (positionals.length !== 1)
      return positionals.length === 0
        ? 'drift needs the record file: card-sandbox drift <file>'
        : `drift reads one record file (got ${positionals.length}: ${positionals.join(', ')})`
    return { file: positionals[0], json, check, scenario: values.scenario }
  } catch (error) {
    return flagErrorMessage(error, Object.keys(FLAGS))
  }
}

async function drift(args: string[], env: NodeJS.ProcessEnv): Promise<number> {
  const parsed = parseDriftArgs(args)
  if (typeof parsed === 'string') return fail(`${parsed}\nRun 'npx card-sandbox help drift'.`)
  if ('webhook' in parsed) return webhook(parsed, parsed.secret ?? env[SECRET_ENV])
  const lines = readRecording(parsed.file)
  if (typeof lines === 'string') return fail(lines)
  const report = compareRecording(lines)
  process.stdout.write(parsed.json ? JSON.stringify(report, null, 2) + '\n' : formatReport(report))
  if (parsed.scenario !== undefined) {
    const text = scenarioFromReport(report, lines)
    try {
      writeFileSync(parsed.scenario, text)
    } catch (error) {
      return fail(`cannot write ${parsed.scenario}: ${(error as Error).message}`)
    }
    const rules = text.split('\n').filter((line) => line.startsWith('  - ')).length
    // on stderr under --json: stdout stays one JSON document
    const out = parsed.json ? process.stderr : process.stdout
    out.write(
      `${parsed.json ? '' : '\n'}Wrote ${parsed.scenario}: ${plural(rules, 'rule')} pinning what ` +
        `drifted (each says where it comes from).\n` +
        `Load it with: npx card-sandbox --scenario ${parsed.scenario}\n`,
    )
  }
  return parsed.check && report.findings > 0 ? 1 : 0
}

/** `--webhook`: a saved delivery against the sandbox's event of its type. */
function webhook(args: { webhook: string; json: boolean; check: boolean }, secret?: string) {
  const saved = readDelivery(args.webhook)
  if (typeof saved === 'string') return fail(saved)
  const findings = compareWebhook(saved, secret || undefined)
  process.stdout.write(
    args.json
      ? JSON.stringify(findings, null, 2) + '\n'
      : formatWebhook(findings, eventOf(saved.body), secret),
  )
  return args.check && findings.length > 0 ? 1 : 0
}

/** The event a delivery's body names, `?` if none. */
function eventOf(body: string): string {
  try {
    const event = (JSON.parse(body) as { event?: unknown } | null)?.event
    return typeof event === 'string' ? event : '?'
  } catch {
    return '?'
  }
}

/** The saved delivery, or what is wrong with the file. */
export function readDelivery(file: string): SavedDelivery | string {
  const text = readText(file, 'a saved delivery')
  if ('error' in text) return text.error
  let value: unknown
  try {
    value = JSON.parse(text.text)
  } catch (error) {
    return `${file} is not JSON (${(error as Error).message}); a saved delivery is {"headers": {...}, "body": "<the raw body>"}`
  }
  const saved = value as Partial<SavedDelivery> | null
  if (saved === null || typeof saved !== 'object' || Array.isArray(saved))
    return `${file} is not a saved delivery: expected an object {"headers": {...}, "body": "..."}`
  if (saved.headers === null || typeof saved.headers !== 'object' || Array.isArray(saved.headers))
    return `${file} is not a saved delivery: "headers" must be an object of the headers received`
  if (typeof saved.body !== 'string')
    return `${file} is not a saved delivery: "body" must be the raw body as a string, as received`
  return { headers: saved.headers, body: saved.body }
}

/** A file's text, or what keeps it from being read (naming the file). */
function readText(file: string, what: string): { text: string } | { error: string } {
  try {
    return { text: readFileSync(file, 'utf8') }
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code
    if (code === 'ENOENT') return { error: `${file} does not exist` }
    if (code === 'EISDIR') return { error: `${file} is a directory, not ${what}` }
    return { error: `cannot read ${file}: ${(error as Error).message}` }
  }
}

function fail(message: string): number {
  process.stderr.write(`card-sandbox drift: ${message}\n`)
  return 2
}

/** The record file's lines, or what is wrong with it (naming the file and the line). */
export function readRecording(file: string): RecordLine[] | string {
  const read = readText(file, 'a record file')
  if ('error' in read) return read.error
  const text = read.text
  const lines: RecordLine[] = []
  const rows = text.split('\n')
  for (let i = 0; i < rows.length; i++) {
    const row = rows[i].trim()
    if (row === '') continue
    let value: unknown
    try {
      value = JSON.parse(row)
    } catch (error) {
      return `${file} line ${i + 1} is not JSON (${(error as Error).message}); a record file has one JSON object per line`
    }
    const problem = problemOf(value)
    if (problem) return `${file} line ${i + 1} is not a record line: ${problem}`
    lines.push(value as RecordLine)
  }
  return lines
}

function problemOf(value: unknown): string | undefined {
  if (value === null || typeof value !== 'object' || Array.isArray(value))
    return 'expected an object'
  const line = value as Record<string, unknown>
  if (typeof line.at !== 'string' || !Number.isFinite(Date.parse(line.at)))
    return '"at" must be an ISO instant'
  if (typeof line.method !== 'string') return '"method" must be a string'
  if (typeof line.path !== 'string') return '"path" must be a string'
  if (typeof line.status !== 'number') return '"status" must be a number'
  if (line.findings !== undefined && !Array.isArray(line.findings))
    return '"findings" must be an array'
  return undefined
}

// ---------------------------------------------------------------------------------------------
// The terminal report

/** A terminal's width: a finding's example goes on its own line past it. */
const WIDTH = 100

const plural = (n: number, word: string) => `${n} ${word}${n === 1 ? '' : 's'}`

/** A value in a line: JSON, cut to a width a terminal holds. */
function shown(value: unknown, width = 48): string {
  const text = JSON.stringify(value) ?? String(value)
  return text.length > width ? text.slice(0, width - 1) + '…' : text
}

/** The kinds whose upstream is the word "absent" when the upstream sent nothing there. */
const ABSENT_KINDS = new Set(['missing-key', 'header'])

function seconds(ms: number | null): string {
  return ms === null ? '-' : `${(ms / 1000).toFixed(ms < 10_000 ? 1 : 0)} s`
}

export function formatWebhook(
  findings: WebhookFinding[],
  event: string,
  secret: string | undefined,
): string {
  const signature = findings.find((f) => f.kind === 'signature')
  const unsigned = findings.some(
    (f) => f.path === `header:${SIGNATURE_HEADER}` && f.upstream === 'absent',
  )
  const verified = !secret
    ? `not verified (no --secret nor ${SECRET_ENV})`
    : signature
      ? String(signature.upstream)
      : unsigned
        ? 'none to verify'
        : 'verifies with the secret given'
  const out = [
    `webhook ${event}: ` +
      (findings.length === 0
        ? "no difference from the sandbox's event"
        : plural(findings.length, 'finding')),
    `signature: ${verified}`,
  ]
  const pathWidth = Math.min(40, Math.max(0, ...findings.map((f) => f.path.length)))
  for (const f of findings) {
    const upstream = typeof f.upstream === 'string' ? f.upstream : shown(f.upstream)
    const sandbox = typeof f.sandbox === 'string' ? f.sandbox : shown(f.sandbox)
    const head = `  ${f.kind.padEnd(11)} ${f.path.padEnd(pathWidth)}`
    const example = `delivery ${upstream}, sandbox ${sandbox}`
    // past the terminal's width, each side goes on its own line under the path
    if (head.length + 2 + example.length <= WIDTH) out.push(`${head}  ${example}`)
    else {
      const indent = ' '.repeat(14)
      out.push(head.trimEnd(), `${indent}delivery ${upstream}`, `${indent}sandbox  ${sandbox}`)
    }
  }
  return out.join('\n') + '\n'
}

export function formatReport(report: Report): string {
  const out: string[] = []
  const drifted = report.routes.filter((r) => r.findings > 0).length
  out.push(
    `${plural(report.exchanges, 'exchange')}, ${plural(report.findings, 'finding')} ` +
      `on ${drifted} of ${plural(report.routes.length, 'route')}`,
    '',
  )
  for (const route of report.routes) {
    out.push(
      `${route.route}  (${plural(route.exchanges, 'exchange')}, ` +
        `${route.findings === 0 ? 'no difference' : plural(route.findings, 'finding')})`,
    )
    const pathWidth = Math.min(40, Math.max(0, ...route.counts.map((c) => c.path.length)))
    for (const count of route.counts) {
      const first = count.examples[0]
      // "absent" and the sandbox's descriptions are words; what the upstream sent is JSON
      const absent = first?.upstream === 'absent' && ABSENT_KINDS.has(count.kind)
      const upstream = absent ? 'absent' : shown(first?.upstream)
      const sandbox = typeof first?.sandbox === 'string' ? first.sandbox : shown(first?.sandbox)
      const head = `  ${count.kind.padEnd(11)} ${count.path.padEnd(pathWidth)} ${`${count.count}×`.padStart(4)}`
      const example = `upstream ${upstream}, sandbox ${sandbox}`
      // past the terminal's width, the example goes under the path
      if (head.length + 2 + example.length <= WIDTH) out.push(`${head}  ${example}`)
      else out.push(head, `${' '.repeat(14)}${example}`)
    }
    out.push('')
  }
  const timed = report.timing.filter((t) => t.resources > 0)
  out.push('Delays (from each create: the last read in the old state, the first in the new)')
  if (timed.length === 0) out.push('  no resource that moves by itself was created and read again')
  const nameWidth = Math.max(0, ...timed.map((t) => t.delay.length))
  for (const t of timed) {
    out.push(
      `  ${t.delay.padEnd(nameWidth)}  old at ${seconds(t.lastOldMs)}, new at ` +
        `${seconds(t.firstNewMs)}, sandbox ${seconds(t.sandboxMs)} (${t.moved} of ${t.resources} moved` +
        `${t.newStates.length ? `: ${t.newStates.join(', ')}` : ''})`,
    )
  }
  return out.join('\n') + '\n'
}
