#!/usr/bin/env node
// npm run bench: card-sandbox against a bare node:http server and a bare Hono app, all started
// as separate processes on loopback, in one run on this machine. Prints a table and writes
// bench/results.json, each figure also as a ratio to the bare Hono baseline of the same run,
// beside the figure of the previous run (the results.json it replaces). With two or more cores
// the servers run on core 0 and this load generator on core 1 (taskset). The loads compared with
// one another (bare Hono, the sandbox, the sandbox with `--clock manual` and with `--journal off`,
// bare Hono running a create's SQL alone: bench/baselines/hono-sqlite.mjs) run side by side,
// in short slices in turn over rounds, and each ratio is the median of the rounds' ratios
// (sideBySide), so that the drift of a shared machine moves all of them or none. Cold starts
// likewise alternate with bare Hono's and bare node:http's.
// Every loop is bounded in time and count.
//
// `--smoke` runs everything tiny (the test suite uses it). `--profile` measures instead what each
// stage of the request path (src/server/app.ts) costs, by switching it off in turn (the sandbox
// factory's bench-only `stages` option, and `journal`), and where the rest goes: a CPU profile
// of the server under load, as µs per request by function, and, where Linux `perf` runs, the
// same by place across all its threads (the kernel, SQLite, V8…: bench/perf.mjs). It writes
// bench/profile.json. `--advance-probe` runs only the team part's clock advances: ms per due
// job, and another tenant's slowest GET during a long advance (SQLite; PostgreSQL when given).
import autocannon from 'autocannon'
import Database from 'better-sqlite3'
import { spawn, spawnSync } from 'node:child_process'
import { randomUUID } from 'node:crypto'
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { createServer } from 'node:http'
import { availableParallelism, cpus, tmpdir } from 'node:os'
import { join, resolve } from 'node:path'
import { setFlagsFromString } from 'node:v8'
import { runInNewContext } from 'node:vm'
import {
  BASELINE_BODY,
  call,
  cardsReady,
  createCardBody,
  identity,
  SETUP_CALLS,
  TOKEN,
} from './setup.mjs'
import { perfWorks, samplePlaces } from './perf.mjs'
import { startPgWireRelay } from './pg-wire-relay.mjs'
import { cpuMicros, listeningUrl, median } from './processes.mjs'

const ROOT = resolve(import.meta.dirname, '..')
// This process's own garbage collector (V8 gives new contexts `gc` once the flag is set), for
// settleClient.
setFlagsFromString('--expose-gc')
const collectOwnGarbage = runInNewContext('gc')
/** The built command, as `npx card-sandbox` runs it (package.json bin). */
const CLI = 'dist/bin/card-sandbox.js'
const SMOKE = process.argv.includes('--smoke')
const PROFILE = process.argv.includes('--profile')
const option = (name, fallback) =>
  process.argv.find((a) => a.startsWith(`--${name}=`))?.slice(name.length + 3) ?? fallback
const OUT = option('out', join(ROOT, PROFILE ? 'bench/profile.json' : 'bench/results.json'))
/** The run the table compares with: the results.json in the repository, unless named. */
const PREVIOUS = option('previous', join(ROOT, 'bench/results.json'))
const C = SMOKE
  ? {
      duration: 0.2,
      rounds: 1,
      starts: 1,
      resetRows: 20,
      resetRounds: 2,
      restoreRounds: 5,
      listRows: [50, 500],
      due: 100,
      hooks: 20,
      sliceRounds: 1,
      slice: 0.2,
      warmSlice: 0.1,
      teamDue: 20,
      teamSqliteAdvance: 50,
      teamPgAdvance: 20,
      dueLoadSeconds: 0.5,
      wireTries: 2,
      idleMs: 300,
    }
  : {
      duration: 4,
      rounds: Number(option('rounds', 3)),
      starts: 7,
      resetRows: 1_000,
      resetRounds: 15,
      restoreRounds: 100,
      listRows: [1_000, 100_000],
      due: 10_000,
      hooks: 1_000,
      sliceRounds: Number(option('slice-rounds', 10)),
      slice: 1,
      warmSlice: 1,
      // the team part (team()): due card issuings of the advance timed per job, and of the
      // advances during which another tenant's GETs are timed
      teamDue: 2_000,
      teamSqliteAdvance: 20_000,
      teamPgAdvance: 2_000,
      // creates on the default delays, long enough for the first cards' issuings (5 s) to fall
      // due under the load (dueUnderLoad)
      dueLoadSeconds: 10,
      // requests sent per wire count (the least is the request's own), and the idle window
      wireTries: 9,
      idleMs: 3_000,
    }
const CONNECTIONS = 50

const hasTaskset = spawnSync('taskset', ['-V']).status === 0
// re-executed under taskset, this process sees one core: the pinning was decided by its parent
const canPin = process.env.BENCH_PINNED === '1' || (availableParallelism() >= 2 && hasTaskset)
if (canPin && !process.env.BENCH_PINNED) {
  const r = spawnSync('taskset', ['-c', '1', process.execPath, ...process.argv.slice(1)], {
    stdio: 'inherit',
    env: { ...process.env, BENCH_PINNED: '1' },
  })
  process.exit(r.status ?? 1)
}
const pinning = canPin
  ? 'servers on core 0, load on core 1 (taskset)'
  : `not pinned: ${hasTaskset ? 'fewer than 2 cores' : 'no taskset'}`

const children = new Set()
process.on('exit', () => children.forEach((c) => c.kill('SIGKILL')))

/** node running `args`, on core 0 when the servers are pinned: spawn's command and arguments. */
const onServerCore = (args) =>
  canPin ? ['taskset', ['-c', '0', process.execPath, ...args]] : [process.execPath, args]

function startServer(args) {
  const child = spawn(...onServerCore(args), { cwd: ROOT, stdio: ['ignore', 'pipe', 'inherit'] })
  children.add(child)
  return listeningUrl(child).then((url) => ({
    url,
    child,
    stop: () => (child.kill('SIGKILL'), children.delete(child)),
    /** Stops it as Ctrl-C does (a --cpu-prof server writes its profile then). */
    interrupt: () =>
      new Promise((done) => {
        child.once('exit', done)
        child.kill('SIGINT')
      }).then(() => children.delete(child)),
  }))
}
/** The built command with default flags unless named (the log off: it writes to a pipe). */
const sandbox = (...flags) => startServer([CLI, '--port', '0', '--log', 'silent', ...flags])
/** The built library with the bench-only options of bench/sandbox.mjs (stage switches). */
const sandboxWith = (options, nodeFlags = []) =>
  startServer([...nodeFlags, 'bench/sandbox.mjs', JSON.stringify(options)])
const baseline = (name) => startServer([`bench/baselines/${name}.mjs`])

/** Runs n calls, `width` at a time. */
async function many(n, fn, width = CONNECTIONS) {
  let next = 0
  await Promise.all(
    Array.from({ length: Math.min(width, n) }, async () => {
      while (next < n) await fn(next++)
    }),
  )
}
/**
 * Before a reset timed after a thousand calls: this process's own collection, then one call not
 * timed. Else the scavenge those calls leave due here (6 to 10 ms) falls inside the timed call
 * now and then and is counted as the sandbox's (eight of the nine resets over 5 ms in ninety),
 * and after a collection this process's first call is slower for reasons of its own.
 */
async function settleClient(url) {
  collectOwnGarbage()
  await call(url, 'GET', '/__sandbox/health')
}
const percentile = (xs, p) =>
  [...xs].sort((a, b) => a - b)[Math.min(xs.length - 1, Math.ceil((p / 100) * xs.length) - 1)]
