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
// `--wire-counts` runs only the team part's counts (a PostgreSQL is needed): the statements and
// round trips of a GET and a create, and the idle statements a second, for 1 to 3 replicas;
// they do not move with the machine, so two builds compare by them exactly.
//
// This file runs the bench and writes its results; bench/harness.mjs starts the servers and sends
// the loads, bench/table.mjs is the table, bench/profile.mjs the --profile run, bench/team.mjs
// the team part.
import autocannon from 'autocannon'
import Database from 'better-sqlite3'
import { randomUUID } from 'node:crypto'
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { createServer } from 'node:http'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { BASELINE_BODY, call, createCardBody, identity, TOKEN } from './setup.mjs'
import { median } from './processes.mjs'
import {
  C,
  CLI,
  COLD_START_PORT,
  OUT,
  PREVIOUS,
  PROFILE,
  ROOT,
  SMOKE,
  baseline,
  coldStart,
  load,
  machine,
  many,
  option,
  percentile,
  pinning,
  round,
  sandbox,
  settleClient,
  sideBySide,
  uptime,
} from './harness.mjs'
import { profile } from './profile.mjs'
import { TABLE } from './table.mjs'
import {
  PG_URL,
  REPLICA_COUNTS,
  advanceCost,
  dropSchemas,
  printTeam,
  replicas,
  team,
  wireCosts,
} from './team.mjs'

export async function bench() {
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

if (process.argv.includes('--wire-counts')) {
  // just what does not move with the machine: the statements and round trips a GET and a create
  // cost on PostgreSQL, and the idle statements a second, for 1, 2 and 3 replicas
  if (!PG_URL)
    throw new Error('--wire-counts needs CARD_SANDBOX_BENCH_PG (or CARD_SANDBOX_TEST_PG)')
  const wire = {}
  for (const count of REPLICA_COUNTS) wire[`pg_${count}`] = await wireCosts(count)
  await dropSchemas()
  console.log(JSON.stringify(wire, null, 2))
} else if (process.argv.includes('--advance-probe')) {
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
