/**
 * Bundles the `card-sandbox` command into one file (dist/bin/card-sandbox.js), so that a cold
 * start loads one module instead of ~350 (Node 20 has no compile cache; resolving and loading
 * the modules was most of the start-up). better-sqlite3 stays outside: it is a native addon.
 * The library (`card-sandbox`, `card-sandbox/client`) is still tsc's dist/, unbundled.
 */
import { build } from 'esbuild'
import { chmodSync } from 'node:fs'

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