const round = (x, digits = 2) => Math.round(x * 10 ** digits) / 10 ** digits
const rss = (pid, field = 'VmRSS') =>
  Number(
    /(\d+) kB/.exec(
      readFileSync(`/proc/${pid}/status`, 'utf8')
        .split('\n')
        .find((l) => l.startsWith(field)),
    )[1],
  ) / 1024

/**
 * `connections` at a time on `server` for `seconds` (C.duration unless named). Besides requests
 * per second and latency, the server's CPU time per request (`cpu_us`).
 */
async function load(server, method, path, body, connections = CONNECTIONS, seconds = C.duration) {
  // a group of replicas (team()): the load spread over them in turn, their CPU time summed
  const servers = server.servers ?? [server]
  const cpuBefore = servers.map((s) => cpuMicros(s.child.pid))
  // replicas on PostgreSQL: the CPU time of the backends serving them too
  const backendsBefore = server.application && (await backendCpu(server.application))
  const result = await autocannon({
    url: servers.map((s) => s.url + path),
    method,
    connections,
    duration: seconds,
    pipelining: 1,
    headers: { Authorization: `Bearer ${TOKEN}`, 'Content-Type': 'application/json' },
    body: body === undefined ? undefined : JSON.stringify(body),
  })
  const cpu = servers.reduce((sum, s, i) => sum + cpuMicros(s.child.pid) - cpuBefore[i], 0)
  let pgCpu = 0
  if (backendsBefore)
    for (const [pid, us] of await backendCpu(server.application))
      pgCpu += us - (backendsBefore.get(pid) ?? 0)
  return {
    rps: Math.round(result.requests.average),
    cpu_us: round(cpu / Math.max(1, result.requests.total), 1),
    ...(backendsBefore && { pg_cpu_us: round(pgCpu / Math.max(1, result.requests.total), 1) }),
    p50: result.latency.p50,
    p99: result.latency.p99,
    p999: result.latency.p99_9,
    max: result.latency.max,
    // one connection sends one request at a time: its mean latency is the window over the count
    // (autocannon's own latency figures are whole milliseconds)
    mean: round(
      connections === 1
        ? (seconds * 1000) / Math.max(1, result.requests.total)
        : result.latency.mean,
      3,
    ),
    requests: result.requests.total,
    errors: result.errors + result.timeouts,
    non2xx: result.non2xx,
  }
}
/**
 * The round whose figure is the median of `ratioOf` over the rounds, that median, and the least
 * and greatest of the rounds' ratios.
 */
function medianRound(rounds, ratioOf) {
  const ratios = rounds.map(ratioOf)
  const middle = median(ratios)
  return {
    ratio: round(middle, 3),
    min: round(Math.min(...ratios), 3),
    max: round(Math.max(...ratios), 3),
    round: rounds[ratios.indexOf(middle)],
  }
}
const COLD_START_PORT = 31_000
const uptime = () => readFileSync('/proc/loadavg', 'utf8').split(' ').slice(0, 3).join(' ')
const machine = `${cpus()[0]?.model ?? 'unknown cpu'}, ${cpus().length} cores, Node ${process.version}`

/** Milliseconds from spawning `args` (pinned as the servers are) to a 200 on GET /v1/cards. */
async function coldStart(args, port) {
  const started = performance.now()
  const child = spawn(...onServerCore(args), { cwd: ROOT, stdio: 'ignore' })
  children.add(child)
  for (let tries = 0; tries < 2_000; tries++) {
    const ok = await fetch(`http://127.0.0.1:${port}/v1/cards`, {
      headers: { Authorization: 'Bearer b' },
    }).then(
      (r) => r.status === 200,
      () => false,
    )
    if (ok) break
    await new Promise((r) => setTimeout(r, 2))
  }
  const ms = performance.now() - started
  child.kill('SIGKILL')
  children.delete(child)
  return ms
}

