/**
 * The layers of ARCHITECTURE.md, checked on every import of src/ (value and type imports,
 * `export … from`, `import('…')` types and dynamic imports alike, read with TypeScript's own
 * pre-processor): no import goes up a layer or sideways between sibling layers, the entry layer
 * included, no module reaches itself again through its imports (a cycle, even one made only of
 * types), and no folder of src/ reaches itself again through another folder.
 */
import { existsSync, readdirSync, readFileSync } from 'node:fs'
import { dirname, join, relative, resolve } from 'node:path'
import ts from 'typescript'
import { describe, expect, it } from 'vitest'

const ROOT = resolve(new URL('..', import.meta.url).pathname)
const SRC = join(ROOT, 'src')

/** The layers under the entry layer: every part of the entry layer may import them. */
const BELOW_ENTRY = [
  'ui',
  'http',
  'wiring',
  'journal',
  'webhooks',
  'engine',
  'domain',
  'store',
  'db',
  'lib',
]

/**
 * Bottom to top; what each layer may import besides itself. A path names a folder (ending in
 * `/`) or a file under src/; every file of src/ belongs to exactly one layer.
 */
const LAYERS: { name: string; paths: string[]; mayImport: string[] }[] = [
  { name: 'lib', paths: ['lib/'], mayImport: [] },
  { name: 'db', paths: ['db/'], mayImport: ['lib'] },
  { name: 'store', paths: ['store/'], mayImport: ['db', 'lib'] },
  { name: 'domain', paths: ['domain/'], mayImport: ['store', 'db', 'lib'] },
  { name: 'engine', paths: ['engine/'], mayImport: ['domain', 'store', 'db', 'lib'] },
  { name: 'webhooks', paths: ['webhooks/'], mayImport: ['domain', 'store', 'db', 'lib'] },
  { name: 'journal', paths: ['journal/'], mayImport: ['lib'] },
  {
    name: 'wiring',
    paths: ['wiring/'],
    mayImport: ['journal', 'webhooks', 'engine', 'domain', 'store', 'db', 'lib'],
  },
  {
    name: 'http',
    paths: ['http/'],
    mayImport: ['wiring', 'journal', 'webhooks', 'engine', 'domain', 'store', 'db', 'lib'],
  },
  {
    name: 'ui',
    paths: ['ui/'],
    mayImport: ['http', 'wiring', 'journal', 'webhooks', 'engine', 'domain', 'store', 'db', 'lib'],
  },
  // The entry layer, ordered as the rest. server, clients and drift are siblings (the client
  // stays fetch-only, drift runs no sandbox); the command line and the package's entry points
  // run them, siblings too; the kits start a sandbox through both; a kit's entry point is its kit.
  { name: 'server', paths: ['server/'], mayImport: BELOW_ENTRY },
  { name: 'clients', paths: ['clients/'], mayImport: BELOW_ENTRY },
  { name: 'drift', paths: ['drift/'], mayImport: BELOW_ENTRY },
  { name: 'cli', paths: ['cli/'], mayImport: ['drift', 'clients', 'server', ...BELOW_ENTRY] },
  {
    name: 'package',
    paths: ['index.ts', 'client.ts'],
    mayImport: ['drift', 'clients', 'server', ...BELOW_ENTRY],
  },
  {
    name: 'kits',
    paths: ['kits/'],
    mayImport: ['package', 'cli', 'drift', 'clients', 'server', ...BELOW_ENTRY],
  },
  {
    name: 'kit entries',
    paths: ['testing.ts', 'vitest-setup.ts', 'jest.ts', 'jest-teardown.ts'],
    mayImport: ['kits'],
  },
]

/** Below these layers nothing knows about HTTP: no hono, no @hono/*. */
const BELOW_HTTP = ['lib', 'db', 'store', 'domain', 'engine', 'webhooks', 'journal']
/** Only these run SQL. */
const SQL_LAYERS = ['db', 'store']

/**
 * The two drivers behind the store's seam (store/driver.ts), each with its opening, and the files
 * of src/db that derive PostgreSQL's tables from the schema; store/open.ts picks a driver by
 * location. Only these may know which database runs.
 */
const DIALECT_FILES = [
  'store/sqlite/',
  'store/postgres/',
  'store/open.ts',
  'db/pg-schema.ts',
  'db/pg-tables.ts',
]

const isDialectFile = (file: string) =>
  DIALECT_FILES.some((p) =>
    p.endsWith('/') ? relative(SRC, file).startsWith(p) : relative(SRC, file) === p,
  )

