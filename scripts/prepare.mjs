/**
 * npm's `prepare` (after `npm install` in a clone, before `npm pack`, and when npx links a clone
 * into its cache): builds dist/ unless it is already the build of the sources as they are
 * (scripts/build-stamp.mjs), so that only the first of these builds.
 */
import { spawnSync } from 'node:child_process'
import { whyBuild } from './build-stamp.mjs'

const why = whyBuild(process.cwd())
if (why !== undefined) {
  console.error(`card-sandbox: building dist/, about a minute (${why})…`)
  const { status } = spawnSync(process.execPath, ['scripts/build.mjs'], { stdio: 'inherit' })
  process.exit(status ?? 1)
}