async function bench() {
  const figures = {}
  const loadBefore = uptime()

  // 1. cold start: spawn to the first 200 on GET /v1/cards, the sandbox's and, interleaved with
  // them, bare Hono's and bare node:http's (what node and the libraries alone take on this
  // machine). Ports below Linux's ephemeral range (32768 and up): a client socket holding the
  // port would keep a start from listening, and the loop below would wait it out
  {
    const starts = [
      ['sandbox', (port) => [CLI, '--port', String(port), '--log', 'silent']],
      ['hono', (port) => ['bench/baselines/hono.mjs', String(port)]],
      ['node_http', (port) => ['bench/baselines/node-http.mjs', String(port)]],
    ]
    const times = Object.fromEntries(starts.map(([name]) => [name, []]))
    let port = COLD_START_PORT
    for (let i = 0; i < C.starts; i++)
      for (const [name, args] of starts) times[name].push(await coldStart(args(port), port++))
    figures.cold_start_ms = round(median(times.sandbox), 1)
    figures.cold_start_hono_ms = round(median(times.hono), 1)
    figures.cold_start_node_http_ms = round(median(times.node_http), 1)
  }

  // 2. requests per second and latency: bare Hono, the sandbox (default flags), with
  // --clock manual and with --journal off, side by side; bare node:http once. 6. memory.
  Object.assign(figures, await sideBySide())
  {
    const bare = await baseline('node-http')
    for (const [request, method, path, body] of [
      ['get_cards', 'GET', '/v1/cards'],
      ['create_card', 'POST', '/v1/cards/create', BASELINE_BODY],
    ])
      figures[`node_http_${request}`] = await load(bare, method, path, body)
    bare.stop()
  }

  // 3. reset of a tenant holding C.resetRows rows
  {
    const s = await sandbox('--clock', 'manual')
    const times = []
    const customer = { full_name: 'A B', phone: '+221770000000' }
    for (let r = 0; r < C.resetRounds; r++) {
      await many(C.resetRows, () =>
        call(s.url, 'POST', '/v1/payments/create', { amount: 100, network: 'wave-sn', customer }),
      )
      await settleClient(s.url)
      const started = performance.now()
      await call(s.url, 'POST', '/__sandbox/reset')
      times.push(performance.now() - started)
    }
    figures.reset = {
      rows: C.resetRows,
      p50: round(median(times)),
      p99: round(percentile(times, 99)),
    }
    // a snapshot of a tenant holding about as many rows (a payment makes four), restored as
    // often
    await many(Math.ceil(C.resetRows / 4), () =>
      call(s.url, 'POST', '/v1/payments/create', { amount: 100, network: 'wave-sn', customer }),
    )
    const taken = await call(s.url, 'POST', '/__sandbox/snapshots', { name: 'bench' })
    // a p99 wants a hundred samples (of fifteen it is the slowest one); a restore needs no set-up
    const restores = []
    for (let r = 0; r < C.restoreRounds; r++) {
      const started = performance.now()
      await call(s.url, 'POST', '/__sandbox/snapshots/bench/restore')
      restores.push(performance.now() - started)
    }
    figures.restore = {
      rows: taken.data.rows,
      p50: round(median(restores)),
      p99: round(percentile(restores, 99)),
      p50_to_reset: round(median(restores) / median(times), 2),
    }
    s.stop()
  }

  // 4. list latency as the table grows (rows written straight into the sandbox's WAL database)
  {
    const dir = mkdtempSync(join(tmpdir(), 'card-sandbox-bench-'))
    const file = join(dir, 'bench.sqlite')
    const s = await sandbox('--clock', 'manual', '--db', file)
    const card = (await call(s.url, 'POST', '/v1/cards/create', await createCardBody(s.url))).data
      .card.reference
    const db = new Database(file)
    db.pragma('busy_timeout = 5000')
    const tenant = db.prepare('SELECT id FROM tenants WHERE token = ?').get(TOKEN).id
    const insert = db.prepare(
      "INSERT INTO transactions (slug, tenant_id, card_reference, reference, kind, status, amount, created_at, updated_at) VALUES (?, ?, ?, ?, 'recharge', 'success', 1, ?, ?)",
    )
    const fill = db.transaction((from, to) => {
      for (let i = from; i < to; i++)
        insert.run(
          randomUUID(),
          tenant,
          card,
          `r${i}`,
          1_767_225_600_000 + i,
          1_767_225_600_000 + i,
        )
    })
    figures.list = {}
    let rows = 0
    for (const target of C.listRows) {
      fill(rows, target)
      rows = target
      const r = await autocannon({
        url: `${s.url}/v1/transactions`,
        connections: 10,
        duration: C.duration,
        headers: { Authorization: `Bearer ${TOKEN}` },
      })
      figures.list[`p50_at_${target}`] = r.latency.p50
    }
    db.close()
    s.stop()
    rmSync(dir, { recursive: true, force: true })
  }

  // 5. one clock advance that makes C.due transitions fall due (payments expiring)
  {
    const s = await sandbox('--clock', 'manual')
    const customer = { full_name: 'A B', phone: '+221770000000' }
    await many(C.due, () =>
      call(s.url, 'POST', '/v1/payments/create', { amount: 100, network: 'wave-sn', customer }),
    )
    const started = performance.now()
    const advanced = await call(s.url, 'POST', '/__sandbox/clock/advance', { by: '31m' })
    figures.due_transitions = {
      count: advanced.data.transitions_run,
      ms: round(performance.now() - started, 1),
    }
    // run until idle over as many jobs, due at a hundred instants (one clock move each)
    await call(s.url, 'POST', '/__sandbox/reset')
    for (let batch = 0; batch < 100; batch++) {
      await many(C.due / 100, () =>
        call(s.url, 'POST', '/v1/payments/create', { amount: 100, network: 'wave-sn', customer }),
      )
      await call(s.url, 'POST', '/__sandbox/clock/advance', { by: '1s' })
    }
    const idleStarted = performance.now()
    const idle = await call(s.url, 'POST', '/__sandbox/clock/run-due', {})
    const idleMs = performance.now() - idleStarted
    figures.run_due = {
      count: idle.data.transitions_run,
      ms: round(idleMs, 1),
      to_reset: round(idleMs / figures.reset.p50, 1),
    }
    // as many cards issued by one advance, each with its card_creation webhook event: the event
    // log's trim once cost each event a read of the older ones still pending (quadratic)
    await call(s.url, 'POST', '/__sandbox/reset')
    const createBody = await createCardBody(s.url)
    await many(C.due, () => call(s.url, 'POST', '/v1/cards/create', createBody))
    const issuingStarted = performance.now()
    const issued = await call(s.url, 'POST', '/__sandbox/clock/advance', { by: '10s' })
    figures.due_issuances = {
      count: issued.data.transitions_run,
      ms: round(performance.now() - issuingStarted, 1),
    }
    s.stop()
  }

  // 7. webhooks: C.hooks deliveries to a local receiver
  {
    const ids = new Set()
    let received = 0
    const receiver = createServer((req, res) => {
      req.resume()
      req.on('end', () => {
        received++
        ids.add(req.headers['x-alal-event-id'])
        res.end('ok')
      })
    })
    await new Promise((r) => receiver.listen(0, '127.0.0.1', r))
    const s = await sandbox(
      '--clock',
      'manual',
      '--webhook-url',
      `http://127.0.0.1:${receiver.address().port}/hooks`,
    )
    await many(C.hooks, (i) => call(s.url, 'POST', '/v1/card-users/create', identity(i)))
    const started = performance.now()
    await call(s.url, 'POST', '/__sandbox/clock/advance', { by: '3s' })
    const deadline = Date.now() + 60_000
    while (ids.size < C.hooks && Date.now() < deadline) await new Promise((r) => setTimeout(r, 5))
    figures.webhooks = {
      count: C.hooks,
      delivered: ids.size,
      lost: C.hooks - ids.size,
      attempts: received,
      ms: round(performance.now() - started, 1),
    }
    s.stop()
    receiver.close()
  }

  // 9. the team sandbox on PostgreSQL, when there is one to run on
  if (PG_URL) figures.team = await team()

  // the table: each figure beside the previous run's, and whether it meets its target
  const previous = existsSync(PREVIOUS) ? JSON.parse(readFileSync(PREVIOUS, 'utf8')) : undefined
  const rows = TABLE.map(({ what, value, target, met }) => {
    // a row the previous run lacks (a figure it did not measure) shows —
    const shown = (f) => {
      try {
        const text = value(f)
        return text.includes('undefined') ? '—' : text
      } catch {
        return '—'
      }
    }
    return {
      what: what(C),
      value: value(figures),
      previous: previous ? shown(previous.figures) : '—',
      target,
      met: met(figures),
    }
  })
  const report = {
    date: new Date().toISOString(),
    machine,
    pinning,
    load: { before: loadBefore, after: uptime() },
    rounds: C.sliceRounds,
    slice_seconds: C.slice,
    smoke: SMOKE,
    previous: previous ? previous.date : null,
    figures,
    targets: rows,
  }
  writeFileSync(OUT, JSON.stringify(report, null, 2) + '\n')
  const table = [
    `| measure (target) | this run | previous run (${previous?.date.slice(0, 10) ?? 'none'}) | met |`,
    '|---|---|---|---|',
    ...rows.map(
      ({ what, value, previous, target, met }) =>
        `| ${what} (${target}) | ${value} | ${previous} | ${met ? 'yes' : 'no'} |`,
    ),
  ]
  console.log(
    `card-sandbox bench — ${report.date} — ${machine} — ${pinning} — load ${loadBefore} → ${report.load.after}` +
      (SMOKE ? ' — SMOKE (tiny, not figures)' : ''),
  )
  console.log(table.join('\n'))
  if (figures.team) printTeam(figures.team)
  console.log(`written to ${OUT}`)
}

/** GET /v1/cards and POST /v1/cards/create at 50 connections, then at one. */
const LOADS = [
  { request: 'get_cards', method: 'GET', path: '/v1/cards', connections: CONNECTIONS },
  { request: 'create_card', method: 'POST', path: '/v1/cards/create', connections: CONNECTIONS },
  { request: 'get_cards_1', method: 'GET', path: '/v1/cards', connections: 1 },
  { request: 'create_card_1', method: 'POST', path: '/v1/cards/create', connections: 1 },
]

/**
 * Servers started side by side on the servers' core, loaded in turn, C.slice seconds each, over
 * C.sliceRounds rounds of each load (each round in the other order than the one before), after
 * a warm-up slice each, as bench:ab does: loads a second apart see the same machine, where loads
 * of fresh servers tens of seconds apart each see their own (on a nested virtual machine, a
 * fifth apart: the ratios of runs of the same code swung by a third). `servers`: { name, server,
 * body }; `only(name)` says which are loaded at one connection. Returns each load's rounds, each
 * a server's figures by its name.
 */
