#!/usr/bin/env node
// npm run bench: card-sandbox against a bare node:http server and a bare Hono app, all started
// as separate processes on loopback, in one run on this machine. Prints a table and writes
// bench/results.json, each figure also as a ratio to the bare Hono baseline. With two or more
// cores the servers run on core 0 and this load generator on core 1 (taskset). Every loop is
// bounded in time and count. `--smoke` runs everything tiny (the test suite uses it).
import autocannon from 'autocannon'
import Database from 'better-sqlite3'
import { spawn, spawnSync } from 'node:child_process'
import { randomUUID } from 'node:crypto'
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { createServer } from 'node:http'
import { availableParallelism, cpus, tmpdir } from 'node:os'
import { join, resolve } from 'node:path'

const ROOT = resolve(import.meta.dirname, '..')
/** The built command, as `npx card-sandbox` runs it (package.json bin). */
const CLI = 'dist/bin/card-sandbox.js'
const SMOKE = process.argv.includes('--smoke')
const OUT =
  process.argv.find((a) => a.startsWith('--out='))?.slice(6) ?? join(ROOT, 'bench/results.json')
const C = SMOKE
  ? {
      duration: 0.2,
      starts: 1,
      resetRows: 20,
      resetRounds: 2,
      listRows: [50, 500],
      due: 100,
      hooks: 20,
    }
  : {
      duration: 5,
      starts: 7,
      resetRows: 1_000,
      resetRounds: 15,
      listRows: [1_000, 100_000],
      due: 10_000,
      hooks: 1_000,
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

function startServer(args) {
  const command = canPin
    ? ['taskset', ['-c', '0', process.execPath, ...args]]
    : [process.execPath, args]
  const child = spawn(command[0], command[1], { cwd: ROOT, stdio: ['ignore', 'pipe', 'inherit'] })
  children.add(child)
  return new Promise((resolveUrl, reject) => {
    let out = ''
    const timer = setTimeout(() => reject(new Error(`no URL after 20 s: ${out}`)), 20_000)
    child.stdout.on('data', (chunk) => {
      out += chunk
      const match = /(http:\/\/127\.0\.0\.1:\d+)/.exec(out)
      if (match) {
        clearTimeout(timer)
        resolveUrl({
          url: match[1],
          child,
          stop: () => (child.kill('SIGKILL'), children.delete(child)),
        })
      }
    })
  })
}
const sandbox = (...flags) =>
  startServer([CLI, '--port', '0', '--log', 'silent', '--clock', 'manual', ...flags])

const TOKEN = 'bench'
async function call(url, method, path, body, token = TOKEN) {
  const res = await fetch(url + path, {
    method,
    headers: {
      Authorization: `Bearer ${token}`,
      ...(body !== undefined && { 'Content-Type': 'application/json' }),
    },
    body: body === undefined ? undefined : JSON.stringify(body),
  })
  const json = await res.json()
  if (res.status !== 200)
    throw new Error(`${method} ${path}: ${res.status} ${JSON.stringify(json)}`)
  return json
}
/** Runs n calls, `width` at a time. */
async function many(n, fn, width = CONNECTIONS) {
  let next = 0
  await Promise.all(
    Array.from({ length: Math.min(width, n) }, async () => {
      while (next < n) await fn(next++)
    }),
  )
}
const identity = (i) => ({
  first_name: 'Awa',
  last_name: 'Diop',
  address: 'Dakar',
  phone: `+22177${String(i).padStart(7, '0')}`,
  id_no: String(i),
  selfie_image: 'https://x.test/s.jpg',
  id_image: 'https://x.test/i.jpg',
})
async function passedUser(url) {
  const user = (await call(url, 'POST', '/v1/card-users/create', identity(0))).data.userCard
    .reference
  await call(url, 'POST', `/__sandbox/card-users/${user}/transition`, { to: 'passed' })
  return user
}
const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor((xs.length - 1) / 2)]
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

async function load(url, method, path, body) {
  const result = await autocannon({
    url: url + path,
    method,
    connections: CONNECTIONS,
    duration: C.duration,
    pipelining: 1,
    headers: { Authorization: `Bearer ${TOKEN}`, 'Content-Type': 'application/json' },
    body: body === undefined ? undefined : JSON.stringify(body),
  })
  return {
    rps: Math.round(result.requests.average),
    p50: result.latency.p50,
    p99: result.latency.p99,
    errors: result.errors + result.timeouts,
    non2xx: result.non2xx,
  }
}