/** A database's own client or drizzle driver: imported only by the dialect files. */
const DIALECT_MODULE =
  /^(pg|better-sqlite3|drizzle-orm\/(better-sqlite3|node-postgres|pg-core|postgres-js)|postgres)(\/|$)/

/** A question about which database runs, or a reach past the seam into one's connection. */
const DIALECT_CHECK = /\$client|\b(pgOf|onPostgres|sharedStore|isPostgresUrl|pgDb|KeepNothing)\b/

/** The files outside the drivers that ask which database they run on, and what they ask. */
function dialectChecks(files: string[], read = (file: string) => readFileSync(file, 'utf8')) {
  const found: string[] = []
  for (const [file, imports] of importGraph(files, read)) {
    if (isDialectFile(file)) continue
    for (const { specifier } of imports)
      if (DIALECT_MODULE.test(specifier)) found.push(`${relative(ROOT, file)} imports ${specifier}`)
    const check = DIALECT_CHECK.exec(read(file))
    if (check) found.push(`${relative(ROOT, file)} asks ${check[0]}`)
  }
  return found
}

/**
 * A reach into the store's handle past the seam: the driver (`db.driver`, `deps.db.driver`) is
 * the store's own; code above it calls the store's named functions.
 */
const DRIVER_REACH = /\.driver\b/

/** The files outside src/store/ that touch a handle's driver, and where. */
function driverReaches(files: string[], read = (file: string) => readFileSync(file, 'utf8')) {
  const found: string[] = []
  for (const file of files) {
    if (relative(SRC, file).startsWith('store/')) continue
    read(file)
      .split('\n')
      .forEach((line, i) => {
        if (DRIVER_REACH.test(line)) found.push(`${relative(ROOT, file)}:${i + 1} ${line.trim()}`)
      })
  }
  return found
}

function sourceFiles(): string[] {
  return readdirSync(SRC, { withFileTypes: true, recursive: true })
    .filter((entry) => entry.isFile() && entry.name.endsWith('.ts'))
    .map((entry) => join(entry.parentPath, entry.name))
    .sort()
}

/** The layer a file of src/ belongs to. */
function layerOf(file: string): string | undefined {
  const path = relative(SRC, file)
  return LAYERS.find((layer) =>
    layer.paths.some((p) => (p.endsWith('/') ? path.startsWith(p) : path === p)),
  )?.name
}

/** Every module a file names: imports, type imports, re-exports, `import('…')`. */
function importsOf(text: string): string[] {
  return ts.preProcessFile(text, true, true).importedFiles.map((file) => file.fileName)
}

/** A relative import resolved to the .ts file of src/ it names; undefined for a package. */
function resolveImport(from: string, specifier: string): string | undefined {
  if (!specifier.startsWith('.')) return undefined
  return resolve(dirname(from), specifier).replace(/\.js$/, '.ts')
}

type Graph = Map<string, { file: string; specifier: string }[]>

function importGraph(files: string[], read = (file: string) => readFileSync(file, 'utf8')): Graph {
  return new Map(
    files.map((file) => [
      file,
      // a module imported twice (a value import and a type import) is one edge
      [...new Set(importsOf(read(file)))].map((specifier) => ({
        specifier,
        file: resolveImport(file, specifier) ?? specifier,
      })),
    ]),
  )
}

/** The imports that break the layering: up, or sideways between siblings. */
function layerViolations(graph: Graph): string[] {
  const violations: string[] = []
  for (const [file, imports] of graph) {
    const from = layerOf(file)!
    const allowed = LAYERS.find((layer) => layer.name === from)!.mayImport
    for (const target of imports) {
      if (!target.file.startsWith(SRC + '/')) continue
      const to = layerOf(target.file)
      if (to !== from && !allowed.includes(to!))
        violations.push(`${relative(ROOT, file)} (${from}) imports ${target.specifier} (${to})`)
    }
  }
  return violations
}

/** Every cycle of a directed graph, each as the path that closes it (a → b → a). */
function cyclesIn(edges: Map<string, string[]>): string[][] {
  const found: string[][] = []
  const state = new Map<string, 'open' | 'done'>()
  const path: string[] = []
  function visit(node: string): void {
    state.set(node, 'open')
    path.push(node)
    for (const next of edges.get(node) ?? []) {
      if (!edges.has(next)) continue
      if (state.get(next) === 'open') found.push([...path.slice(path.indexOf(next)), next])
      else if (!state.has(next)) visit(next)
    }
    path.pop()
    state.set(node, 'done')
  }
  for (const node of edges.keys()) if (!state.has(node)) visit(node)
  return found
}