async function inTurn(servers, loads, { only = () => true, warmSeconds = C.warmSlice } = {}) {
  const rounds = {}
  for (const { request, method, path, connections } of loads) {
    const loaded = servers.filter((s) => connections > 1 || only(s.name))
    const slice = async (r, seconds) => {
      const measured = {}
      for (const { name, server, body } of r % 2 ? [...loaded].reverse() : loaded)
        measured[name] = await load(
          server,
          method,
          path,
          method === 'POST' ? body : undefined,
          connections,
          seconds,
        )
      return measured
    }
    await slice(0, warmSeconds) // V8 optimises first
    rounds[request] = []
    for (let r = 0; r < C.sliceRounds; r++) rounds[request].push(await slice(r, C.slice))
  }
  return rounds
}

/**
 * Starts servers at once, each `[name, start, bare]`: a bare one is sent BASELINE_BODY; a
 * sandbox, the set-up's cards (cardsReady), its tenant's card issuance put an hour off first
 * (`PUT /__sandbox/delays`): otherwise the cards of one server's slice come due 5 s later,
 * during another's, and a real-clock server's ticker issues them there, on the same core. What
 * the real clock costs a request (whether anything has fallen due) is measured all the same.
 */
function startSideBySide(starts) {
  return Promise.all(
    starts.map(async ([name, start, bare]) => {
      const server = await start()
      if (bare) return { name, server, body: BASELINE_BODY }
      await call(server.url, 'PUT', '/__sandbox/delays', { card_issuing: '1h' })
      return { name, server, body: await cardsReady(server.url) }
    }),
  )
}

/** The servers sideBySide loads at one connection too. */
const ONE_CONNECTION = ['hono', 'sandbox', 'hono_sqlite']

/**
 * Bare Hono, the sandbox with default flags, with `--clock manual` and with `--journal off`, and
 * bare Hono running a create's SQL (bench/baselines/hono-sqlite.mjs), side by side (inTurn):
 * each load at 50 connections on all five, at one connection on Hono, the sandbox and the SQL
 * floor. Each ratio is the median of its rounds' ratios, with their spread; each figure
 * (latency, p99) is the one of the round whose ratio is the median.
 */
async function sideBySide() {
  const servers = await startSideBySide([
    ['hono', () => baseline('hono'), true],
    ['sandbox', () => sandbox()],
    ['manual_clock', () => sandbox('--clock', 'manual')],
    ['journal_off', () => sandbox('--journal', 'off')],
    // the floor of a create on this stack: bare Hono running the create's SQL alone
    ['hono_sqlite', () => baseline('hono-sqlite'), true],
  ])
  const ours = servers.find((s) => s.name === 'sandbox').server
  const figures = { rss_idle_mb: round(rss(ours.child.pid), 1) }
  let rounds
  try {
    rounds = await inTurn(servers, LOADS, { only: (name) => ONE_CONNECTION.includes(name) })
    figures.rss_peak_mb = round(rss(ours.child.pid, 'VmHWM'), 1)
  } finally {
    servers.forEach(({ server }) => server.stop())
  }

  const spread = ({ ratio, min, max }) => ({ ratio, min, max })
  figures.spreads = {}
  for (const request of ['get_cards', 'create_card']) {
    const toHono = medianRound(rounds[request], (m) => m.sandbox.rps / m.hono.rps)
    figures[`sandbox_${request}`] = toHono.round.sandbox
    figures[`hono_${request}`] = toHono.round.hono
    figures[`${request}_to_hono`] = toHono.ratio
    const single = medianRound(rounds[`${request}_1`], (m) => m.sandbox.mean / m.hono.mean)
    figures[`sandbox_${request}_1`] = single.round.sandbox
    figures[`hono_${request}_1`] = single.round.hono
    figures[`${request}_1_mean_to_hono`] = single.ratio
    const spreads = {
      to_hono: spread(toHono),
      one_connection_mean_to_hono: spread(single),
      real_to_manual: spread(
        medianRound(rounds[request], (m) => m.sandbox.rps / m.manual_clock.rps),
      ),
      journal_off_to_on: spread(
        medianRound(rounds[request], (m) => m.journal_off.rps / m.sandbox.rps),
      ),
    }
    if (request === 'create_card') {
      // what the create's SQL alone costs on bare Hono: the floor of the sandbox's ratios
      spreads.sql_floor_to_hono = spread(
        medianRound(rounds[request], (m) => m.hono_sqlite.rps / m.hono.rps),
      )
      spreads.sql_floor_one_connection_mean_to_hono = spread(
        medianRound(rounds[`${request}_1`], (m) => m.hono_sqlite.mean / m.hono.mean),
      )
      figures.create_card_sql_floor_to_hono = spreads.sql_floor_to_hono.ratio
      figures.create_card_1_sql_floor_mean_to_hono =
        spreads.sql_floor_one_connection_mean_to_hono.ratio
    }
    figures.spreads[request] = spreads
    figures[`${request}_real_to_manual`] = spreads.real_to_manual.ratio
    figures[`${request}_journal_off_to_on`] = spreads.journal_off_to_on.ratio
  }
  // each load's rounds, as requests/s and CPU µs a request by server
  figures.rounds = roundFigures(rounds)
  return figures
}

/** inTurn's rounds with each server's requests/s and CPU µs a request only. */
const roundFigures = (rounds) =>
  Object.fromEntries(
    Object.entries(rounds).map(([request, measured]) => [
      request,
      measured.map((m) =>
        Object.fromEntries(
          Object.entries(m).map(([name, f]) => [name, { rps: f.rps, cpu_us: f.cpu_us }]),
        ),
      ),
    ]),
  )

/**
 * Each row of the table: what is measured, its value from a run's figures (the previous run's
 * too; a row it lacks shows —), the target and whether it is met.
 */
const ratio = (a, b) => round(a / b, 2)
/** The rounds' least and greatest ratio, GET / POST, where a run has them (sideBySide). */
const spread = (f, which) => {
  if (!f.spreads) return ''
  const [get, post] = [f.spreads.get_cards[which], f.spreads.create_card[which]]
  return ` (rounds ${get.min}–${get.max} / ${post.min}–${post.max})`
}
const spreadOne = (f, request, which) => {
  const one = f.spreads?.[request][which]
  return one ? `, rounds ${one.min}–${one.max}` : ''
}
/** Beside a create's ratio: bare Hono's running the create's SQL alone, where a run has it. */
const sqlFloor = (floor) =>
  floor === undefined ? '' : `; bare Hono with the create's SQL alone: ${floor}×`
