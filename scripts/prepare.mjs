/**
 * npm's `prepare` (after `npm install` in a clone, before `npm pack`, and when npx links a clone
 * into its cache): builds dist/ unless it is already the build of the sources as they are
 * (scripts/build-stamp.mjs), so that only the first of these builds.
 */
import { spawnSync } from 'node:child_process'
import { closeSync, openSync, writeSync } from 'node:fs'
import { whyBuild } from './build-stamp.mjs'

/**
 * A line on stderr, and on the terminal under npx: `npm exec` runs the prepare of the clone it
 * links with its output piped away, and a minute of silence looks like a hang.
 */
function say(line) {
  console.error(line)
  if (process.env.npm_command !== 'exec' || process.stderr.isTTY) return
  try {
    const tty = openSync('/dev/tty', 'w')
    writeSync(tty, `${line}\n`)
    closeSync(tty)
  } catch {
    // no terminal (CI, a container): stderr alone
  }
}

const why = whyBuild(process.cwd())
if (why !== undefined) {
  say(`card-sandbox: building dist/, about a minute (${why})…`)
  const { status } = spawnSync(process.execPath, ['scripts/build.mjs'], { stdio: 'inherit' })
  process.exit(status ?? 1)
}
