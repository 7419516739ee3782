#!/usr/bin/env node
/**
 * The `card-sandbox` command as installed (package.json's bin): the bundled command
 * (dist/bin/cli.cjs, scripts/bundle.mjs) run through V8's code cache, lib/code-cache.ts.
 */
import { fileURLToPath } from 'node:url'
import { setFlagsFromString } from 'node:v8'
import { runWithCodeCache } from '../lib/code-cache.js'

// TurboFan inlines less into each function it optimises (a budget of 500 bytes of bytecode, not
// 920): optimising the request path, which takes turns with the requests on the server's core,
// took 0.6× the compile time under the bench's loads, with the same speed once optimised
// (bench/HISTORY.md). Set once the start is over, as V8 flags must be (lib/code-cache.ts).
runWithCodeCache(fileURLToPath(new URL('./cli.cjs', import.meta.url)), {
  afterStart: () => setFlagsFromString('--max-inlined-bytecode-size-cumulative=500'),
})