/** Every import cycle among src/ files, each as the path that closes it. */
function cycles(graph: Graph): string[][] {
  const edges = new Map([...graph].map(([file, imports]) => [file, imports.map((i) => i.file)]))
  return cyclesIn(edges).map((cycle) => cycle.map((file) => relative(ROOT, file)))
}

/**
 * The folder of src/ a file belongs to, its subfolders' files included (`cli/` for
 * cli/commands/drift.ts); a file at src/'s root, one of the package's entry points, stands alone.
 */
function folderOf(file: string): string {
  const path = relative(SRC, file)
  return path.includes('/') ? path.slice(0, path.indexOf('/') + 1) : path
}

/**
 * Every import cycle between folders of src/, even one no file closes (as when the commands
 * were a folder beside cli/: cli/main.ts imported each, each imported cli/help.ts): each as the
 * folders that close it, with an import that makes each step.
 */
function folderCycles(graph: Graph): string[] {
  const edges = new Map<string, string[]>()
  const because = new Map<string, string>()
  for (const [file, imports] of graph) {
    const from = folderOf(file)
    if (!edges.has(from)) edges.set(from, [])
    for (const target of imports) {
      if (!graph.has(target.file)) continue
      const to = folderOf(target.file)
      if (to === from || because.has(`${from} ${to}`)) continue
      because.set(`${from} ${to}`, `${relative(ROOT, file)} imports ${target.specifier}`)
      edges.get(from)!.push(to)
    }
  }
  return cyclesIn(edges).map(
    (cycle) =>
      `${cycle.join(' → ')} (${cycle
        .slice(1)
        .map((to, i) => because.get(`${cycle[i]} ${to}`))
        .join('; ')})`,
  )
}

/**
 * The places a test may lie that mirror no folder of src/ (nor of bench/ or scripts/), each with
 * its reason: what it checks spans the layers.
 */
const CROSS_CUTTING: Record<string, string> = {
  'test/architecture.test.ts': 'the layers of all of src/, and where the tests lie',
  'test/auth.test.ts': 'the bearer token on every documented route, both halves of the API',
  'test/docs.test.ts': 'docs/ read against the code',
  'test/readme.test.ts': "the README's set-up and examples",
  'test/guide.test.ts': "docs/testing.md's guide, run as a test file of its own",
  'test/bench.test.ts': 'bench/run.mjs and bench/ab.mjs, run tiny',
  'test/compose.test.ts': 'compose.yaml and deploy/nginx.conf',
  'test/dockerfile.test.ts': "the Dockerfile's last stage",
  'test/security/': "docs/security.md's promises, each across the layers it spans",
  'test/reliability/': 'the whole sandbox under crashes, faults and replicas',
  'test/contract/': "the official SDKs' methods against the whole /v1 API",
}

/** Folders of the repository besides src/ whose scripts have tests mirroring them. */
const MIRRORED_TOP = ['bench', 'scripts']

/** The test files that lie neither where their code's folder is mirrored nor in a listed place. */
function misplacedTests(files: string[], folderExists = (path: string) => existsSync(path)) {
  return files.filter((path) => {
    if (Object.keys(CROSS_CUTTING).some((p) => (p.endsWith('/') ? path.startsWith(p) : path === p)))
      return false
    const folder = dirname(path).replace(/^test\/?/, '')
    if (!folder) return true
    const top = folder.split('/')[0]!
    return !folderExists(join(ROOT, MIRRORED_TOP.includes(top) ? folder : join('src', folder)))
  })
}

function testFiles(): string[] {
  return readdirSync(join(ROOT, 'test'), { withFileTypes: true, recursive: true })
    .filter((entry) => entry.isFile() && entry.name.endsWith('.test.ts'))
    .map((entry) => relative(ROOT, join(entry.parentPath, entry.name)))
    .sort()
}

