// The bench's harness (bench/run.mjs): the run's settings, the servers it starts (on core 0 when
// pinned), the loads it sends, the cold starts, and the side-by-side rounds whose medians the
// figures are.
import autocannon from 'autocannon'
import { spawn, spawnSync } from 'node:child_process'
import { readFileSync } from 'node:fs'
import { availableParallelism, cpus } from 'node:os'
import { join, resolve } from 'node:path'
import { setFlagsFromString } from 'node:v8'
import { runInNewContext } from 'node:vm'
import { BASELINE_BODY, call, cardsReady, TOKEN } from './setup.mjs'
import { cpuMicros, listeningUrl, median } from './processes.mjs'

export const ROOT = resolve(import.meta.dirname, '..')
// This process's own garbage collector (V8 gives new contexts `gc` once the flag is set), for
// settleClient.
setFlagsFromString('--expose-gc')
const collectOwnGarbage = runInNewContext('gc')
/** The built command, as `npx card-sandbox` runs it (package.json bin). */
export const CLI = 'dist/bin/card-sandbox.js'
export const SMOKE = process.argv.includes('--smoke')
export const PROFILE = process.argv.includes('--profile')
export const option = (name, fallback) =>
  process.argv.find((a) => a.startsWith(`--${name}=`))?.slice(name.length + 3) ?? fallback
export const OUT = option('out', join(ROOT, PROFILE ? 'bench/profile.json' : 'bench/results.json'))
/** The run the table compares with: the results.json in the repository, unless named. */
export const PREVIOUS = option('previous', join(ROOT, 'bench/results.json'))
export const C = SMOKE
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
export const CONNECTIONS = 50

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
export const pinning = canPin
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
export const sandbox = (...flags) => startServer([CLI, '--port', '0', '--log', 'silent', ...flags])
/** The built library with the bench-only options of bench/sandbox.mjs (stage switches). */
export const sandboxWith = (options, nodeFlags = []) =>
  startServer([...nodeFlags, 'bench/sandbox.mjs', JSON.stringify(options)])
export const baseline = (name) => startServer([`bench/baselines/${name}.mjs`])

/** Runs n calls, `width` at a time. */
export async function many(n, fn, width = CONNECTIONS) {
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
export async function settleClient(url) {
  collectOwnGarbage()
  await call(url, 'GET', '/__sandbox/health')
}
export const percentile = (xs, p) =>
  [...xs].sort((a, b) => a - b)[Math.min(xs.length - 1, Math.ceil((p / 100) * xs.length) - 1)]
export const round = (x, digits = 2) => Math.round(x * 10 ** digits) / 10 ** digits
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
export async function load(
  server,
  method,
  path,
  body,
  connections = CONNECTIONS,
  seconds = C.duration,
) {
  // a group of replicas (team()): the load spread over them in turn, their CPU time summed
  const servers = server.servers ?? [server]
  const cpuBefore = servers.map((s) => cpuMicros(s.child.pid))
  // replicas on PostgreSQL: the CPU time of the backends serving them too
  const backendsBefore = server.backendCpu && (await server.backendCpu())
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
    for (const [pid, us] of await server.backendCpu()) pgCpu += us - (backendsBefore.get(pid) ?? 0)
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
export function medianRound(rounds, ratioOf) {
  const ratios = rounds.map(ratioOf)
  const middle = median(ratios)
  return {
    ratio: round(middle, 3),
    min: round(Math.min(...ratios), 3),
    max: round(Math.max(...ratios), 3),
    round: rounds[ratios.indexOf(middle)],
  }
}
export const COLD_START_PORT = 31_000
export const uptime = () => readFileSync('/proc/loadavg', 'utf8').split(' ').slice(0, 3).join(' ')
export const machine = `${cpus()[0]?.model ?? 'unknown cpu'}, ${cpus().length} cores, Node ${process.version}`

/** Milliseconds from spawning `args` (pinned as the servers are) to a 200 on GET /v1/cards. */
export async function coldStart(args, port) {
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

/** GET /v1/cards and POST /v1/cards/create at 50 connections, then at one. */
export const LOADS = [
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
export async function inTurn(
  servers,
  loads,
  { only = () => true, warmSeconds = C.warmSlice } = {},
) {
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
export function startSideBySide(starts) {
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
export async function sideBySide() {
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
export const roundFigures = (rounds) =>
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
