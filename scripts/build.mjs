/**
 * `npm run build`: tsc, then scripts/bundle.mjs, always; the stamp `prepare` reads
 * (scripts/build-stamp.mjs) is removed first and written once both have finished, with the hash
 * of the sources as they were when the build started. dist/ is emptied first, so that a file
 * moved or removed in src/ leaves no stale build behind (tsc only ever adds and overwrites).
 */
import { spawnSync } from 'node:child_process'
import { rmSync } from 'node:fs'
import { createRequire } from 'node:module'
import { forgetStamp, inputsHash, writeStamp } from './build-stamp.mjs'

const root = process.cwd()
forgetStamp(root)
const hash = inputsHash(root)
rmSync(`${root}/dist`, { recursive: true, force: true })
const tsc = createRequire(`${root}/package.json`).resolve('typescript/bin/tsc')
for (const args of [[tsc, '-p', 'tsconfig.build.json'], ['scripts/bundle.mjs']]) {
  const { status } = spawnSync(process.execPath, args, { stdio: 'inherit' })
  if (status !== 0) process.exit(status ?? 1)
}
writeStamp(root, hash)
