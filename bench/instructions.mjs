#!/usr/bin/env node
// npm run bench:instructions: how many machine instructions one request costs in a warm server,
// counted by valgrind's callgrind, for GET /v1/cards and POST /v1/cards/create, against a bare
// Hono app answering the same requests, split by where they run (SQLite, the JavaScript V8 made of
// our code and the libraries', V8's built-ins and runtime, garbage collection, malloc, node's HTTP).
//
// Why instructions: on a shared machine requests per second and CPU time move by a fifth from one
// run to the next (bench/HISTORY.md); a count of instructions moves by 2 to 4 % (the sandbox's
// 100 ms tick runs on the wall clock, which valgrind slows), so a change of 5 % shows in one run
// and one of 2 % in two. It counts user space only: the kernel's share (the socket writes) is not
// in it, so it compares builds and finds costs; the ratios to Hono of `npm run bench` stay the
// figures of the targets.
//
// Each server is sent 3×N requests one at a time to warm up (V8 optimises what runs often), then
// N counted ones. V8's optimising compilers still run now and then after the warm-up; their
// instructions are left out of the figures (shown apart), as they fade with a longer run.
//
// It counts a cold start too: every instruction from the spawn to the first answer of
// GET /v1/cards, against a bare node:http server's start to its first answer (the floor: node
// itself). All threads, and no --single-threaded there: that V8 flag makes a start refuse the code
// cache it would read (lib/code-cache.ts). A start's count moves by about 1 % between runs.
//
// A create is counted on a third server too, bare Hono running the create's SQL alone
// (bench/baselines/hono-sqlite.mjs, the floor of `npm run bench`): the sandbox's count less the
// floor's, place by place, is what it adds beyond its SQL.
//
// usage: node bench/instructions.mjs [--n=1000] [--against=<another build's dist directory>]
//   --against compares the built dist/ with another build of the sandbox instead of bare Hono
//   and the floor (copy dist/ aside before a change: `cp -r dist dist-before`).
import { execFileSync, spawn, spawnSync } from 'node:child_process'
import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join, resolve } from 'node:path'
import { BASELINE_BODY, call, cardsReady } from './setup.mjs'

const ROOT = resolve(import.meta.dirname, '..')
const option = (name, fallback) =>
  process.argv.find((a) => a.startsWith(`--${name}=`))?.slice(name.length + 3) ?? fallback
const N = Number(option('n', 1_000))
const AGAINST = option('against')

if (spawnSync('valgrind', ['--version']).status !== 0) {
  console.error('bench:instructions needs valgrind (Debian: apt-get install valgrind)')
  process.exit(1)
}

/** A server to count: the built CLI of a dist directory, or a bare baseline script. */
const sandboxOf = (dist) => ({
  name: dist === join(ROOT, 'dist') ? 'sandbox' : `sandbox (${dist})`,
  args: [join(dist, 'bin/card-sandbox.js'), '--port', '0', '--log', 'silent', '--clock', 'manual'],
  bare: false,
})
const hono = { name: 'bare Hono', args: ['bench/baselines/hono.mjs'], bare: true }
const floor = { name: 'SQL floor', args: ['bench/baselines/hono-sqlite.mjs'], bare: true }

async function count(server, method) {
  const dir = mkdtempSync(join(tmpdir(), 'card-sandbox-instructions-'))
  const child = spawn(
    'valgrind',
    [
      '--tool=callgrind',
      '--instr-atstart=no',
      `--callgrind-out-file=${dir}/callgrind.out`,
      process.execPath,
      // V8's compiler and collector threads would finish their work at other moments each run
      '--single-threaded',
      ...server.args,
    ],
    { cwd: ROOT, stdio: ['ignore', 'pipe', 'pipe'] },
  )
  try {
    const url = await listening(child)
    const body = server.bare ? BASELINE_BODY : await cardsReady(url)
    const one =
      method === 'GET'
        ? () => call(url, 'GET', '/v1/cards')
        : () => call(url, 'POST', '/v1/cards/create', body)
    for (let i = 0; i < 3 * N; i++) await one()
    execFileSync('callgrind_control', ['--instr=on', String(child.pid)], { stdio: 'ignore' })
    for (let i = 0; i < N; i++) await one()
    execFileSync('callgrind_control', ['--dump', String(child.pid)], { stdio: 'ignore' })
    const file = readdirSync(dir).find((f) => /\.\d+$/.test(f))
    return byPlace(join(dir, file))
  } finally {
    child.kill('SIGKILL')
    rmSync(dir, { recursive: true, force: true })
  }
}

/** The instructions of one start, spawn to first answer of GET /v1/cards, every thread. */
async function countStart(args) {
  const dir = mkdtempSync(join(tmpdir(), 'card-sandbox-instructions-'))
  const child = spawn(
    'valgrind',
    ['--tool=callgrind', `--callgrind-out-file=${dir}/callgrind.out`, process.execPath, ...args],
    { cwd: ROOT, stdio: ['ignore', 'pipe', 'pipe'] },
  )
  try {
    const url = await listening(child)
    const answered = () =>
      fetch(`${url}/v1/cards`, { headers: { authorization: 'Bearer bench' } }).then(
        (res) => res.status === 200,
        () => false,
      )
    while (!(await answered())) await new Promise((resolve) => setTimeout(resolve, 20))
    execFileSync('callgrind_control', ['--dump', String(child.pid)], { stdio: 'ignore' })
    const file = readdirSync(dir).find((f) => /\.\d+$/.test(f))
    return Number(/^summary: (\d+)/m.exec(readFileSync(join(dir, file), 'utf8'))[1])
  } finally {
    child.kill('SIGKILL')
    rmSync(dir, { recursive: true, force: true })
  }
}

