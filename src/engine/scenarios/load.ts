/**
 * Reading scenario files (PRODUCT §9): YAML or JSON (JSON is read as YAML, for positions),
 * validated with zod; an error names the file, the line and the bad field. Files in use are
 * watched: an edit is picked up, and a broken edit keeps the last good version.
 */
import { readFileSync, watch, type FSWatcher } from 'node:fs'
import { createRequire } from 'node:module'
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

/**
 * Watches a scenario file; calls `onLoad` with each good version, `onError` with the error of a
 * broken one (the caller keeps the last good version). Returns a function that stops watching.
 */
export function watchScenarioFile(
  path: string,
  onLoad: (scenario: Scenario) => void,
  onError: (error: ScenarioError) => void,
): () => void {
  let timer: NodeJS.Timeout | undefined
  let watcher: FSWatcher | undefined
  const reload = () => {
    try {
      onLoad(loadScenarioFile(path))
    } catch (error) {
      if (error instanceof ScenarioError) onError(error)
      else throw error
    }
  }
  const start = () => {
    watcher?.close()
    watcher = watch(path, { persistent: false }, (event) => {
      clearTimeout(timer)
      // editors save in bursts, or replace the file (rename): settle, then read and re-watch
      timer = setTimeout(() => {
        reload()
        if (event === 'rename') start()
      }, 50)
    })
    watcher.on('error', () => undefined)
  }
  start()
  return () => {
    clearTimeout(timer)
    watcher?.close()
  }
}
