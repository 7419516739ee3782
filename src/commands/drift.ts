/**
 * `card-sandbox drift <file> [--json] [--check]`: the report of a record file written by
 * `card-sandbox proxy --record <file>`: where the real service's answers differ from the
 * sandbox's, grouped by route with counts, and the delays the recording shows. `--check` makes it
 * a CI gate: exit 1 on any finding, 0 on none. A missing or unreadable file is exit 2.
 */
import { readFileSync } from 'node:fs'
import { parseArgs } from 'node:util'
import { helpRow } from '../cli/help.js'
import { flagErrorMessage } from '../cli/suggest.js'
import { compareRecording, type RecordLine, type Report } from '../drift/report.js'
import type { Command } from './command.js'

/** Every flag of `drift`, parsed in one place (parseDriftArgs). */
const FLAGS = {
  json: { type: 'boolean' },
  check: { type: 'boolean' },
} as const

export type DriftArgs = { file: string; json: boolean; check: boolean }

export const driftCommand: Command = {
  name: 'drift',
  usage: 'drift <file> [--json] [--check]',
  summary: 'report where the real service differed from the sandbox in a proxy record file',
  help: [
    helpRow('<file>', 'the JSON Lines file of proxy --record'),
    helpRow('--json', 'print the report as JSON'),
    helpRow('--check', 'exit 1 if the recording shows any difference, 0 if none'),
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
    if (positionals.length !== 1)
      return positionals.length === 0
        ? 'drift needs the record file: card-sandbox drift <file>'
        : `drift reads one record file (got ${positionals.length}: ${positionals.join(', ')})`
    return { file: positionals[0], json: values.json ?? false, check: values.check ?? false }
  } catch (error) {
    return flagErrorMessage(error, Object.keys(FLAGS))
  }
}

async function drift(args: string[]): Promise<number> {
  const parsed = parseDriftArgs(args)
  if (typeof parsed === 'string') return fail(`${parsed}\nRun 'npx card-sandbox help drift'.`)
  const lines = readRecording(parsed.file)
  if (typeof lines === 'string') return fail(lines)
  const report = compareRecording(lines)
  process.stdout.write(parsed.json ? JSON.stringify(report, null, 2) + '\n' : formatReport(report))
  return parsed.check && report.findings > 0 ? 1 : 0
}

function fail(message: string): number {
  process.stderr.write(`card-sandbox drift: ${message}\n`)
  return 2
}

/** The record file's lines, or what is wrong with it (naming the file and the line). */
export function readRecording(file: string): RecordLine[] | string {
  let text: string
  try {
    text = readFileSync(file, 'utf8')
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code
    if (code === 'ENOENT') return `${file} does not exist`
    if (code === 'EISDIR') return `${file} is a directory, not a record file`
    return `cannot read ${file}: ${(error as Error).message}`
  }
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