const TABLE = [
  {
    what: (c) => `cold start, median of ${c.starts}`,
    value: (f) =>
      f.cold_start_hono_ms === undefined
        ? `${f.cold_start_ms} ms`
        : `${f.cold_start_ms} ms (bare Hono ${f.cold_start_hono_ms}, node:http ${f.cold_start_node_http_ms})`,
    target: '≤ 250 ms',
    met: (f) => f.cold_start_ms <= 250,
  },
  {
    what: () => 'GET /v1/cards, 50 connections',
    value: (f) =>
      `${f.sandbox_get_cards.rps} rps, ${f.get_cards_to_hono ?? ratio(f.sandbox_get_cards.rps, f.hono_get_cards.rps)}× Hono (${f.hono_get_cards.rps}; node:http ${f.node_http_get_cards.rps}${spreadOne(f, 'get_cards', 'to_hono')})`,
    target: '≥ 0.6× Hono',
    met: (f) => f.get_cards_to_hono >= 0.6,
  },
  {
    what: () => 'GET /v1/cards p50 / p99',
    value: (f) =>
      `${f.sandbox_get_cards.p50} / ${f.sandbox_get_cards.p99} ms (Hono ${f.hono_get_cards.p50} / ${f.hono_get_cards.p99})`,
    target: 'p99 ≤ 10 ms',
    met: (f) => f.sandbox_get_cards.p99 <= 10,
  },
  {
    what: () => 'POST /v1/cards/create, 50 connections',
    value: (f) =>
      `${f.sandbox_create_card.rps} rps, ${f.create_card_to_hono ?? ratio(f.sandbox_create_card.rps, f.hono_create_card.rps)}× Hono (${f.hono_create_card.rps}; node:http ${f.node_http_create_card.rps}${spreadOne(f, 'create_card', 'to_hono')})${sqlFloor(f.create_card_sql_floor_to_hono)}`,
    target: '≥ 0.4× Hono',
    met: (f) => f.create_card_to_hono >= 0.4,
  },
  {
    what: () => 'POST /v1/cards/create p50 / p99',
    value: (f) =>
      `${f.sandbox_create_card.p50} / ${f.sandbox_create_card.p99} ms (Hono ${f.hono_create_card.p50} / ${f.hono_create_card.p99})`,
    target: 'p99 ≤ 10 ms',
    met: (f) => f.sandbox_create_card.p99 <= 10,
  },
  {
    what: () => 'GET /v1/cards, one connection, mean latency',
    value: (f) =>
      `${f.sandbox_get_cards_1.mean} ms, ${f.get_cards_1_mean_to_hono}× Hono's (${f.hono_get_cards_1.mean}${spreadOne(f, 'get_cards', 'one_connection_mean_to_hono')})`,
    target: '≤ 1.5× Hono',
    met: (f) => f.get_cards_1_mean_to_hono <= 1.5,
  },
  {
    what: () => 'POST /v1/cards/create, one connection, mean latency',
    value: (f) =>
      `${f.sandbox_create_card_1.mean} ms, ${f.create_card_1_mean_to_hono}× Hono's (${f.hono_create_card_1.mean}${spreadOne(f, 'create_card', 'one_connection_mean_to_hono')})${sqlFloor(f.create_card_1_sql_floor_mean_to_hono)}`,
    target: '≤ 2× Hono',
    met: (f) => f.create_card_1_mean_to_hono <= 2,
  },
  {
    what: () => 'default real clock ÷ --clock manual, rps GET / POST',
    value: (f) =>
      `${f.get_cards_real_to_manual}× / ${f.create_card_real_to_manual}×${spread(f, 'real_to_manual')}`,
    target: '≥ 0.95×',
    met: (f) => f.get_cards_real_to_manual >= 0.95 && f.create_card_real_to_manual >= 0.95,
  },
  {
    what: () => '--journal off ÷ on, rps GET / POST',
    value: (f) =>
      `${f.get_cards_journal_off_to_on}× / ${f.create_card_journal_off_to_on}×${spread(f, 'journal_off_to_on')}`,
    target: '≤ 1.10×',
    met: (f) => f.get_cards_journal_off_to_on <= 1.1 && f.create_card_journal_off_to_on <= 1.1,
  },
  {
    what: () => 'reset, p50 / p99',
    value: (f) => `${f.reset.p50} / ${f.reset.p99} ms (${f.reset.rows} rows)`,
    target: 'p99 ≤ 5 ms',
    met: (f) => f.reset.p99 <= 5,
  },
  {
    what: () => 'snapshot restore, p50 / p99, and p50 ÷ reset p50',
    value: (f) =>
      f.restore
        ? `${f.restore.p50} / ${f.restore.p99} ms (${f.restore.rows} rows), ${f.restore.p50_to_reset}× reset`
        : 'not measured',
    target: 'p99 ≤ 10 ms',
    met: (f) => f.restore !== undefined && f.restore.p99 <= 10,
  },
  {
    what: (c) => `list p50 at ${c.listRows[0]} / ${c.listRows[1]} rows`,
    value: (f) => Object.values(f.list).join(' / ') + ' ms',
    target: '≤ 1.5× growth',
    met: (f) => {
      const [small, large] = Object.values(f.list)
      return large <= 1.5 * Math.max(small, 1)
    },
  },
  {
    what: () => 'clock advance running due transitions',
    value: (f) => `${f.due_transitions.ms} ms (${f.due_transitions.count})`,
    target: '≤ 1 s',
    met: (f) => f.due_transitions.ms <= 1000,
  },
  {
    what: () => 'clock advance issuing as many cards, each with its webhook event',
    value: (f) => `${f.due_issuances.ms} ms (${f.due_issuances.count})`,
    target: '≤ 1 s',
    met: (f) => f.due_issuances.ms <= 1000,
  },
  {
    what: () => 'run until idle over the same jobs at 100 instants, and ÷ reset p50',
    value: (f) =>
      f.run_due
        ? `${f.run_due.ms} ms (${f.run_due.count}), ${f.run_due.to_reset}× reset`
        : 'not measured',
    target: '≤ 1 s',
    met: (f) => f.run_due !== undefined && f.run_due.ms <= 1000,
  },
  {
    what: () => 'webhooks delivered',
    value: (f) => `${f.webhooks.ms} ms, ${f.webhooks.lost} lost (${f.webhooks.count})`,
    target: '≤ 2 s, none lost',
    met: (f) => f.webhooks.ms <= 2000 && f.webhooks.lost === 0,
  },
  {
    what: () => 'RSS idle / peak under load',
    value: (f) => `${f.rss_idle_mb} / ${f.rss_peak_mb} MB`,
    target: '≤ 100 / 200 MB',
    met: (f) => f.rss_idle_mb <= 100 && f.rss_peak_mb <= 200,
  },
]

/**
 * --profile: the stages of the request path (src/server/app.ts) switched off one at a time, all on and
 * all off, and bare Hono, all side by side (inTurn); a stage's cost is the server's CPU time per
 * request it adds (with it, less without), the median of the rounds' differences. Then a CPU
 * profile of the sandbox with every stage on, under each load, as µs per request by function
 * (self time).
 */
