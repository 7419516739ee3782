/**
 * The guide of docs/testing.md, "Writing a test against the sandbox": its code is read out of the
 * page and run by vitest as a test file of its own, against the built package, so an edit to the
 * page that breaks it fails here.
 */
import { spawn } from 'node:child_process'
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { afterEach, expect, it } from 'vitest'

const ROOT = fileURLToPath(new URL('..', import.meta.url))
const PAGE = readFileSync(join(ROOT, 'docs/testing.md'), 'utf8')
const GUIDE = /## Writing a test against the sandbox\n[\s\S]*?```ts\n([\s\S]*?)```/.exec(PAGE)?.[1]

const dirs: string[] = []
afterEach(() => dirs.splice(0).forEach((dir) => rmSync(dir, { recursive: true, force: true })))

interface Report {
  numPassedTests: number
  numFailedTests: number
  testResults: { assertionResults: { title: string; status: string }[] }[]
}

/** Runs `code` as a vitest file; it lives inside this package, so `import … from 'card-sandbox'`
 * resolves to this build by the package's name, as it does in a project that installed it. */
async function runAsTestFile(code: string): Promise<{ exit: number | null; report: Report }> {
  // .tmp/ (git- and lint-ignored) rather than test/: a folder left by a killed run is never
  // collected by the suite's own include
  mkdirSync(join(ROOT, '.tmp'), { recursive: true })
  const dir = mkdtempSync(join(ROOT, '.tmp', 'guide-run-'))
  dirs.push(dir)
  writeFileSync(join(dir, 'guide.test.ts'), code)
  writeFileSync(
    join(dir, 'vitest.config.mjs'),
    "export default { test: { include: ['guide.test.ts'] } }\n",
  )
  const child = spawn(
    process.execPath,
    [
      join(ROOT, 'node_modules/vitest/vitest.mjs'),
      'run',
      '--root',
      dir,
      '--config',
      join(dir, 'vitest.config.mjs'),
      '--reporter=json',
      `--outputFile=${join(dir, 'report.json')}`,
    ],
    { cwd: dir, stdio: ['ignore', 'pipe', 'pipe'] },
  )
  let output = ''
  child.stdout.on('data', (chunk) => (output += chunk))
  child.stderr.on('data', (chunk) => (output += chunk))
  const exit = await new Promise<number | null>((resolve) => child.on('close', resolve))
  let report: Report
  try {
    report = JSON.parse(readFileSync(join(dir, 'report.json'), 'utf8'))
  } catch {
    throw new Error(`vitest wrote no report (exit ${exit}):\n${output}`)
  }
  return { exit, report }
}

it('is on the page as one ts block with its tests', () => {
  expect(GUIDE, 'no ```ts block under "## Writing a test against the sandbox"').toBeDefined()
  expect(GUIDE).toContain("from 'card-sandbox'")
})

it('runs as written and every test of it passes', async () => {
  const { exit, report } = await runAsTestFile(GUIDE!)
  const results = report.testResults.flatMap((file) => file.assertionResults)
  expect(results.map((r) => [r.title, r.status])).toEqual([
    ['pays out to a bank once the card is issued and funded', 'passed'],
    ['starts every test from a reset tenant', 'passed'],
  ])
  expect(exit).toBe(0)
}, 60_000)

it('fails when what the guide asserts is not what the sandbox does', async () => {
  const wrong = GUIDE!.replace('.toBe(6_000)', '.toBe(6_001)')
  expect(wrong).not.toBe(GUIDE)
  const { exit, report } = await runAsTestFile(wrong)
  expect(report.numFailedTests).toBe(1)
  expect(exit).not.toBe(0)
}, 60_000)