describe('architecture (ARCHITECTURE.md)', () => {
  const files = sourceFiles()
  const graph = importGraph(files)

  it('puts every file of src/ in one layer', () => {
    expect(
      files.filter((file) => layerOf(file) === undefined).map((f) => relative(ROOT, f)),
    ).toEqual([])
  })

  it('has no import that goes up a layer or across to a sibling layer', () => {
    expect(layerViolations(graph)).toEqual([])
  })

  it('has no import cycle, type-only imports included', () => {
    expect(cycles(graph).map((cycle) => cycle.join(' → '))).toEqual([])
  })

  it('has no import cycle between folders of src/, though no file closes it', () => {
    expect(folderCycles(graph)).toEqual([])
  })

  it('keeps hono out of everything below src/http', () => {
    for (const [file, imports] of graph) {
      if (!BELOW_HTTP.includes(layerOf(file)!)) continue
      for (const { specifier } of imports) expect(specifier, file).not.toMatch(/^(hono|@hono\/)/)
    }
  })

  it('runs SQL only in src/store and src/db: nothing else imports drizzle-orm or better-sqlite3 or touches $client', () => {
    for (const [file, imports] of graph) {
      if (SQL_LAYERS.includes(layerOf(file)!)) continue
      for (const { specifier } of imports)
        expect(specifier, file).not.toMatch(/^(drizzle-orm|better-sqlite3)/)
      expect(readFileSync(file, 'utf8'), file).not.toMatch(/\$client/)
    }
  })

  it('asks which database runs only in the drivers: no driver module, $client or dialect check elsewhere', () => {
    expect(dialectChecks(files)).toEqual([])
  })

  it('touches a handle’s driver only in src/store: nothing above the seam reads `.driver`', () => {
    expect(driverReaches(files)).toEqual([])
  })

  it('reads wall time only in domain/clock.ts: everything else goes through the injected clock', () => {
    // latencies use the monotonic performance.now(); the dashboard's script runs in the browser
    const exempt = ['domain/clock.ts', 'ui/dashboard/script.ts']
    for (const file of files) {
      if (exempt.includes(relative(SRC, file))) continue
      expect(readFileSync(file, 'utf8'), file).not.toMatch(/Date\.now\(|new Date\(\)/)
    }
  })
})

/** The most lines a file of src/ or bench/ may have: past it, it holds more than one concern. */
const MAX_LINES = 400
/** The two that may be longer, and why: each is one table of declarations read as a whole. */
const LONG_FILES: Record<string, string> = {
  'src/http/openapi.ts': 'the OpenAPI document, built from every route in one pass',
  'src/db/schema.ts': 'every table of the database, in one place',
}

/** The files of src/ and bench/ over MAX_LINES but the listed ones, with their length. */
function longFiles(files: string[], read = (file: string) => readFileSync(file, 'utf8')) {
  return files
    .filter((file) => !(file in LONG_FILES))
    .map((file) => ({ file, lines: read(join(ROOT, file)).split('\n').length - 1 }))
    .filter(({ lines }) => lines > MAX_LINES)
    .map(({ file, lines }) => `${file}: ${lines} lines`)
}

function codeFiles(): string[] {
  return ['src', 'bench']
    .flatMap((top) => readdirSync(join(ROOT, top), { withFileTypes: true, recursive: true }))
    .filter((entry) => entry.isFile() && /\.(ts|mjs)$/.test(entry.name))
    .map((entry) => relative(ROOT, join(entry.parentPath, entry.name)))
    .sort()
}

describe('units of one concern', () => {
  it(`keeps every file of src/ and bench/ to ${MAX_LINES} lines, but the listed ones`, () => {
    expect(longFiles(codeFiles())).toEqual([])
  })

  it('fails on a file one line past the limit, and not on one at it or on a listed one', () => {
    const text = (lines: number) => 'x\n'.repeat(lines)
    const texts: Record<string, string> = {
      [join(ROOT, 'src/a.ts')]: text(MAX_LINES + 1),
      [join(ROOT, 'src/b.ts')]: text(MAX_LINES),
      [join(ROOT, 'src/http/openapi.ts')]: text(MAX_LINES * 2),
    }
    const files = ['src/a.ts', 'src/b.ts', 'src/http/openapi.ts']
    expect(longFiles(files, (file) => texts[file])).toEqual([`src/a.ts: ${MAX_LINES + 1} lines`])
  })
})

describe('where the tests lie', () => {
  it('puts every test file in the folder mirroring its code, or in a listed cross-cutting place', () => {
    expect(misplacedTests(testFiles())).toEqual([])
  })

  it('fails on a test at the top level or in a folder that mirrors nothing, and not on a mirror', () => {
    const files = [
      'test/flags.test.ts',
      'test/cli/flags.test.ts',
      'test/v1/cards.test.ts',
      'test/http/v1/cards.test.ts',
      'test/bench/pg-wire-relay.test.ts',
      'test/security/secrets.test.ts',
    ]
    expect(misplacedTests(files)).toEqual(['test/flags.test.ts', 'test/v1/cards.test.ts'])
  })
})

describe('the architecture check itself', () => {
  const domainFile = join(SRC, 'domain/cards.ts')
  const httpFile = join(SRC, 'http/envelope.ts')
  const storeFile = join(SRC, 'store/jobs.ts')

  it('fails on a dialect check outside the drivers, and not on a capability query', () => {
    const texts: Record<string, string> = {
      [storeFile]: "import pg from 'pg'\nif (pgOf(db)) return",
      [domainFile]: 'if (storeIsShared(db)) return',
      [join(SRC, 'store/postgres/driver.ts')]: "import pg from 'pg'\nconst pg = pgOf(db)",
    }
    expect(dialectChecks(Object.keys(texts), (file) => texts[file])).toEqual([
      'src/store/jobs.ts imports pg',
      'src/store/jobs.ts asks pgOf',
    ])
  })

  it('fails on `.driver` outside src/store, and not inside it', () => {
    const texts: Record<string, string> = {
      [httpFile]: 'const slice = deps.db.driver.dueSliceJobs',
      [storeFile]: 'const slice = db.driver.dueSliceJobs',
      [domainFile]: 'const shared = storeIsShared(db)',
    }
    expect(driverReaches(Object.keys(texts), (file) => texts[file])).toEqual([
      'src/http/envelope.ts:1 const slice = deps.db.driver.dueSliceJobs',
    ])
  })

  it('fails on an import that goes up a layer', () => {
    const graph = importGraph([domainFile], () => "import { ok } from '../http/envelope.js'")
    expect(layerViolations(graph)).toEqual([
      'src/domain/cards.ts (domain) imports ../http/envelope.js (http)',
    ])
  })

  it('fails on an import up the entry layer or across it, and not on one down it', () => {
    const texts: Record<string, string> = {
      // up: the server would load the command line, drift the test kit
      [join(SRC, 'server/app.ts')]: "import { main } from '../cli/main.js'",
      [join(SRC, 'drift/webhook.ts')]: "import { verifySignature } from '../kits/testing.js'",
      // across: the fetch-only client would load the server
      [join(SRC, 'clients/client.ts')]: "import { startSandbox } from '../server/sandbox.js'",
      // down: each as the layer's order allows
      [join(SRC, 'clients/receiver.ts')]: "import { verifySignature } from '../webhooks/sign.js'",
      [join(SRC, 'cli/main.ts')]: "import { startSandbox } from '../server/sandbox.js'",
      [join(SRC, 'kits/kit.ts')]: "import { FLAGS } from '../cli/flags.js'\nimport '../index.js'",
      [join(SRC, 'testing.ts')]: "export * from './kits/testing.js'",
    }
    const graph = importGraph(Object.keys(texts), (file) => texts[file])
    expect(layerViolations(graph)).toEqual([
      'src/server/app.ts (server) imports ../cli/main.js (cli)',
      'src/drift/webhook.ts (drift) imports ../kits/testing.js (kits)',
      'src/clients/client.ts (clients) imports ../server/sandbox.js (server)',
    ])
  })

  it('fails on an import cycle between two folders that no file closes, and not on a subfolder', () => {
    const graphOf = (texts: Record<string, string>) =>
      importGraph(Object.keys(texts), (file) => texts[file])
    // as the commands were: cli/ loads each command, a command loads cli/'s help
    const apart = graphOf({
      [join(SRC, 'cli/main.ts')]: "import { driftCommand } from '../commands/drift.js'",
      [join(SRC, 'commands/drift.ts')]: "import { helpRow } from '../cli/help.js'",
      [join(SRC, 'cli/help.ts')]: '',
    })
    expect(cycles(apart)).toEqual([])
    expect(folderCycles(apart)).toEqual([
      'cli/ → commands/ → cli/ (src/cli/main.ts imports ../commands/drift.js;' +
        ' src/commands/drift.ts imports ../cli/help.js)',
    ])
    // as they are: the same imports, the commands a folder of cli/
    const within = graphOf({
      [join(SRC, 'cli/main.ts')]: "import { driftCommand } from './commands/drift.js'",
      [join(SRC, 'cli/commands/drift.ts')]: "import { helpRow } from '../help.js'",
      [join(SRC, 'cli/help.ts')]: '',
    })
    expect(folderCycles(within)).toEqual([])
  })

  it('fails on a cycle made only of type imports and re-exports', () => {
    const texts: Record<string, string> = {
      [domainFile]: "import type { Presenting } from './ledger.js'",
      [join(SRC, 'domain/ledger.ts')]: "export type { Card } from './cards.js'",
      [httpFile]: '',
    }
    const graph = importGraph(Object.keys(texts), (file) => texts[file])
    expect(cycles(graph)).toEqual([
      ['src/domain/cards.ts', 'src/domain/ledger.ts', 'src/domain/cards.ts'],
    ])
  })
})
