/**
 * Reading a scenario file (src/engine/scenarios/load.ts), its errors word for word: the file and
 * line first, the field, what is wrong, how many more problems there are; JSON's syntax errors
 * in JSON's words with their line and column; and the watch of a file in use, which hears of its
 * own file only, reports a deletion once and a file it cannot read as an error.
 */
import { mkdirSync, writeFileSync, unlinkSync } from 'node:fs'
import { join } from 'node:path'
import { afterEach, describe, expect, it } from 'vitest'
import {
  loadScenarioFile,
  parseScenario,
  ScenarioError,
  validateScenario,
  watchScenarioFile,
  type ScenarioFileEvents,
} from '../../../src/engine/scenarios/load.js'
import { tempDir } from '../../temp-dir.js'
import { until } from '../../webhooks/receiver.js'

/** The ScenarioError `read` throws: its message and problems. */
function refusal(read: () => unknown) {
  try {
    read()
  } catch (error) {
    expect(error).toBeInstanceOf(ScenarioError)
    return { message: (error as Error).message, problems: (error as ScenarioError).problems }
  }
  throw new Error('it was not refused')
}

describe('a scenario read from text', () => {
  it('names a YAML syntax error’s line, its source named or not', () => {
    const flow = 'Flow sequence in block collection must be sufficiently indented and end with a ]'
    expect(refusal(() => parseScenario('name: x\nrules: [\n', 'broken.yaml'))).toEqual({
      message: `broken.yaml:3: ${flow}`,
      problems: [{ path: '', line: 3, message: flow }],
    })
    expect(refusal(() => parseScenario('name: x\nrules: [\n')).message).toBe(`scenario:3: ${flow}`)
  })

  it('refuses a key given twice, at its second line', () => {
    expect(refusal(() => parseScenario('name: a\nname: b\nrules: []\n', 'dup.yaml'))).toEqual({
      message: 'dup.yaml:2: Map keys must be unique',
      problems: [{ path: '', line: 2, message: 'Map keys must be unique' }],
    })
  })

  it('names the line of the map a missing field belongs in', () => {
    expect(refusal(() => parseScenario('rules: []\n', 'noname.yaml')).message).toBe(
      'noname.yaml:1: name: Invalid input: expected string, received undefined',
    )
    const missing = refusal(() =>
      parseScenario('name: x\nrules:\n  - match: { method: GET }\n    respond: {}\n', 'r.yaml'),
    )
    expect(missing.message).toMatch(/^r\.yaml:4: rules\.0\.respond\.status: /)
  })

  it('names the line of a bad field itself, not of the map it is in', () => {
    const bad = refusal(() =>
      parseScenario(
        'name: x\nrules:\n  - match: { method: GET }\n    latency: forever\n',
        'r.yaml',
      ),
    )
    expect(bad.message).toMatch(/^r\.yaml:4: rules\.0\.latency: /)
  })

  it('reads a name that only contains .json as YAML', () => {
    expect(parseScenario('name: x\nrules: []\n', 'rules.json.yaml')).toMatchObject({ name: 'x' })
  })

  it('words a .json file’s syntax error as JSON does, without "in JSON at position"', () => {
    expect(refusal(() => parseScenario('{"name": "x" "rules": []}', 'a.json'))).toEqual({
      message:
        "a.json: JSON syntax error at line 1, column 14: Expected ',' or '}' after property value",
      problems: [
        {
          path: '',
          line: 1,
          message: "JSON syntax error at column 14: Expected ',' or '}' after property value",
        },
      ],
    })
  })

  it('words an error at a one-digit position the same way', () => {
    expect(refusal(() => parseScenario('{"a" 1}', 'short.json')).message).toBe(
      "short.json: JSON syntax error at line 1, column 6: Expected ':' after property name",
    )
  })

  it('counts a byte order mark inside a string as a column, and not one at the start', () => {
    const at = (text: string) =>
      /column (\d+)/.exec(refusal(() => parseScenario(text, 'mid.json')).message)![1]
    expect(at('{"name": "x" "rules": []}')).toBe('14')
    expect(at('\uFEFF{"name": "x" "rules": []}')).toBe('14')
    expect(at('{"name": "\uFEFF" "rules": []}')).toBe('14')
  })
})

