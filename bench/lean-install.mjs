// The install a CI job without the image does (docs/ci.md, "Jobs without the image"), timed:
// the package packed (`npm pack`, dist/ as built), then installed into a fresh project with
// `--omit=dev` three ways, and the command started from it until /__sandbox/health answers.
//
//   1. cold: an empty npm cache, better-sqlite3's addon built on the spot (its prebuilt binary
//      is downloaded where GitHub's releases are reachable, compiled by node-gyp where not);
//   2. warm npm cache (the CI cache of ~/.npm restored): the tarballs come from the cache, the
//      addon is still built;
//   3. warm npm cache and the addon's cache restored: `--ignore-scripts`, then the compiled
//      better_sqlite3.node copied in (the cache keyed by Node version, OS and lockfile).
//
// Then the first start (no V8 code cache yet) and a second one. Prints one line per figure and
// a JSON summary. Run: `npm run build && node bench/lean-install.mjs`.
import { spawn, spawnSync } from 'node:child_process'
import { cpSync, mkdirSync, mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { performance } from 'node:perf_hooks'

const root = new URL('..', import.meta.url).pathname
const work = mkdtempSync(join(tmpdir(), 'card-sandbox-lean-'))
const cache = join(work, 'npm-cache')
const ADDON = 'node_modules/better-sqlite3/build/Release/better_sqlite3.node'

function run(command, args, cwd) {
  const started = performance.now()
  const result = spawnSync(command, args, { cwd, encoding: 'utf8', stdio: 'pipe' })
  const seconds = (performance.now() - started) / 1000
  if (result.status !== 0)
    throw new Error(`${command} ${args.join(' ')} failed:\n${result.stdout}\n${result.stderr}`)
  return { seconds, stdout: result.stdout }
}

function project(name) {
  const dir = join(work, name)
  mkdirSync(dir)
  writeFileSync(join(dir, 'package.json'), JSON.stringify({ name, private: true }))
  return dir
}

const install = (dir, tarball, ...extra) =>
  run(
    'npm',
    ['install', '--omit=dev', '--no-audit', '--no-fund', '--cache', cache, ...extra, tarball],
    dir,
  ).seconds

/** The installed command started on a free port: seconds until its health check answers 200. */
async function firstHealthy(dir) {
  const started = performance.now()
  const child = spawn(join(dir, 'node_modules/.bin/card-sandbox'), ['--port', '0'], {
    cwd: dir,
    stdio: ['ignore', 'pipe', 'inherit'],
  })
  try {
    const health = await new Promise((found, fail) => {
      let out = ''
      const timer = setTimeout(() => fail(new Error(`no banner after 60 s: ${out}`)), 60_000)
      child.stdout.on('data', (chunk) => {
        out += chunk
        const match = /health\s+(http:\/\/\S+)/.exec(out)
        if (match) {
          clearTimeout(timer)
          found(match[1])
        }
      })
      child.once('exit', (code) => fail(new Error(`exited ${code}: ${out}`)))
    })
    for (;;) {
      const res = await fetch(health).catch(() => undefined)
      if (res?.status === 200) return (performance.now() - started) / 1000
      await new Promise((next) => setTimeout(next, 20))
    }
  } finally {
    child.kill('SIGTERM')
    await new Promise((exited) => child.once('exit', exited))
  }
}

const figures = {
  date: new Date().toISOString(),
  node: process.version,
  platform: `${process.platform}-${process.arch}`,
}
const say = (key, seconds, text) => {
  figures[key] = Number(seconds.toFixed(1))
  console.log(`${text.padEnd(58)} ${seconds.toFixed(1)} s`)
}
try {
  const packed = run(
    'npm',
    ['pack', '--silent', '--ignore-scripts', '--pack-destination', work],
    root,
  )
  const tarball = join(work, packed.stdout.trim().split('\n').pop())
  say('pack_s', packed.seconds, 'npm pack')

  const cold = project('cold')
  say('install_cold_s', install(cold, tarball), 'install --omit=dev, empty npm cache')

  const warm = project('warm')
  say('install_warm_npm_cache_s', install(warm, tarball), 'install --omit=dev, npm cache warm')

  const addon = project('addon')
  const seconds = install(addon, tarball, '--ignore-scripts')
  cpSync(join(cold, ADDON), join(addon, ADDON))
  say('install_cached_addon_s', seconds, 'install --omit=dev --ignore-scripts + cached addon')

  say('first_start_s', await firstHealthy(cold), 'first start until healthy (no code cache)')
  say('second_start_s', await firstHealthy(cold), 'second start until healthy')
  say('cached_addon_start_s', await firstHealthy(addon), 'first start, cached-addon install')
  figures.packages = readdirSync(join(cold, 'node_modules')).filter(
    (n) => !n.startsWith('.'),
  ).length
  console.log(JSON.stringify(figures))
} finally {
  rmSync(work, { recursive: true, force: true })
}
