/**
 * After tsc: bundles the `card-sandbox` command into one file (dist/bin/card-sandbox.js), so that
 * a cold start loads one module instead of ~350 (Node 20 has no compile cache; resolving and
 * loading the modules was most of the start-up); and writes the CommonJS builds that `require`
 * and Jest load (dist/*.cjs with their dist/*.d.cts). better-sqlite3 stays outside: it is a
 * native addon. The ES module library (`import 'card-sandbox'`) is tsc's dist/, unbundled.
 */
import { build } from 'esbuild'
import { chmodSync, copyFileSync, writeFileSync } from 'node:fs'

const OUT = 'dist/bin/card-sandbox.js'

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

await build({
  entryPoints: ['src/cli.ts'],
  outfile: OUT,
  bundle: true,
  platform: 'node',
  format: 'esm',
  target: 'node20',
  external: ['better-sqlite3'],
  // CommonJS dependencies inside an ES module bundle still call require() for Node's modules
  banner: {
    js: "import { createRequire as requireOf } from 'node:module'; const require = requireOf(import.meta.url);",
  },
  // less to parse at start; names are kept for readable stack traces
  minifyWhitespace: true,
  minifySyntax: true,
  plugins: [zodEnglishOnly],
  logLevel: 'warning',
})
chmodSync(OUT, 0o755)

/**
 * The CommonJS builds: the library and its client for `require()` (and Jest, whose module system
 * cannot load an ES module), the Jest setup and teardown. The Jest setup requires the library's
 * build rather than holding a second copy of the sandbox.
 */
const requireLibrary = {
  name: 'require-library',
  setup(build) {
    build.onResolve({ filter: /^\.\/index\.js$/ }, () => ({ path: './index.cjs', external: true }))
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
    bundle: true,
    platform: 'node',
    format: 'cjs',
    target: 'node20',
    external: ['better-sqlite3'],
    // import.meta.url (where the package's files are, lazy requires) from the bundle's own path
    define: { 'import.meta.url': '__cardSandboxModuleUrl' },
    banner: {
      js: "const __cardSandboxModuleUrl = require('node:url').pathToFileURL(__filename).href;",
    },
    // `module.exports = fn` for a default export alone, as Jest and require() callers expect
    footer: entry.startsWith('src/jest')
      ? { js: 'module.exports = Object.assign(module.exports.default, module.exports);' }
      : undefined,
    minifyWhitespace: true,
    minifySyntax: true,
    plugins: [zodEnglishOnly, requireLibrary],
    logLevel: 'warning',
  })
}

/** Declarations for the CommonJS builds: tsc's, renamed, their relative imports to match. */
// the same text: the types they import stay the ES module declarations (type-only imports)
for (const name of ['index', 'client', 'testing'])
  copyFileSync(`dist/${name}.d.ts`, `dist/${name}.d.cts`)
// the Jest builds are `module.exports = fn` (the footer above): `export =` says so
writeFileSync(
  'dist/jest.d.cts',
  `import type { SandboxOptions } from './options.js'
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