describe('a parsed scenario validated', () => {
  it('gives the first problem, how many more there are, and every one with its path', () => {
    expect(refusal(() => validateScenario({ rules: 'x', extra: 1 }))).toEqual({
      message: 'scenario: name: Invalid input: expected string, received undefined (and 2 more)',
      problems: [
        { path: 'name', message: 'Invalid input: expected string, received undefined' },
        { path: 'rules', message: 'Invalid input: expected array, received string' },
        { path: 'extra', message: 'unknown field' },
      ],
    })
    expect(refusal(() => validateScenario({ name: 'x', rules: 'x' }, 'posted')).message).toBe(
      'posted: rules: Invalid input: expected array, received string',
    )
  })

  it('names the top level when the value is not a map', () => {
    expect(refusal(() => validateScenario('x')).problems[0].path).toBe('(top level)')
  })
})

describe('a scenario file', () => {
  it('that cannot be read is refused with its path and why', () => {
    const file = join(tempDir(), 'gone.yaml')
    expect(refusal(() => loadScenarioFile(file)).message).toMatch(
      new RegExp(`^${file}: cannot read: ENOENT`),
    )
  })
})

describe('a scenario file watched', () => {
  const stops: (() => void)[] = []
  afterEach(() => {
    for (const stop of stops.splice(0)) stop()
  })

  const RULES = 'rules:\n  - match: { method: GET }\n    respond: { status: 418 }\n'

  /** What the watch of `file` reported, in order. */
  function watched(file: string) {
    const heard: string[] = []
    const on: ScenarioFileEvents = {
      load: (scenario) => heard.push(`load ${scenario.name}`),
      error: (error) => heard.push(`error ${error.message}`),
      remove: () => heard.push('remove'),
    }
    stops.push(watchScenarioFile(file, on))
    return heard
  }

  it('hears of its own file only', async () => {
    const dir = tempDir()
    const file = join(dir, 'mine.yaml')
    writeFileSync(file, `name: mine\n${RULES}`)
    const heard = watched(file)
    writeFileSync(join(dir, 'other.yaml'), `name: other\n${RULES}`)
    await new Promise((resolve) => setTimeout(resolve, 300))
    expect(heard).toEqual([])
    writeFileSync(file, `name: edited\n${RULES}`)
    await until(() => heard.length > 0, 5_000, 'the edit')
    expect(heard).toEqual(['load edited'])
  })

  it('reports a deletion once, however many events it brings', async () => {
    const dir = tempDir()
    const file = join(dir, 'gone.yaml')
    writeFileSync(file, `name: gone\n${RULES}`)
    const heard = watched(file)
    unlinkSync(file)
    await until(() => heard.length > 0, 5_000, 'the deletion')
    // another file's events are not its own; its own, while it is gone, say nothing more
    writeFileSync(`${file}.swp`, 'x')
    writeFileSync(file, `name: back\n${RULES}`)
    unlinkSync(file)
    await new Promise((resolve) => setTimeout(resolve, 300))
    expect(heard).toEqual(['remove'])
  })

  it('reports a file it cannot read as an error, not as a deletion', async () => {
    const dir = tempDir()
    const file = join(dir, 'dir.yaml')
    writeFileSync(file, `name: file\n${RULES}`)
    const heard = watched(file)
    unlinkSync(file)
    await until(() => heard.length > 0, 5_000, 'the deletion')
    mkdirSync(file)
    await until(() => heard.length > 1, 5_000, 'the directory')
    expect(heard[1]).toMatch(new RegExp(`^error ${file}: cannot read: EISDIR`))
  })
})