const figures = {}

// 1. cold start: spawn to the first 200 on GET /v1/cards
{
  const times = []
  for (let i = 0; i < C.starts; i++) {
    const started = performance.now()
    const child = spawn(
      ...(canPin
        ? [
            'taskset',
            ['-c', '0', process.execPath, CLI, '--port', String(41_000 + i), '--log', 'silent'],
          ]
        : [process.execPath, [CLI, '--port', String(41_000 + i), '--log', 'silent']]),
      { cwd: ROOT, stdio: 'ignore' },
    )
    children.add(child)
    for (let tries = 0; tries < 2_000; tries++) {
      const ok = await fetch(`http://127.0.0.1:${41_000 + i}/v1/cards`, {
        headers: { Authorization: 'Bearer b' },
      }).then(
        (r) => r.status === 200,
        () => false,
      )
      if (ok) break
      await new Promise((r) => setTimeout(r, 2))
    }
    times.push(performance.now() - started)
    child.kill('SIGKILL')
    children.delete(child)
  }
  figures.cold_start_ms = round(median(times), 1)
}

// 2. requests per second and latency at 50 connections, against the baselines; 6. memory
{
  const s = await sandbox()
  figures.rss_idle_mb = round(rss(s.child.pid), 1)
  const user = await passedUser(s.url)
  for (let i = 0; i < 20; i++)
    await call(s.url, 'POST', '/v1/cards/create', {
      card_user_reference: user,
      card_brand: 'visa',
      card_type: 'virtual',
    })
  const createBody = { card_user_reference: user, card_brand: 'visa', card_type: 'virtual' }
  figures.sandbox_get_cards = await load(s.url, 'GET', '/v1/cards')
  figures.sandbox_create_card = await load(s.url, 'POST', '/v1/cards/create', createBody)
  figures.rss_peak_mb = round(rss(s.child.pid, 'VmHWM'), 1)
  s.stop()
  for (const [name, file] of [
    ['node_http', 'bench/baselines/node-http.mjs'],
    ['hono', 'bench/baselines/hono.mjs'],
  ]) {
    const b = await startServer([file])
    figures[`${name}_get_cards`] = await load(b.url, 'GET', '/v1/cards')
    figures[`${name}_create_card`] = await load(b.url, 'POST', '/v1/cards/create', createBody)
    b.stop()
  }
}

// 3. reset of a tenant holding C.resetRows rows
{
  const s = await sandbox()
  const times = []
  const customer = { full_name: 'A B', phone: '+221770000000' }
  for (let r = 0; r < C.resetRounds; r++) {
    await many(C.resetRows, () =>
      call(s.url, 'POST', '/v1/payments/create', { amount: 100, network: 'wave-sn', customer }),
    )
    const started = performance.now()
    await call(s.url, 'POST', '/__sandbox/reset')
    times.push(performance.now() - started)
  }
  figures.reset = {
    rows: C.resetRows,
    p50: round(median(times)),
    p99: round(percentile(times, 99)),
  }
  s.stop()
}

