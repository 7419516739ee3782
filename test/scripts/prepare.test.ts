/**
 * npm's `prepare` (scripts/prepare.mjs) builds dist/ only when it is not the build of the sources
 * as they are (scripts/build-stamp.mjs), run on a small tree of the same shape: the real
 * prepare, build and stamp scripts, with stand-ins for tsc and the bundler that count their runs,
 * so that no test rebuilds the real dist/ (a minute) or waits for tsc (seconds each here).
 */
import { spawnSync } from 'node:child_process'
import {
  appendFileSync,
  existsSync,
  mkdirSync,
  readFileSync,
  renameSync,
  rmSync,
  statSync,
  utimesSync,
  writeFileSync,
} from 'node:fs'
import { join } from 'node:path'
import { describe, expect, it } from 'vitest'
import { tempDir } from '../temp-dir.js'

const ROOT = new URL('../..', import.meta.url).pathname

/** A tree with the build's inputs, none built yet. */
function sourceTree(): string {
  const dir = tempDir('card-sandbox-prepare-')
  const write = (path: string, text: string) => {
    mkdirSync(join(dir, path, '..'), { recursive: true })
    writeFileSync(join(dir, path), text)
  }
  // tsc's stand-in, where scripts/build.mjs looks for it: copies src/*.ts to dist/*.js
  write('node_modules/typescript/package.json', JSON.stringify({ name: 'typescript' }))
  write(
    'node_modules/typescript/bin/tsc',
    `const { cpSync } = require('node:fs')
if (process.argv.slice(2).join(' ') !== '-p tsconfig.build.json') process.exit(2)
cpSync('src', 'dist', { recursive: true })
for (const file of require('node:fs').readdirSync('dist', { recursive: true }))
  if (file.endsWith('.ts')) require('node:fs').renameSync('dist/' + file, 'dist/' + file.replace(/ts$/, 'js'))
`,
  )
  for (const script of ['prepare.mjs', 'build.mjs', 'build-stamp.mjs'])
    write(`scripts/${script}`, readFileSync(join(ROOT, 'scripts', script), 'utf8'))
  // the bundler's stand-in: counts its runs (outside the inputs) and writes the command
  write(
    'scripts/bundle.mjs',
    `import { appendFileSync, mkdirSync, writeFileSync } from 'node:fs'
appendFileSync('bundles.log', 'bundled\\n')
mkdirSync('dist/bin', { recursive: true })
writeFileSync('dist/bin/card-sandbox.js', '')
if (process.env.BUNDLE_FAILS) process.exit(3)
`,
  )
  write('src/index.ts', 'export const answer: number = 42\n')
  write('src/lib/util.ts', 'export const twice = (n: number): number => 2 * n\n')
  write(
    'tsconfig.json',
    JSON.stringify({
      compilerOptions: { target: 'ES2022', module: 'NodeNext', strict: true, types: [] },
    }),
  )
  write(
    'tsconfig.build.json',
    JSON.stringify({
      extends: './tsconfig.json',
      compilerOptions: { rootDir: 'src', outDir: 'dist' },
      include: ['src'],
    }),
  )
  write('package.json', JSON.stringify({ name: 'tree', type: 'module' }))
  write('package-lock.json', JSON.stringify({ name: 'tree', lockfileVersion: 3 }))
  write('drizzle/0000_init.sql', 'CREATE TABLE cards (id text);\n')
  return dir
}

function prepare(dir: string, env: Record<string, string> = {}) {
  const started = performance.now()
  const run = spawnSync(process.execPath, ['scripts/prepare.mjs'], {
    cwd: dir,
    encoding: 'utf8',
    env: { ...process.env, ...env },
  })
  return { ...run, ms: performance.now() - started }
}

const builds = (dir: string) =>
  existsSync(join(dir, 'bundles.log'))
    ? readFileSync(join(dir, 'bundles.log'), 'utf8').split('\n').filter(Boolean).length
    : 0

/** A tree built once by prepare. */
function builtTree(): string {
  const dir = sourceTree()
  const first = prepare(dir)
  expect(first.status, first.stderr).toBe(0)
  expect(builds(dir)).toBe(1)
  return dir
}

