/**
 * Reading scenario files (PRODUCT §9): YAML or JSON (JSON is read as YAML, for positions, once
 * JSON.parse has found no syntax error in a `.json` file: YAML would tell one in its own words),
 * validated with zod; an error names the file, the line and the bad field. Files in use are
 * watched: an edit is picked up, a broken edit keeps the last good version, and a deleted file
 * takes its scenario out of force until it comes back.
 */
import { readFileSync, watch } from 'node:fs'
import { createRequire } from 'node:module'
import { basename, dirname } from 'node:path'
import { scenarioSchema, type Scenario } from './schema.js'

/** YAML is only read when a scenario is loaded: not at every start (about 40 ms of imports). */
let yaml: typeof import('yaml') | undefined
const loadYaml = () => (yaml ??= createRequire(import.meta.url)('yaml') as typeof import('yaml'))

export class ScenarioError extends Error {
  constructor(
    message: string,
    readonly problems: { path: string; line?: number; message: string }[] = [],
  ) {
    super(message)
    this.name = 'ScenarioError'
  }
}

/** Parses and validates a scenario from text; `source` names it in errors. */
export function parseScenario(text: string, source = 'scenario'): Scenario {
  if (/\.json$/i.test(source)) checkJsonSyntax(text, source)
  const { LineCounter, parseDocument } = loadYaml()
  const lineCounter = new LineCounter()
  const doc = parseDocument(text, { lineCounter, prettyErrors: false, uniqueKeys: true })
  if (doc.errors.length > 0) {
    const error = doc.errors[0]
    const line = lineCounter.linePos(error.pos[0]).line
    throw new ScenarioError(`${source}:${line}: ${error.message.split('\n')[0]}`, [
      { path: '', line, message: error.message.split('\n')[0] },
    ])
  }
  return validateScenario(doc.toJS(), source, (path) => {
    const node = doc.getIn(path, true) as { range?: [number, number, number] } | undefined
    const holder = doc.getIn(path.slice(0, -1), true) as
      { range?: [number, number, number] } | undefined
    const offset = node?.range?.[0] ?? holder?.range?.[0]
    return offset === undefined ? undefined : lineCounter.linePos(offset).line
  })
}

/** Throws JSON.parse's syntax error with the line and column (1-based) where it found it. */
function checkJsonSyntax(text: string, source: string): void {
  const json = text.replace(/^\uFEFF/, '')
  try {
    JSON.parse(json)
  } catch (error) {
    const message = (error as Error).message
    // "… in JSON at position 42" (and "(line 3 column 5)" in newer Node); none at the end of input
    const at = /at position (\d+)/.exec(message)
    const offset = at ? Number(at[1]) : json.trimEnd().length
    const before = json.slice(0, offset)
    const line = before.split('\n').length
    const column = offset - before.lastIndexOf('\n')
    const what = message.replace(/ in JSON at position \d+.*$/s, '')
    throw new ScenarioError(
      `${source}: JSON syntax error at line ${line}, column ${column}: ${what}`,
      [{ path: '', line, message: `JSON syntax error at column ${column}: ${what}` }],
    )
  }
}

/** Validates a parsed scenario (a JSON body, or a parsed file). */
export function validateScenario(
  value: unknown,
  source = 'scenario',
  lineOf: (path: PropertyKey[]) => number | undefined = () => undefined,
): Scenario {
  const result = scenarioSchema.safeParse(value)
  if (result.success) return result.data
  const problems = result.error.issues
    .map((issue) => {
      const path = issue.path as PropertyKey[]
      const keys = issue.code === 'unrecognized_keys' ? issue.keys : [undefined]
      return keys.map((key) => {
        const full = key === undefined ? path : [...path, key]
        const message = key === undefined ? issue.message : `unknown field`
        return { path: full.map(String).join('.') || '(top level)', line: lineOf(full), message }
      })
    })
    .flat()
  const first = problems[0]
  const where = first.line === undefined ? source : `${source}:${first.line}`
  const more = problems.length > 1 ? ` (and ${problems.length - 1} more)` : ''
  throw new ScenarioError(`${where}: ${first.path}: ${first.message}${more}`, problems)
}

export function loadScenarioFile(path: string): Scenario {
  let text: string
  try {
    text = readFileSync(path, 'utf8')
  } catch (error) {
    throw new ScenarioError(`${path}: cannot read: ${(error as Error).message}`)
  }
  return parseScenario(text, path)
}

/** What a watcher reports about its file: a good version, a broken one, or its deletion. */
export type ScenarioFileEvents = {
  load(scenario: Scenario): void
  /** A broken version (the caller keeps the last good one). */
  error(error: ScenarioError): void
  /** The file is gone; `load` follows if it comes back. */
  remove(): void
}

/**
 * Watches a scenario file through its directory, so that a deleted file is noticed and a new
 * one of the same name picked up (a watch on the file itself ends with the file, and editors
 * that save by rename replace it). Returns a function that stops watching.
 */
export function watchScenarioFile(path: string, on: ScenarioFileEvents): () => void {
  const name = basename(path)
  let timer: NodeJS.Timeout | undefined
  let present = true
  const settle = () => {
    let text: string
    try {
      text = readFileSync(path, 'utf8')
    } catch (error) {
      const code = (error as NodeJS.ErrnoException).code
      if (code === 'ENOENT' || code === 'ENOTDIR') {
        if (present) on.remove()
        present = false
      } else on.error(new ScenarioError(`${path}: cannot read: ${(error as Error).message}`))
      return
    }
    present = true
    try {
      on.load(parseScenario(text, path))
    } catch (error) {
      if (error instanceof ScenarioError) on.error(error)
      else throw error
    }
  }
  const watcher = watch(dirname(path), { persistent: false }, (_event, filename) => {
    if (filename !== null && filename !== name) return
    // editors save in bursts, or replace the file (rename): settle, then read
    clearTimeout(timer)
    timer = setTimeout(settle, 50)
  })
  watcher.on('error', () => undefined)
  return () => {
    clearTimeout(timer)
    watcher.close()
  }
}