// 4. list latency as the table grows (rows written straight into the sandbox's WAL database)
{
  const dir = mkdtempSync(join(tmpdir(), 'card-sandbox-bench-'))
  const file = join(dir, 'bench.sqlite')
  const s = await sandbox('--db', file)
  const user = await passedUser(s.url)
  const card = (
    await call(s.url, 'POST', '/v1/cards/create', {
      card_user_reference: user,
      card_brand: 'visa',
      card_type: 'virtual',
    })
  ).data.card.reference
  const db = new Database(file)
  db.pragma('busy_timeout = 5000')
  const tenant = db.prepare('SELECT id FROM tenants WHERE token = ?').get(TOKEN).id
  const insert = db.prepare(
    "INSERT INTO transactions (slug, tenant_id, card_reference, reference, kind, status, amount, created_at, updated_at) VALUES (?, ?, ?, ?, 'recharge', 'success', 1, ?, ?)",
  )
  const fill = db.transaction((from, to) => {
    for (let i = from; i < to; i++)
      insert.run(randomUUID(), tenant, card, `r${i}`, 1_767_225_600_000 + i, 1_767_225_600_000 + i)
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
  const s = await sandbox()
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
  const s = await sandbox('--webhook-url', `http://127.0.0.1:${receiver.address().port}/hooks`)
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

// the table, with ratios to bare Hono, and the targets
const ratio = (a, b) => round(a / b, 2)
const g = figures
const rows = [
  [
    'cold start (median of ' + C.starts + ')',
    `${g.cold_start_ms} ms`,
    '≤ 300 ms',
    g.cold_start_ms <= 300,
  ],
  [
    'GET /v1/cards rps',
    `${g.sandbox_get_cards.rps} (${ratio(g.sandbox_get_cards.rps, g.hono_get_cards.rps)}× Hono, node:http ${g.node_http_get_cards.rps}, Hono ${g.hono_get_cards.rps})`,
    '≥ 0.60× Hono',
    g.sandbox_get_cards.rps >= 0.6 * g.hono_get_cards.rps,
  ],
  [
    'GET /v1/cards p50 / p99',
    `${g.sandbox_get_cards.p50} / ${g.sandbox_get_cards.p99} ms (Hono ${g.hono_get_cards.p50} / ${g.hono_get_cards.p99})`,
    'p99 ≤ 10 ms',
    g.sandbox_get_cards.p99 <= 10,
  ],
  [
    'POST /v1/cards/create rps',
    `${g.sandbox_create_card.rps} (${ratio(g.sandbox_create_card.rps, g.hono_create_card.rps)}× Hono, node:http ${g.node_http_create_card.rps}, Hono ${g.hono_create_card.rps})`,
    '≥ 0.40× Hono',
    g.sandbox_create_card.rps >= 0.4 * g.hono_create_card.rps,
  ],
  [
    'POST /v1/cards/create p50 / p99',
    `${g.sandbox_create_card.p50} / ${g.sandbox_create_card.p99} ms (Hono ${g.hono_create_card.p50} / ${g.hono_create_card.p99})`,
    'p99 ≤ 10 ms',
    g.sandbox_create_card.p99 <= 10,
  ],
  [
    `reset, ${g.reset.rows} rows, p50 / p99`,
    `${g.reset.p50} / ${g.reset.p99} ms`,
    'p99 ≤ 5 ms',
    g.reset.p99 <= 5,
  ],
  [
    `list p50 at ${C.listRows[0]} / ${C.listRows[1]} rows`,
    `${g.list[`p50_at_${C.listRows[0]}`]} / ${g.list[`p50_at_${C.listRows[1]}`]} ms`,
    '≤ 1.5× growth',
    g.list[`p50_at_${C.listRows[1]}`] <= 1.5 * Math.max(g.list[`p50_at_${C.listRows[0]}`], 1),
  ],
  [
    `clock advance, ${g.due_transitions.count} due transitions`,
    `${g.due_transitions.ms} ms`,
    '≤ 1 s',
    g.due_transitions.ms <= 1000,
  ],
  [
    `webhooks, ${g.webhooks.count} delivered`,
    `${g.webhooks.ms} ms, ${g.webhooks.lost} lost`,
    '≤ 2 s, none lost',
    g.webhooks.ms <= 2000 && g.webhooks.lost === 0,
  ],
  [
    'RSS idle / peak under load',
    `${g.rss_idle_mb} / ${g.rss_peak_mb} MB`,
    '≤ 100 / 200 MB',
    g.rss_idle_mb <= 100 && g.rss_peak_mb <= 200,
  ],
]
const machine = `${cpus()[0]?.model ?? 'unknown cpu'}, ${cpus().length} cores, Node ${process.version}`
const report = {
  date: new Date().toISOString(),
  machine,
  pinning,
  smoke: SMOKE,
  figures,
  targets: rows.map(([what, value, target, met]) => ({ what, value, target, met })),
}
writeFileSync(OUT, JSON.stringify(report, null, 2) + '\n')
const table = [
  '| measure | result | target | met |',
  '|---|---|---|---|',
  ...rows.map(
    ([what, value, target, met]) => `| ${what} | ${value} | ${target} | ${met ? 'yes' : 'no'} |`,
  ),
]
console.log(
  `card-sandbox bench — ${report.date} — ${machine} — ${pinning}${SMOKE ? ' — SMOKE (tiny, not figures)' : ''}`,
)
console.log(table.join('\n'))
console.log(`written to ${OUT}`)
process.exit(0)