async function profile() {
  const STAGES = ['hostCheck', 'journal', 'webhookKick', 'dueWork', 'scenarios']
  const off = (stage) => (stage === 'journal' ? { journal: false } : { stages: { [stage]: false } })
  const configs = [
    ['all stages', {}],
    ...STAGES.map((stage) => [`${stage} off`, off(stage)]),
    [
      'all of these off',
      {
        journal: false,
        stages: Object.fromEntries(STAGES.filter((s) => s !== 'journal').map((s) => [s, false])),
      },
    ],
  ]
  const loadBefore = uptime()
  // side by side, at 50 connections (inTurn)
  const servers = await startSideBySide([
    ['bare Hono', () => baseline('hono'), true],
    ...configs.map(([name, options]) => [name, () => sandboxWith(options)]),
  ])
  let rounds
  try {
    // the library unbundled (bench/sandbox.mjs) imports and compiles for longer at its first
    // creates: CPU a create fell from 400–770 µs to 200 over the first three rounds after 1 s
    rounds = await inTurn(
      servers,
      LOADS.filter((l) => l.connections > 1),
      { warmSeconds: SMOKE ? C.warmSlice : 4 },
    )
  } finally {
    servers.forEach(({ server }) => server.stop())
  }
  const stageCosts = {}
  for (const [name] of [...configs, ['bare Hono']]) {
    stageCosts[name] = {}
    for (const request of ['get_cards', 'create_card']) {
      const of = (m) => m[name]
      // the server's CPU time per request, and what the configuration saves against every
      // stage on (medians over the rounds)
      stageCosts[name][request] = {
        rps: median(rounds[request].map((m) => of(m).rps)),
        cpu_us: median(rounds[request].map((m) => of(m).cpu_us)),
        saves_us: round(
          median(rounds[request].map((m) => m['all stages'].cpu_us - of(m).cpu_us)),
          1,
        ),
      }
    }
  }

  // the two requests profiled, each loaded with the body of the set-up's cards on POST
  const PROFILED = [
    ['get_cards', 'GET', '/v1/cards'],
    ['create_card', 'POST', '/v1/cards/create'],
  ]
  const loadOf = (s, method, path, body) =>
    load(s, method, path, method === 'POST' ? body : undefined)

  // where the time of a request goes, every stage on: one server per load, under --cpu-prof
  const functions = {}
  for (const [request, method, path] of PROFILED) {
    const dir = mkdtempSync(join(tmpdir(), 'card-sandbox-profile-'))
    const s = await sandboxWith({}, ['--cpu-prof', '--cpu-prof-dir', dir])
    const body = await cardsReady(s.url)
    const result = await loadOf(s, method, path, body)
    await s.interrupt()
    const file = readdirSync(dir).find((f) => f.endsWith('.cpuprofile'))
    functions[request] = file
      ? selfTimes(JSON.parse(readFileSync(join(dir, file), 'utf8')), result.requests + SETUP_CALLS)
      : []
    rmSync(dir, { recursive: true, force: true })
  }

  // where it goes by place (the kernel, SQLite, V8…), across the server's threads, by perf; on a
  // manual clock: over a load after the warm-up one, real-clock cards would come due meanwhile
  const places = perfWorks() ? {} : { unavailable: 'perf is not installed or may not sample here' }
  if (!places.unavailable)
    for (const [request, method, path] of PROFILED) {
      const s = await sandboxWith({ clock: 'manual' }, ['--perf-basic-prof'])
      const body = await cardsReady(s.url)
      await loadOf(s, method, path, body) // V8 optimises first
      let result
      const shares = await samplePlaces(s.child.pid, async () => {
        result = await loadOf(s, method, path, body)
      })
      s.stop()
      places[request] = [...shares]
        .map(([place, share]) => ({ place, us: round(share * result.cpu_us, 1) }))
        .sort((a, b) => b.us - a.us)
    }

  const report = {
    date: new Date().toISOString(),
    machine,
    pinning,
    load: { before: loadBefore, after: uptime() },
    slice_rounds: C.sliceRounds,
    slice_seconds: C.slice,
    smoke: SMOKE,
    stages: stageCosts,
    // each load's rounds, as requests/s and CPU µs a request by configuration
    rounds: roundFigures(rounds),
    functions,
    places,
  }
  writeFileSync(OUT, JSON.stringify(report, null, 2) + '\n')
  console.log(
    `card-sandbox bench --profile — ${report.date} — ${machine} — ${pinning} — load ${loadBefore} → ${report.load.after}` +
      (SMOKE ? ' — SMOKE (tiny, not figures)' : ''),
  )
  console.log(
    '| configuration | GET rps | GET CPU µs/request | saves | POST rps | POST CPU µs/request | saves |',
  )
  console.log('|---|---|---|---|---|---|---|')
  for (const [name, cost] of Object.entries(stageCosts)) {
    const cells = ['get_cards', 'create_card'].flatMap((r) => [
      cost[r].rps,
      cost[r].cpu_us,
      name === 'all stages' ? '' : `${cost[r].saves_us} µs`,
    ])
    console.log(`| ${name} | ${cells.join(' | ')} |`)
  }
  for (const [request, rows] of Object.entries(functions)) {
    console.log(
      `\nwhere a ${request} request's time goes (self time, all stages on, µs per request):`,
    )
    for (const { fn, us: t } of rows.slice(0, 25)) console.log(`${String(t).padStart(8)}  ${fn}`)
  }
  if (places.unavailable) console.log(`\nwhere by place: not measured (${places.unavailable})`)
  else
    for (const request of ['get_cards', 'create_card']) {
      console.log(`\nwhere a ${request} request's CPU time goes by place (perf, µs per request):`)
      for (const { place, us } of places[request])
        console.log(`${String(us).padStart(8)}  ${place}`)
    }
  console.log(`written to ${OUT}`)
}

/** Self time per function of a V8 CPU profile, in µs per request served, largest first. */
function selfTimes(cpuProfile, requests) {
  const time = new Map()
  cpuProfile.samples.forEach((id, i) =>
    time.set(id, (time.get(id) ?? 0) + (cpuProfile.timeDeltas[i] ?? 0)),
  )
  const byFunction = new Map()
  for (const node of cpuProfile.nodes) {
    const { functionName, url, lineNumber } = node.callFrame
    const where = url ? `${url.replace(`file://${ROOT}/`, '')}:${lineNumber + 1}` : ''
    const fn = `${functionName || '(anonymous)'} ${where}`.trim()
    byFunction.set(fn, (byFunction.get(fn) ?? 0) + (time.get(node.id) ?? 0))
  }
  return [...byFunction]
    .filter(([fn]) => fn !== '(idle)')
    .map(([fn, t]) => ({ fn, us: round(t / requests, 2) }))
    .sort((a, b) => b.us - a.us)
}

/** The PostgreSQL the team part runs on ; without one it is left out. */
const PG_URL = process.env.CARD_SANDBOX_BENCH_PG ?? process.env.CARD_SANDBOX_TEST_PG
const REPLICA_COUNTS = [1, 2, 3]
/** A multiple of every replica count: each replica gets the same share of connections. */
const TEAM_CONNECTIONS = 48
/** The tenant whose GETs are timed while another advances its clock. */
const OTHER_TOKEN = 'bench-other'
const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms))

let admin
/** A client of PG_URL for the bench's own questions, opened once. */
async function adminClient() {
  if (!admin) {
    const { default: pg } = await import('pg')
    admin = new pg.Client({ connectionString: PG_URL })
    await admin.connect()
  }
  return admin
}

const schemas = []
/**
 * A URL of PG_URL on a schema of its own (the sandbox makes it), dropped when the run ends; its
 * connections carry the schema's name as application_name, for backendCpu.
 */
function pgSchema() {
  const name = `card_sandbox_bench_${process.pid}_${schemas.length}`
  schemas.push(name)
  const url = new URL(PG_URL)
  url.searchParams.set('options', `-c search_path=${name}`)
  url.searchParams.set('application_name', name)
  return { name, url: url.toString() }
}
async function dropSchemas() {
  const client = await adminClient()
  for (const name of schemas.splice(0)) await client.query(`DROP SCHEMA IF EXISTS ${name} CASCADE`)
  const version = (await client.query('SHOW server_version')).rows[0].server_version
  await client.end()
  admin = undefined
  return version
}

/** The CPU time used so far by the PostgreSQL backends of `application`, in µs by pid. */
async function backendCpu(application) {
  const { rows } = await (
    await adminClient()
  ).query('SELECT pid FROM pg_stat_activity WHERE application_name = $1', [application])
  const cpu = new Map()
  for (const { pid } of rows)
    try {
      cpu.set(pid, cpuMicros(pid))
    } catch {
      // the backend ended in between
    }
  return cpu
}

/**
 * `count` replicas of the built command on one new PostgreSQL schema, started one by one, with
 * `flags`; each through its own of `relays` (bench/pg-wire-relay.mjs) when they are given.
 */
