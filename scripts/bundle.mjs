/**
 * After tsc: writes the schema of a migrated database that `:memory:` sandboxes start from
 * (dist/migrated-schema.json, store/sqlite/open.ts); bundles the `card-sandbox` command into one file
 * (dist/bin/cli.cjs), so that a cold start loads one module instead of ~350 (resolving and
 * loading the modules was most of the start-up), started by dist/bin/card-sandbox.js
 * (src/cli/bin.ts) through V8's code cache, which this script warms by running the command once;
 * and writes the CommonJS builds that `require` and Jest load (dist/*.cjs with their
 * dist/*.d.cts). better-sqlite3's native addon stays outside (the command holds its JavaScript,
 * below); the libraries load better-sqlite3 from node_modules. The ES module library
 * (`import 'card-sandbox'`) is bundled too, as ES modules (below).
 */
import { build } from 'esbuild'
import { spawn } from 'node:child_process'
import { chmodSync, copyFileSync, existsSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { join, resolve } from 'node:path'

const BIN = 'dist/bin/card-sandbox.js'
const CLI = 'dist/bin/cli.cjs'

/**
 * zod's `z` namespace re-exports every one of its ~50 message locales, so a bundle keeps them
 * all (~400 KB to parse at every start). The sandbox answers in English only: its locale index
 * is replaced by one that exports `en` alone.
 */
const zodEnglishOnly = {
  name: 'zod-english-only',
  setup(build) {
    build.onResolve({ filter: /\/locales\/index\.js$/ }, (args) =>
      args.importer.includes('/zod/')
        ? { path: args.importer, namespace: 'zod-locales' }
        : undefined,
    )
    build.onLoad({ filter: /.*/, namespace: 'zod-locales' }, (args) => ({
      contents: `export { default as en } from ${JSON.stringify(args.path.replace(/[^/]+\/[^/]+$/, 'locales/en.js'))}`,
      resolveDir: '/',
    }))
  },
}

/**
 * faker's fr locale with its en and base fallbacks is 430 KB of word lists the command and every
 * build of the library would parse and build at every start, for the few it draws from
 * (domain/ids.ts and its callers: person, location, company and internet names). The bundles'
 * locale keeps those categories alone, whole and in the same [fr, en, base] order, so a seed
 * draws the same values: checked here against the whole locale, and end to end by
 * test/cli/cli.test.ts (the command and the CommonJS build give the library's names for a seed).
 */
const FAKER_CATEGORIES = ['metadata', 'person', 'location', 'company', 'internet']
const fakerDrawsUsed = (faker) => [
  faker.person.firstName(),
  faker.person.lastName(),
  faker.location.streetAddress(),
  faker.location.city(),
  faker.internet.email(),
  faker.company.name(),
]
/** The trimmed fr and en locales, checked once for all the builds that use them. */
async function trimmedFakerLocales() {
  const { Faker, base, en, fr } = await import('@faker-js/faker')
  const pick = (locale) =>
    Object.fromEntries(FAKER_CATEGORIES.filter((c) => c in locale).map((c) => [c, locale[c]]))
  const [frNames, enNames] = [pick(fr), pick(en)]
  const whole = new Faker({ locale: [fr, en, base] })
  const trimmed = new Faker({ locale: [frNames, enNames, base] })
  whole.seed(7)
  trimmed.seed(7)
  for (let i = 0; i < 2_000; i++)
    if (JSON.stringify(fakerDrawsUsed(whole)) !== JSON.stringify(fakerDrawsUsed(trimmed)))
      throw new Error('bundle: the trimmed faker locale draws other values than the whole one')
  return { frNames, enNames }
}
let fakerLocales
const fakerNamesOnly = {
  name: 'faker-names-only',
  async setup(build) {
    const { frNames, enNames } = await (fakerLocales ??= trimmedFakerLocales())
    build.onResolve({ filter: /^@faker-js\/faker\/locale\/fr$/ }, (args) => ({
      path: args.path,
      namespace: 'faker-names',
    }))
    build.onLoad({ filter: /.*/, namespace: 'faker-names' }, () => ({
      contents: `import { Faker, base } from '@faker-js/faker'
export const faker = new Faker({ locale: [${JSON.stringify(frNames)}, ${JSON.stringify(enNames)}, base] })`,
      resolveDir: process.cwd(),
    }))
  },
}

/**
 * better-sqlite3's JavaScript in the command's bundle: node's module loader took 12 ms of a cold
 * start to load its 12 files from node_modules. Its native addon stays outside, handed over by
 * store/sqlite/open.ts (store/sqlite/addon.ts finds it). The copy runs only with the addon of the version it
 * was built with; with another version installed, the bundle requires the installed JavaScript,
 * as it did before.
 */
const betterSqliteBundled = {
  name: 'better-sqlite3-bundled',
  setup(build) {
    const root = resolve('node_modules/better-sqlite3')
    const { version } = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8'))
    build.onResolve({ filter: /^better-sqlite3$/ }, (args) =>
      args.namespace === 'better-sqlite3'
        ? { path: args.path, external: true }
        : { path: args.path, namespace: 'better-sqlite3' },
    )
    // the bundled copy is given the addon; it would look for it with `bindings` otherwise
    build.onResolve({ filter: /^bindings$/ }, (args) => ({ path: args.path, external: true }))
    build.onLoad({ filter: /.*/, namespace: 'better-sqlite3' }, () => ({
      contents: `import bundled from ${JSON.stringify(join(root, 'lib', 'index.js'))}
import { INSTALLED_SQLITE } from ${JSON.stringify(resolve('src/store/sqlite/addon.ts'))}
export default INSTALLED_SQLITE?.version === ${JSON.stringify(version)} ? bundled : require('better-sqlite3')`,
      resolveDir: root,
    }))
  },
}

/** `import.meta.url` in a CommonJS build: the bundle's own file, for package files and requires. */
const moduleUrlOfFile = {
  define: { 'import.meta.url': '__cardSandboxModuleUrl' },
  banner: {
    js: "const __cardSandboxModuleUrl = require('node:url').pathToFileURL(__filename).href;",
  },
}

/** What every build here shares: node 20's JavaScript, one file of what an entry imports. */
const forNode = { bundle: true, platform: 'node', target: 'node20', logLevel: 'warning' }
/** Less to parse at a start; names are kept for readable stack traces. */
const minified = { minifyWhitespace: true, minifySyntax: true }

// the schema `:memory:` sandboxes start from (store/sqlite/open.ts), made by tsc's build of it
const { writeMigratedSchema } = await import('../dist/store/sqlite/open.js')
writeMigratedSchema()

await build({
  entryPoints: ['src/cli/entry.ts'],
  outfile: CLI,
  ...forNode,
  format: 'cjs',
  ...moduleUrlOfFile,
  // inside node's module wrapper already, for lib/code-cache.ts to compile as it is read
  banner: {
    js: `(function (exports, require, module, __filename, __dirname) {\n${moduleUrlOfFile.banner.js}`,
  },
  footer: { js: '})' },
  ...minified,
  plugins: [zodEnglishOnly, fakerNamesOnly, betterSqliteBundled],
})
// CommonJS too (dist/bin/package.json says so): an ES module entry would have Node start its ES
// module loader, about 10 ms of a start
await build({
  entryPoints: ['src/cli/bin.ts'],
  outfile: BIN,
  ...forNode,
  format: 'cjs',
  ...moduleUrlOfFile,
})
writeFileSync('dist/bin/package.json', '{ "type": "commonjs" }\n')
chmodSync(BIN, 0o755)
asciiOnly(CLI)
await warmCodeCache()

/**
 * esbuild escapes what is not ASCII in strings but not in tagged templates (the pages' `html`,
 * which reads only their cooked text): one `·` there made V8 hold the whole bundle as two-byte
 * text, decoded at every start. Escaped, the cooked text is the same.
 */
function asciiOnly(file) {
  // unit by unit (both halves of an emoji's pair)
  const escape = (unit) => `\\u${unit.charCodeAt(0).toString(16).padStart(4, '0')}`
  writeFileSync(file, readFileSync(file, 'utf8').replace(/[\u0080-\uffff]/g, escape))
}

/**
 * Starts the command once and sends it the first calls of a client (a list, a card user), so that
 * the code cache it writes two seconds after its start (lib/code-cache.ts) holds what a start and
 * those calls compile. The cache of the previous build goes first: it is another source's.
 */
async function warmCodeCache() {
  const cacheFile = `${CLI}.cache`
  rmSync(cacheFile, { force: true })
  // a plain start, as lib/code-cache.ts writes a cache for no other
  const child = spawn(process.execPath, [BIN, '--port', '0', '--log', 'silent'], {
    env: { ...process.env, NODE_OPTIONS: '' },
    stdio: ['ignore', 'pipe', 'inherit'],
  })
  try {
    const api = await new Promise((resolve, reject) => {
      let out = ''
      child.stdout.on('data', (chunk) => {
        out += chunk
        const match = /API\s+(http:\/\/\S+\/v1)/.exec(out)
        if (match) resolve(match[1])
      })
      child.once('exit', (code) => reject(new Error(`the command exited (${code}): ${out}`)))
    })
    const call = (method, path, body) =>
      fetch(`${api}${path}`, {
        method,
        headers: { authorization: 'Bearer warm-up', 'content-type': 'application/json' },
        body: body && JSON.stringify(body),
      }).then((res) => res.arrayBuffer())
    await call('GET', '/cards')
    await call('POST', '/card-users/create', { phone: '+221770000001' })
    for (let waited = 0; !existsSync(cacheFile) && waited < 10_000; waited += 50)
      await new Promise((resolve) => setTimeout(resolve, 50))
    if (!existsSync(cacheFile))
      console.warn(`bundle: no ${cacheFile}; the first plain start that serves writes it`)
  } finally {
    child.kill('SIGKILL')
  }
}

/**
 * The ES module library's heavy entries (`import 'card-sandbox'`, `card-sandbox/vitest`), bundled
 * over tsc's files of the same names, with the chunks they share: a few files to load instead of
 * some 350 modules (the import took 530 ms here, the CommonJS bundle's 220). The light entries
 * (`/client`, `/testing`) stay tsc's. node-postgres stays outside, loaded from node_modules by
 * the chunk a PostgreSQL store imports (store/postgres/pool.ts; test/store/postgres/open.test.ts tells whether it
 * loaded by node_modules' modules); better-sqlite3 is a native addon.
 */
// the chunks of an earlier build would otherwise stay beside this one's
rmSync('dist/chunks', { recursive: true, force: true })
await build({
  entryPoints: ['src/index.ts', 'src/vitest-setup.ts'],
  outdir: 'dist',
  entryNames: '[name]',
  chunkNames: 'chunks/[name]-[hash]',
  ...forNode,
  splitting: true,
  format: 'esm',
  external: ['better-sqlite3', 'pg'],
  ...minified,
  plugins: [zodEnglishOnly, fakerNamesOnly],
})

/**
 * The CommonJS builds: the library and its client for `require()` (and Jest, whose module system
 * cannot load an ES module), the Jest setup and teardown. The Jest setup requires the library's
 * build rather than holding a second copy of the sandbox.
 */
const requireLibrary = {
  name: 'require-library',
  setup(build) {
    build.onResolve({ filter: /^(\.\.?\/)+index\.js$/ }, () => ({
      path: './index.cjs',
      external: true,
    }))
  },
}
const COMMONJS = [
  ['src/index.ts', 'dist/index.cjs'],
  ['src/client.ts', 'dist/client.cjs'],
  ['src/testing.ts', 'dist/testing.cjs'],
  ['src/jest.ts', 'dist/jest.cjs'],
  ['src/jest-teardown.ts', 'dist/jest-teardown.cjs'],
]
for (const [entry, outfile] of COMMONJS) {
  await build({
    entryPoints: [entry],
    outfile,
    ...forNode,
    format: 'cjs',
    external: ['better-sqlite3'],
    ...moduleUrlOfFile,
    // `module.exports = fn` for a default export alone, as Jest and require() callers expect
    footer: entry.startsWith('src/jest')
      ? { js: 'module.exports = Object.assign(module.exports.default, module.exports);' }
      : undefined,
    ...minified,
    plugins: [zodEnglishOnly, fakerNamesOnly, requireLibrary],
  })
}

/** Declarations for the CommonJS builds: tsc's, renamed, their relative imports to match. */
// the same text: the types they import stay the ES module declarations (type-only imports)
for (const name of ['index', 'client', 'testing'])
  copyFileSync(`dist/${name}.d.ts`, `dist/${name}.d.cts`)
// the Jest builds are `module.exports = fn` (the footer above): `export =` says so
writeFileSync(
  'dist/jest.d.cts',
  `import type { SandboxOptions } from './wiring/options.js'
declare namespace globalSetup {
  /** What Jest hands a globalSetup as its second argument, as far as the kit reads it. */
  type JestProjectConfig = { globals?: { cardSandbox?: SandboxOptions } }
}
/** Jest's globalSetup: starts the run's sandbox and sets CARD_SANDBOX_URL. */
declare function globalSetup(
  globalConfig?: unknown,
  projectConfig?: globalSetup.JestProjectConfig,
): Promise<void>
export = globalSetup
`,
)
writeFileSync(
  'dist/jest-teardown.d.cts',
  `/** Jest's globalTeardown: stops the sandbox card-sandbox/jest started. */
declare function globalTeardown(): Promise<void>
export = globalTeardown
`,
)
