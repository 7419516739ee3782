#!/usr/bin/env node
/**
 * The `card-sandbox` command as installed (package.json's bin): the bundled command
 * (dist/bin/cli.cjs, scripts/bundle.mjs) run through V8's code cache, lib/code-cache.ts.
 */
import { fileURLToPath } from 'node:url'
import { runWithCodeCache } from './lib/code-cache.js'

runWithCodeCache(fileURLToPath(new URL('./cli.cjs', import.meta.url)))