async function replicas(count, flags = [], relays, stages) {
  const { name, url } = pgSchema()
  const servers = []
  for (let i = 0; i < count; i++) {
    const db = relays ? relays[i].urlOf(url) : url
    // bench-only switches: the built library (bench/sandbox.mjs) rather than the command
    servers.push(await (stages ? sandboxWith({ db, stages }) : sandbox('--db', db, ...flags)))
  }
  return {
    url: servers[0].url,
    servers,
    application: name,
    stop: () => servers.forEach((s) => s.stop()),
  }
}

/**
 * What `count` replicas on `--clock manual` send PostgreSQL, at the wire (each replica through a
 * relay of its own between it and the server): statements (Query + Execute messages) and round
 * trips (a client sending again after a ReadyForQuery) of one GET /v1/cards and of one POST
 * /v1/cards/create, once every replica has answered each twice (the count does not depend on the
 * cards listed), each the least of C.wireTries requests sent to the replicas in turn, each just
 * after a tick of the replica it is sent to (its own tick can only add to the request's window,
 * the others' are not counted); and the replicas' statements a second, all idle.
 */
async function wireCosts(count) {
  const relays = await Promise.all(Array.from({ length: count }, () => startPgWireRelay(PG_URL)))
  const group = await replicas(count, ['--clock', 'manual'], relays)
  try {
    const body = await createCardBody(group.url)
    for (const { url } of group.servers)
      for (let i = 0; i < 2; i++) {
        await call(url, 'GET', '/v1/cards')
        await call(url, 'POST', '/v1/cards/create', body)
      }
    const least = async (method, path, body) => {
      const tries = []
      for (let i = 0; i < C.wireTries; i++) {
        const relay = relays[i % count]
        await relay.afterTraffic(15)
        relay.reset()
        await call(group.servers[i % count].url, method, path, body)
        tries.push(relay.counts())
      }
      return {
        statements: Math.min(...tries.map((t) => t.statements)),
        round_trips: Math.min(...tries.map((t) => t.roundTrips)),
      }
    }
    const figures = {
      get_cards: await least('GET', '/v1/cards'),
      create_card: await least('POST', '/v1/cards/create', body),
    }
    relays.forEach((relay) => relay.reset())
    const started = performance.now()
    await sleep(C.idleMs)
    const seconds = (performance.now() - started) / 1000
    const statements = relays.reduce((sum, relay) => sum + relay.counts().statements, 0)
    figures.idle_statements_per_s = round(statements / seconds, 1)
    return figures
  } finally {
    group.stop()
    await Promise.all(relays.map((relay) => relay.close()))
  }
}

/**
 * `due` cards created through `servers` in turn (their issuing falls due 5 s later), then one
 * `--clock manual` advance on the first that runs them all: ms per due job. With `probe`,
 * another tenant sends GET /v1/cards to the same server one after another meanwhile: the
 * slowest of those answers.
 */
async function advanceCost(servers, body, due, probe = false) {
  // ten at a time: the set-up needs no more of the shared server's connections
  await many(
    due,
    (i) => call(servers[i % servers.length].url, 'POST', '/v1/cards/create', body),
    10,
  )
  const { url } = servers[0]
  let advancing = true
  let worst = 0
  if (probe) await call(url, 'GET', '/v1/cards', undefined, OTHER_TOKEN)
  const probing = (async () => {
    while (probe && advancing) {
      const started = performance.now()
      await call(url, 'GET', '/v1/cards', undefined, OTHER_TOKEN)
      worst = Math.max(worst, performance.now() - started)
    }
  })()
  const started = performance.now()
  const advanced = await call(url, 'POST', '/__sandbox/clock/advance', { by: '10s' })
  const ms = performance.now() - started
  advancing = false
  await probing
  const jobs = advanced.data.transitions_run
  return {
    jobs,
    ms: round(ms, 1),
    ms_per_job: round(ms / Math.max(1, jobs), 3),
    ...(probe && { other_tenant_worst_get_ms: round(worst, 1) }),
  }
}

/**
 * The team sandbox: GET /v1/cards and POST /v1/cards/create at 48 connections spread
 * over 1, 2 and 3 replicas on PostgreSQL, interleaved over the rounds with one SQLite process
 * (default flags); each ratio to SQLite's rps is the median of the rounds', and each CPU time a
 * request (the server processes', and PostgreSQL's backends' serving them) the median of the
 * rounds' too. The replicas share the servers' core with one another; PostgreSQL runs where the
 * system puts it. Then what does not move with the machine (wireCosts), the cost of due work
 * (advanceCost), and from the CPU times the sizing: requests a second one core serves.
 */
async function team() {
  const teamLoads = async (server, body) => ({
    get_cards: await load(server, 'GET', '/v1/cards', undefined, TEAM_CONNECTIONS),
    create_card: await load(server, 'POST', '/v1/cards/create', body, TEAM_CONNECTIONS),
  })
  const rounds = []
  for (let r = 0; r < C.rounds; r++) {
    const measured = {}
    const s = await sandbox()
    measured.sqlite = await teamLoads(s, await cardsReady(s.url))
    s.stop()
    for (const count of REPLICA_COUNTS) {
      const group = await replicas(count)
      measured[`pg_${count}`] = await teamLoads(group, await cardsReady(group.url))
      group.stop()
      // the same GETs with the replicas' read cache off (a bench-only switch): every list is read
      // from PostgreSQL, as on a cluster where something commits between any two requests
      const reading = await replicas(count, [], undefined, { readCache: false })
      await cardsReady(reading.url)
      measured[`pg_${count}`].get_cards_read = await load(
        reading,
        'GET',
        '/v1/cards',
        undefined,
        TEAM_CONNECTIONS,
      )
      reading.stop()
    }
    rounds.push(measured)
  }
  const figures = { connections: TEAM_CONNECTIONS }
  const medianOf = (name, request, field) => median(rounds.map((m) => m[name][request][field]))
  for (const request of ['get_cards', 'create_card', 'get_cards_read']) {
    // SQLite's GETs are the ratio's for the GETs read with the replicas' cache off too
    const sqliteRequest = request === 'get_cards_read' ? 'get_cards' : request
    for (const count of REPLICA_COUNTS) {
      const name = `pg_${count}`
      const { ratio, round: median } = medianRound(
        rounds,
        (m) => m[name][request].rps / m.sqlite[sqliteRequest].rps,
      )
      figures[`${name}_${request}`] = {
        ...median[name][request],
        to_sqlite: ratio,
        cpu_us: medianOf(name, request, 'cpu_us'),
        pg_cpu_us: medianOf(name, request, 'pg_cpu_us'),
      }
      if (request === sqliteRequest) figures[`sqlite_${request}_${count}`] = median.sqlite[request]
    }
    if (request === sqliteRequest)
      figures[`sqlite_${request}_cpu_us`] = medianOf('sqlite', request, 'cpu_us')
  }
  // requests a second one core serves, by the CPU time a request of one replica (none where
  // no CPU time was seen: /proc counts it in ticks of 10 ms, a smoke run may see none)
  const perCore = (us) => (us > 0 ? Math.round(1e6 / us) : null)
  figures.sizing = Object.fromEntries(
    ['get_cards', 'create_card'].map((request) => {
      const { cpu_us, pg_cpu_us } = figures[`pg_1_${request}`]
      return [
        request,
        {
          replica_core_rps: perCore(cpu_us),
          pg_core_rps: perCore(pg_cpu_us),
          sqlite_core_rps: perCore(figures[`sqlite_${request}_cpu_us`]),
        },
      ]
    }),
  )

  figures.wire = {}
  for (const count of REPLICA_COUNTS) figures.wire[`pg_${count}`] = await wireCosts(count)
  figures.due_under_load = await dueUnderLoad()

  figures.due = {}
  {
    const s = await sandbox('--clock', 'manual')
    const body = await createCardBody(s.url)
    figures.due.sqlite = await advanceCost([s], body, C.teamDue)
    figures.due.sqlite_other_tenant = await advanceCost([s], body, C.teamSqliteAdvance, true)
    s.stop()
  }
  for (const count of REPLICA_COUNTS) {
    const group = await replicas(count, ['--clock', 'manual'])
    const body = await createCardBody(group.url)
    figures.due[`pg_${count}`] = await advanceCost(group.servers, body, C.teamDue)
    if (count === 1)
      figures.due.pg_1_other_tenant = await advanceCost(group.servers, body, C.teamPgAdvance, true)
    group.stop()
  }
  figures.postgres = await dropSchemas()
  return figures
}