describe('prepare', () => {
  it('builds a tree with no dist/, says so, and stamps it', () => {
    const dir = sourceTree()
    const run = prepare(dir)
    expect(run.status, run.stderr).toBe(0)
    expect(run.stderr).toContain('card-sandbox: building dist/, about a minute')
    expect(builds(dir)).toBe(1)
    // tsc's output and the stamp
    expect(readFileSync(join(dir, 'dist/index.js'), 'utf8')).toContain('42')
    expect(readFileSync(join(dir, 'dist/.build-stamp'), 'utf8')).toMatch(/^[0-9a-f]{64}\n$/)
  })

  it('does not rebuild a built tree: no output, dist/ untouched', () => {
    const dir = builtTree()
    const files = [
      'dist/index.js',
      'dist/lib/util.js',
      'dist/bin/card-sandbox.js',
      'dist/.build-stamp',
    ]
    const before = files.map((file) => statSync(join(dir, file)).mtimeMs)
    const run = prepare(dir)
    expect(run.status).toBe(0)
    expect(run.stdout + run.stderr).toBe('')
    expect(builds(dir)).toBe(1)
    expect(files.map((file) => statSync(join(dir, file)).mtimeMs)).toEqual(before)
    expect(run.ms).toBeLessThan(5_000)
  })

  const changes: [string, (dir: string) => void][] = [
    [
      'a source file changes',
      (dir) => appendFileSync(join(dir, 'src/lib/util.ts'), '// changed\n'),
    ],
    ['a source file is added', (dir) => writeFileSync(join(dir, 'src/extra.ts'), 'export {}\n')],
    ['a source file is removed', (dir) => rmSync(join(dir, 'src/lib/util.ts'))],
    [
      'a build script changes',
      (dir) => appendFileSync(join(dir, 'scripts/bundle.mjs'), '// changed\n'),
    ],
    ['tsconfig.json changes', (dir) => appendFileSync(join(dir, 'tsconfig.json'), '\n')],
    [
      'tsconfig.build.json changes',
      (dir) => appendFileSync(join(dir, 'tsconfig.build.json'), '\n'),
    ],
    ['package.json changes', (dir) => appendFileSync(join(dir, 'package.json'), '\n')],
    ['the lockfile changes', (dir) => appendFileSync(join(dir, 'package-lock.json'), '\n')],
    [
      'a SQLite migration changes',
      (dir) => appendFileSync(join(dir, 'drizzle/0000_init.sql'), '-- x\n'),
    ],
    [
      'a file is renamed, its content the same (a git mv of a migration)',
      (dir) => renameSync(join(dir, 'drizzle/0000_init.sql'), join(dir, 'drizzle/0001_init.sql')),
    ],
  ]
  it.each(changes)('rebuilds when %s, then not again', (_, change) => {
    const dir = builtTree()
    change(dir)
    const run = prepare(dir)
    expect(run.status, run.stderr).toBe(0)
    expect(run.stderr).toContain('the sources changed since the last build')
    expect(builds(dir)).toBe(2)
    expect(prepare(dir).stderr).toBe('')
    expect(builds(dir)).toBe(2)
  })

  it('does not rebuild for a file touched but not changed (a checkout, a clone)', () => {
    const dir = builtTree()
    const later = new Date(Date.now() + 60_000)
    utimesSync(join(dir, 'src/index.ts'), later, later)
    expect(prepare(dir).stderr).toBe('')
    expect(builds(dir)).toBe(1)
  })

  it('builds again after a build that failed, and after dist/ was removed', () => {
    const dir = builtTree()
    appendFileSync(join(dir, 'src/index.ts'), '// changed\n')
    const failed = prepare(dir, { BUNDLE_FAILS: '1' })
    expect(failed.status).toBe(3)
    expect(existsSync(join(dir, 'dist/.build-stamp'))).toBe(false)
    // the failed bundle step wrote its output: the missing stamp alone says the build is not done
    expect(existsSync(join(dir, 'dist/bin/card-sandbox.js'))).toBe(true)
    expect(prepare(dir).stderr).toContain('dist/ has no build stamp')
    expect(builds(dir)).toBe(3)
    rmSync(join(dir, 'dist'), { recursive: true })
    expect(prepare(dir).stderr).toContain('dist/bin/card-sandbox.js is missing')
    expect(builds(dir)).toBe(4)
  })

  // util-linux's script(1) gives the run a terminal; prepare's stderr goes nowhere, as under npx
  const hasScript = spawnSync('script', ['--version']).status === 0
  it.skipIf(!hasScript)(
    'under npx, which pipes its output away, says on the terminal that it builds',
    () => {
      const dir = sourceTree()
      const onTerminal = (npmCommand: string) =>
        spawnSync(
          'script',
          ['-qec', `${process.execPath} scripts/prepare.mjs 2>/dev/null`, '/dev/null'],
          {
            cwd: dir,
            encoding: 'utf8',
            env: { ...process.env, npm_command: npmCommand },
          },
        ).stdout
      expect(onTerminal('exec')).toContain('card-sandbox: building dist/, about a minute')
      expect(builds(dir)).toBe(1)
      // a built tree: nothing to say
      expect(onTerminal('exec')).toBe('')
      // `npm install` and `npm pack` show prepare's stderr themselves
      appendFileSync(join(dir, 'src/index.ts'), '// changed\n')
      expect(onTerminal('install')).toBe('')
      expect(builds(dir)).toBe(2)
    },
  )

  it("is the package's prepare; `npm run build` stamps its build; the stamp is not packed", () => {
    const pkg = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as {
      scripts: Record<string, string>
      files: string[]
    }
    expect(pkg.scripts.prepare).toBe('node scripts/prepare.mjs')
    expect(pkg.scripts.build).toBe('node scripts/build.mjs')
    expect(pkg.files).toContain('!dist/.build-stamp')
  })

  it('hashes every folder and file the real build reads', async () => {
    const { BUILD_INPUTS } = (await import(join(ROOT, 'scripts/build-stamp.mjs'))) as {
      BUILD_INPUTS: string[]
    }
    const buildConfig = JSON.parse(readFileSync(join(ROOT, 'tsconfig.build.json'), 'utf8')) as {
      extends: string
      include: string[]
    }
    for (const input of [...buildConfig.include, buildConfig.extends.replace('./', '')])
      expect(BUILD_INPUTS).toContain(input)
    // the bundler's entry points and the migrations writeMigratedSchema applies
    const bundle = readFileSync(join(ROOT, 'scripts/bundle.mjs'), 'utf8')
    for (const [, entry] of bundle.matchAll(/'(\w+)\/[\w/-]+\.ts'/g))
      expect(BUILD_INPUTS).toContain(entry)
    expect(readFileSync(join(ROOT, 'src/store/sqlite/open.ts'), 'utf8')).toContain(
      "packageFile('drizzle')",
    )
    expect(BUILD_INPUTS).toContain('drizzle')
  })
})