function listening(child) {
  return new Promise((resolveUrl, reject) => {
    let out = ''
    let err = ''
    child.stderr.on('data', (chunk) => (err += chunk))
    child.stdout.on('data', (chunk) => {
      out += chunk
      const match = /(http:\/\/127\.0\.0\.1:\d+)/.exec(out)
      if (match) resolveUrl(match[1])
    })
    child.on('exit', () => reject(new Error(`the server stopped: ${err.slice(-2_000)}`)))
  })
}

/** Where a function's instructions ran, by its name and object file (callgrind_annotate's). */
const PLACES = [
  [
    'V8 compilers (left out)',
    /v8::internal::(compiler|maglev|baseline|Compiler\b|Parser)|Zone|turboshaft/,
  ],
  ['SQLite', /better_sqlite3\.node/],
  ['garbage collection', /Scavenger|heap::|Heap::|MarkCompact|Sweeper|Marking/],
  ['malloc', /libc\.so.*malloc|malloc\.c/],
  ['JavaScript (optimised code)', /^\?\?\?:0x/],
  ["V8's built-ins", /Builtins_/],
  ["node's HTTP and libuv", /llhttp|node::|uv_|libuv/],
  ['libc (memcpy, strings)', /libc\.so/],
  ["V8's runtime and the rest", /./],
]

function byPlace(file) {
  const out = execFileSync('callgrind_annotate', ['--threshold=100', file], {
    encoding: 'utf8',
    maxBuffer: 1 << 28,
  })
  const places = Object.fromEntries(PLACES.map(([name]) => [name, 0]))
  for (const line of out.split('\n')) {
    const match = /^\s*([\d,]+) \([^)]*\)\s+(.*)$/.exec(line)
    if (!match || match[2].includes('PROGRAM TOTALS')) continue
    const [name] = PLACES.find(([, pattern]) => pattern.test(match[2]))
    places[name] += Number(match[1].replaceAll(',', ''))
  }
  for (const name in places) places[name] = Math.round(places[name] / N)
  places.total = Object.entries(places)
    .filter(([name]) => !name.startsWith('V8 compilers'))
    .reduce((sum, [, n]) => sum + n, 0)
  return places
}

const servers = [sandboxOf(join(ROOT, 'dist')), AGAINST ? sandboxOf(resolve(AGAINST)) : hono]
const results = {}
for (const method of ['GET', 'POST'])
  for (const server of servers) {
    results[`${method} ${server.name}`] = await count(server, method)
    console.error(`counted ${method} on ${server.name}`)
  }
if (!AGAINST) {
  results[`POST ${floor.name}`] = await count(floor, 'POST')
  console.error(`counted POST on ${floor.name}`)
}

const starts = [
  ['sandbox', sandboxOf(join(ROOT, 'dist')).args],
  AGAINST
    ? [`sandbox (${AGAINST})`, sandboxOf(resolve(AGAINST)).args]
    : ['bare node:http', ['bench/baselines/node-http.mjs']],
]
for (const [name, args] of starts) {
  results[`start ${name}`] = await countStart(args)
  console.error(`counted a start of ${name}`)
}

const thousands = (n) => n.toLocaleString('en-US')
console.log(
  `instructions per request (user space, ${N} requests after ${3 * N} to warm up), ${new Date().toISOString()}`,
)
const ratio = (a, b) => (b ? (a / b).toFixed(3) : '-')
for (const method of ['GET', 'POST']) {
  const [ours, theirs] = servers.map((s) => results[`${method} ${s.name}`])
  const under = results[`${method} ${floor.name}`]
  const more = under ? ` ${floor.name} | beyond it |` : ''
  console.log(`\n| ${method} | ${servers[0].name} | ${servers[1].name} | ratio |${more}`)
  console.log(`|---|---|---|---|${under ? '---|---|' : ''}`)
  for (const name of [...PLACES.map(([n]) => n), 'total'])
    console.log(
      `| ${name} | ${thousands(ours[name])} | ${thousands(theirs[name])} | ${ratio(ours[name], theirs[name])} |` +
        (under ? ` ${thousands(under[name])} | ${thousands(ours[name] - under[name])} |` : ''),
    )
}
const [ourStart, theirStart] = starts.map(([name]) => results[`start ${name}`])
console.log(`\n| cold start, to the first answer | ${starts[0][0]} | ${starts[1][0]} | ratio |`)
console.log('|---|---|---|---|')
console.log(
  `| instructions | ${thousands(ourStart)} | ${thousands(theirStart)} | ${(ourStart / theirStart).toFixed(3)} |`,
)
