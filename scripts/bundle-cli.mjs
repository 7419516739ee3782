/**
 * Bundles the `card-sandbox` command into one file (dist/bin/card-sandbox.js), so that a cold
 * start loads one module instead of ~350 (Node 20 has no compile cache; resolving and loading
 * the modules was most of the start-up). better-sqlite3 stays outside: it is a native addon.
 * The library (`card-sandbox`, `card-sandbox/client`) is still tsc's dist/, unbundled.
 */
import { build } from 'esbuild'
import { chmodSync } from 'node:fs'

const OUT = 'dist/bin/card-sandbox.js'

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
  logLevel: 'warning',
})
chmodSync(OUT, 0o755)
