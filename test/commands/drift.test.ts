/**
 * `card-sandbox drift <file>` as the built command runs it, on the stand-in's recording
 * (test/drift/stand-in.ts): a terminal report grouped by route, --json, --check's exit codes,
 * and a clear exit 2 for a missing or malformed file.
 */
import { spawnSync } from 'node:child_process'
import { writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { beforeAll, describe, expect, it } from 'vitest'
import type { RecordLine } from '../../src/drift/report.js'
import { tempDir } from '../temp-dir.js'
import { record } from '../drift/stand-in.js'

const CLI = new URL('../../dist/bin/card-sandbox.js', import.meta.url).pathname

function drift(...args: string[]) {
  const run = spawnSync(process.execPath, [CLI, 'drift', ...args], { encoding: 'utf8' })
  return { code: run.status, stdout: run.stdout, stderr: run.stderr }
}

function recordFile(lines: RecordLine[]): string {
  const file = join(tempDir(), 'drift.jsonl')
  writeFileSync(file, lines.map((line) => JSON.stringify(line) + '\n').join(''))
  return file
}

let drifted: RecordLine[]
let clean: RecordLine[]
beforeAll(async () => {
  const recorded = await record()
  drifted = recorded.lines
  // the same exchanges, as the sandbox itself answered them: the findings of the unedited answers
  clean = recorded.lines.map((line, i) => ({ ...line, findings: recorded.unedited[i] }))
})

describe('card-sandbox drift', () => {
  it('--check exits 1 on a recording with a finding, 0 on a clean one', () => {
    const found = drift(recordFile(drifted), '--check')
    expect(found.code, found.stderr).toBe(1)
    const none = drift(recordFile(clean), '--check')
    expect(none.code, none.stderr).toBe(0)
    expect(none.stdout).toMatch(/^16 exchanges, 0 findings on 0 of 10 routes\n/)
  })

  it('exits 0 without --check, whatever it found', () => {
    expect(drift(recordFile(drifted)).code).toBe(0)
  })

  it('--json prints the report as JSON', () => {
    const run = drift(recordFile(drifted), '--json')
    expect(run.code, run.stderr).toBe(0)
    const report = JSON.parse(run.stdout)
    expect(report.exchanges).toBe(drifted.length)
    expect(report.findings).toBe(14)
    expect(report.routes[0].route).toBe('GET /v1/card-users/{reference}')
    expect(report.timing.find((t: any) => t.delay === 'card_issuing')).toMatchObject({
      lastOldMs: 6000,
      firstNewMs: 9000,
      sandboxMs: 5000,
    })
  })

  it('groups the terminal report by route, each finding under its route with its count', () => {
    const run = drift(recordFile(drifted))
    const text = run.stdout
    expect(text).toMatch(/^16 exchanges, 14 findings on 5 of 10 routes\n/)
    const block = (route: string) => {
      const start = text.indexOf(`\n${route}  (`)
      expect(start, `no block for ${route}`).toBeGreaterThan(0)
      return text.slice(start + 1, text.indexOf('\n\n', start + 1))
    }
    expect(block('GET /v1/cards').split('\n')).toEqual([
      'GET /v1/cards  (2 exchanges, 3 findings)',
      '  type        $.data[*].balance   2×  upstream "0", sandbox integer',
      '  enum        $.data[*].status    1×',
      '              upstream "active", sandbox ["issuing","issued","frozen","failed"]',
    ])
    expect(block('GET /v1/cards/{reference}')).toContain(
      '  missing-key $.data.card.cvv2   2×  upstream absent, sandbox string or null',
    )
    expect(block('POST /v1/cards/freeze')).toBe(
      'POST /v1/cards/freeze  (2 exchanges, no difference)',
    )
    expect(text).toContain(
      '  card_issuing            old at 6.0 s, new at 9.0 s, sandbox 5.0 s (1 of 1 moved: active, issued)',
    )
    for (const line of text.split('\n')) expect(line.length).toBeLessThanOrEqual(100)
  })

  it('says what is wrong with a missing or malformed file, and exits 2', () => {
    const dir = tempDir()
    const missing = drift(join(dir, 'nothing.jsonl'))
    expect(missing.code).toBe(2)
    expect(missing.stderr).toBe(
      `card-sandbox drift: ${join(dir, 'nothing.jsonl')} does not exist\n`,
    )

    const broken = join(dir, 'broken.jsonl')
    writeFileSync(broken, JSON.stringify(drifted[0]) + '\n{"at": \n')
    const run = drift(broken, '--check')
    expect(run.code).toBe(2)
    expect(run.stderr).toMatch(/^card-sandbox drift: .*broken\.jsonl line 2 is not JSON \(/)

    const wrong = join(dir, 'wrong.jsonl')
    writeFileSync(wrong, JSON.stringify({ ...drifted[0], status: '200' }) + '\n')
    expect(drift(wrong).stderr).toBe(
      `card-sandbox drift: ${wrong} line 1 is not a record line: "status" must be a number\n`,
    )
  })

  it('needs exactly one file and knows its flags', () => {
    expect(drift().stderr).toMatch(/drift needs the record file: card-sandbox drift <file>/)
    const typo = drift('x.jsonl', '--chek')
    expect(typo.code).toBe(2)
    expect(typo.stderr).toMatch(/unknown flag --chek; did you mean --check\?/)
  })
})
