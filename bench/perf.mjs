// Where a server's CPU time goes, by place, as Linux `perf` samples it across all the process's
// threads: the kernel (the socket calls, loopback TCP), SQLite, malloc and memcpy, V8's collector,
// compilers, built-ins and runtime, and the JavaScript it compiled, ours by folder and the
// libraries' by package. V8's own CPU profile (--cpu-prof) samples the main thread only and puts
// a system call's time on whichever function is on the stack, which hid most of the kernel's
// share of a request; `perf` does not. Needs `perf` (Debian: linux-perf) and the server started
// with --perf-basic-prof (the JIT's symbols); without `perf`, `npm run bench -- --profile` says so.
import { spawn, spawnSync } from 'node:child_process'
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'

/** Whether `perf record` runs here (installed, and allowed to sample this user's processes). */
export function perfWorks() {
  const probe = spawnSync('perf', ['record', '-q', '-o', '/dev/null', '--', 'true'], {
    stdio: 'ignore',
  })
  return probe.status === 0
}

/** Samples process `pid` while `run()` runs; the places of its CPU time, as shares of 1. */
export async function samplePlaces(pid, run) {
  const dir = mkdtempSync(join(tmpdir(), 'card-sandbox-perf-'))
  const data = join(dir, 'perf.data')
  const recorder = spawn('perf', ['record', '-q', '-F', '1999', '-p', String(pid), '-o', data], {
    stdio: 'ignore',
  })
  const stopped = new Promise((done) => recorder.once('exit', done))
  try {
    await new Promise((r) => setTimeout(r, 300)) // perf attaches to each thread first
    await run()
  } finally {
    recorder.kill('SIGINT')
    await stopped
  }
  const report = spawnSync(
    'perf',
    ['report', '-i', data, '--stdio', '--no-children', '-g', 'none', '--sort', 'dso,sym'],
    { encoding: 'utf8', maxBuffer: 64 * 1024 * 1024 },
  )
  rmSync(dir, { recursive: true, force: true })
  rmSync(`/tmp/perf-${pid}.map`, { force: true })
  const shares = new Map()
  for (const line of report.stdout.split('\n')) {
    const sample = /^\s*([\d.]+)%\s+(.+?)\s+\[(.)\]\s+(.*)$/.exec(line)
    if (!sample) continue
    const [, percent, dso, kind, symbol] = sample
    const place = placeOf(dso, kind, symbol.trim())
    shares.set(place, (shares.get(place) ?? 0) + Number(percent) / 100)
  }
  return shares
}

const GC = /Heap|Scaveng|Mark|Sweep|Evacuat|Compact|RememberedSet|MemoryChunk|::GC/
const COMPILER = /compiler::|maglev|Maglev|Turbofan|Compil|Baseline|Sparkplug|Parser|Bytecode|Zone/

function placeOf(dso, kind, symbol) {
  if (kind === 'k') return 'kernel (system calls, loopback TCP)'
  if (dso.startsWith('better_sqlite3')) return 'SQLite and better-sqlite3'
  if (dso.startsWith('libc')) return 'malloc, memcpy and the rest of libc'
  if (symbol.startsWith('JS:')) return javaScriptPlace(symbol)
  if (dso === 'node' || dso.startsWith('libstdc++') || dso.startsWith('[JIT]')) {
    if (symbol.startsWith('Builtins_')) return 'V8 built-ins (property access, calls, promises)'
    if (COMPILER.test(symbol)) return 'V8 compilers'
    if (GC.test(symbol)) return 'V8 garbage collection'
    if (/^(node::|llhttp|uv_|uv__|non-virtual thunk to node::)/.test(symbol))
      return "node's C++ and libuv (HTTP parser, sockets)"
    return 'V8 runtime (objects, strings, JSON, calls into C++)'
  }
  return 'other'
}

/** `JS:*fn file:///…/dist/http/x.js:1:2`, `…/node_modules/hono/…`, `node:internal/…`. */
function javaScriptPlace(symbol) {
  const ours = /\/dist\/([^/:]+)\//.exec(symbol)
  if (ours && !symbol.includes('/node_modules/')) return `JS: ours, ${ours[1]}/`
  const library = /\/node_modules\/((?:@[^/]+\/)?[^/]+)\//.exec(symbol)
  if (library) return `JS: ${library[1]}`
  if (/ node:/.test(symbol)) return "JS: node's own (http, streams)"
  if (/\/dist\/[^/]+\.js:/.test(symbol)) return 'JS: ours, top level'
  return 'JS: other'
}