/**
 * POST /v1/cards/create at 50 connections for C.dueLoadSeconds on one SQLite process with the
 * defaults (real clock; a card is issued 5 s after its creation, so the first cards' issuings
 * fall due under the load, and a request first runs what fell due before it), beside bare
 * Hono's creates in the same rounds: each one's p99 and p99.9, and the sandbox's p99 ÷ Hono's.
 */
async function dueUnderLoad() {
  const rounds = []
  for (let r = 0; r < C.rounds; r++) {
    const measured = {}
    for (const [name, start, body] of [
      ['hono', () => baseline('hono'), () => BASELINE_BODY],
      ['sandbox', () => sandbox(), (server) => createCardBody(server.url)],
    ]) {
      const server = await start()
      const sent = await body(server)
      measured[name] = await load(
        server,
        'POST',
        '/v1/cards/create',
        sent,
        CONNECTIONS,
        C.dueLoadSeconds,
      )
      server.stop()
    }
    rounds.push(measured)
  }
  const { ratio, round: median } = medianRound(
    rounds,
    (m) => m.sandbox.p99 / Math.max(1, m.hono.p99),
  )
  const latency = ({ rps, p50, p99, p999, max, non2xx }) => ({ rps, p50, p99, p999, max, non2xx })
  return {
    seconds: C.dueLoadSeconds,
    sandbox: latency(median.sandbox),
    hono: latency(median.hono),
    p99_to_hono: ratio,
  }
}

function printTeam(team) {
  console.log(`\nteam sandbox on PostgreSQL ${team.postgres}, ${team.connections} connections:`)
  console.log('| replicas | GET rps (÷ SQLite) | GET p99 | POST rps (÷ SQLite) | POST p99 |')
  console.log('|---|---|---|---|---|')
  for (const count of REPLICA_COUNTS) {
    const [get, post] = ['get_cards', 'create_card'].map((r) => team[`pg_${count}_${r}`])
    console.log(
      `| ${count} | ${get.rps} (${get.to_sqlite}×) | ${get.p99} ms | ${post.rps} (${post.to_sqlite}×) | ${post.p99} ms |`,
    )
  }
  const { due, wire, sizing } = team
  console.log(
    `\n| store | statements / round trips a GET | a create | idle statements/s | ms a due job (${due.sqlite.jobs}) | CPU µs a GET: server / PostgreSQL | a create: server / PostgreSQL |`,
  )
  console.log('|---|---|---|---|---|---|---|')
  const cpu = (name) =>
    ['get_cards', 'create_card', 'get_cards_read'].map((r) => {
      const f = team[`${name}_${r}`]
      return `${f.cpu_us} / ${f.pg_cpu_us}`
    })
  console.log(
    `| SQLite, 1 process | — | — | — | ${due.sqlite.ms_per_job} | ${team.sqlite_get_cards_cpu_us} / — | ${team.sqlite_create_card_cpu_us} / — |`,
  )
  for (const count of REPLICA_COUNTS) {
    const w = wire[`pg_${count}`]
    console.log(
      `| PostgreSQL, ${count} replica${count > 1 ? 's' : ''} | ${w.get_cards.statements} / ${w.get_cards.round_trips} | ${w.create_card.statements} / ${w.create_card.round_trips} | ${w.idle_statements_per_s} | ${due[`pg_${count}`].ms_per_job} | ${cpu(`pg_${count}`).slice(0, 2).join(' | ')} |`,
    )
  }
  console.log(
    `\nCPU µs a GET with the replicas' read cache off (every list read, as when something commits between any two requests), server / PostgreSQL: ${REPLICA_COUNTS.map((count) => `${count} replica${count > 1 ? 's' : ''} ${cpu(`pg_${count}`)[2]}`).join(', ')}`,
  )
  console.log(
    `another tenant's slowest GET during an advance: SQLite ${due.sqlite_other_tenant.other_tenant_worst_get_ms} ms (${due.sqlite_other_tenant.jobs} jobs), PostgreSQL 1 replica ${due.pg_1_other_tenant.other_tenant_worst_get_ms} ms (${due.pg_1_other_tenant.jobs} jobs)`,
  )
  const { sandbox: s, hono: h, seconds, p99_to_hono } = team.due_under_load
  console.log(
    `creates at ${CONNECTIONS} connections for ${seconds} s on the real clock, cards falling due under the load (p50 / p99 / p99.9 / max): SQLite ${s.p50} / ${s.p99} / ${s.p999} / ${s.max} ms at ${s.rps} rps, bare Hono ${h.p50} / ${h.p99} / ${h.p999} / ${h.max} ms at ${h.rps} rps; p99 ${p99_to_hono}× Hono's`,
  )
  console.log(
    `one core serves, GET / create: a replica ${sizing.get_cards.replica_core_rps} / ${sizing.create_card.replica_core_rps} rps, PostgreSQL's backends ${sizing.get_cards.pg_core_rps} / ${sizing.create_card.pg_core_rps} rps (one SQLite process ${sizing.get_cards.sqlite_core_rps} / ${sizing.create_card.sqlite_core_rps})`,
  )
}

if (process.argv.includes('--advance-probe')) {
  // just the team part's advances (advanceCost): ms per due job, and another tenant's slowest
  // GET during the long advance, on one SQLite process (and one replica, with a PostgreSQL)
  const s = await sandbox('--clock', 'manual')
  const body = await createCardBody(s.url)
  const figures = {
    sqlite: await advanceCost([s], body, C.teamDue),
    sqlite_other_tenant: await advanceCost([s], body, C.teamSqliteAdvance, true),
  }
  s.stop()
  if (PG_URL) {
    const group = await replicas(1, ['--clock', 'manual'])
    const pgBody = await createCardBody(group.url)
    figures.pg_1_other_tenant = await advanceCost(group.servers, pgBody, C.teamPgAdvance, true)
    group.stop()
    await dropSchemas()
  }
  console.log(JSON.stringify(figures, null, 2))
} else if (process.argv.includes('--team')) {
  if (!PG_URL) throw new Error('--team needs CARD_SANDBOX_BENCH_PG (or CARD_SANDBOX_TEST_PG)')
  const before = uptime()
  const figures = await team()
  const load = { before, after: uptime() }
  const report = { date: new Date().toISOString(), machine, pinning, load, smoke: SMOKE, figures }
  writeFileSync(
    option('out', join(ROOT, 'bench/team.json')),
    JSON.stringify(report, null, 2) + '\n',
  )
  console.log(
    `card-sandbox bench --team — ${report.date} — ${machine} — ${pinning} — load ${load.before} → ${load.after}` +
      (SMOKE ? ' — SMOKE (tiny, not figures)' : ''),
  )
  printTeam(figures)
} else if (PROFILE) await profile()
else await bench()
process.exit(0)
