/**
 * Whether dist/ was built from the sources as they are: `npm run build` (scripts/build.mjs)
 * writes dist/.build-stamp, a hash of every file the build reads, once the build has finished,
 * and removes it before it starts (so a build cut short leaves no stamp). `prepare`
 * (scripts/prepare.mjs) builds only when the stamp is missing or no longer matches, so that the
 * first `npx card-sandbox` after `npm install` in a clone (npm links the clone into its npx
 * cache and runs `prepare` again) and `npm pack` after a build start at once.
 *
 * A hash of the content rather than modification times: a checkout or a clone gives every file
 * a new time whether it changed or not, and a time says nothing of a build that was cut short.
 */
import { createHash } from 'node:crypto'
import { existsSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs'
import { join, sep } from 'node:path'

/**
 * What the build reads besides node_modules (whose versions the lockfile holds): tsc's sources
 * and options, the bundler and its helpers, the package's manifest, and the SQLite migrations
 * the schema of `:memory:` databases is made from (scripts/bundle.mjs, writeMigratedSchema).
 */
export const BUILD_INPUTS = [
  'src',
  'scripts',
  'drizzle',
  'tsconfig.json',
  'tsconfig.build.json',
  'package.json',
  'package-lock.json',
]
export const STAMP = join('dist', '.build-stamp')
/** What a built tree holds besides the stamp: the command npx runs. */
const BUILT = join('dist', 'bin', 'card-sandbox.js')

function filesUnder(root, path) {
  const full = join(root, path)
  if (!existsSync(full)) return []
  if (!statSync(full).isDirectory()) return [path]
  return readdirSync(full, { recursive: true })
    .map((name) => join(path, String(name)))
    .filter((name) => statSync(join(root, name)).isFile())
}

/** The hash of the build's inputs under `root`: each file's path and content, in path order. */
export function inputsHash(root) {
  const hash = createHash('sha256')
  const files = BUILD_INPUTS.flatMap((input) => filesUnder(root, input))
    .map((file) => file.split(sep).join('/'))
    .sort()
  for (const file of files) {
    const content = readFileSync(join(root, file))
    hash.update(`${file}\0${content.length}\0`).update(content)
  }
  return hash.digest('hex')
}

/** Why `root` needs a build, or undefined when its dist/ is the build of its sources as they are. */
export function whyBuild(root) {
  if (!existsSync(join(root, BUILT))) return `${BUILT.split(sep).join('/')} is missing`
  const stamp = join(root, STAMP)
  if (!existsSync(stamp)) return 'dist/ has no build stamp'
  if (readFileSync(stamp, 'utf8').trim() !== inputsHash(root))
    return 'the sources changed since the last build'
  return undefined
}

export function forgetStamp(root) {
  rmSync(join(root, STAMP), { force: true })
}

export function writeStamp(root, hash) {
  writeFileSync(join(root, STAMP), `${hash}\n`)
}
