// The team part of the bench (`bench/run.mjs --team`): replicas on PostgreSQL, their statements and
// round trips, their CPU and PostgreSQL's, the clock advances, creates while cards fall due.
import { BASELINE_BODY, call, cardsReady, createCardBody } from './setup.mjs'
import { startPgWireRelay } from './pg-wire-relay.mjs'
import { cpuMicros, median } from './processes.mjs'
import {
  C,
  CONNECTIONS,
  baseline,
  load,
  many,
  medianRound,
  round,
  sandbox,
  sandboxWith,
} from './harness.mjs'

/** The PostgreSQL the team part runs on ; without one it is left out. */
export const PG_URL = process.env.CARD_SANDBOX_BENCH_PG ?? process.env.CARD_SANDBOX_TEST_PG
export const REPLICA_COUNTS = [1, 2, 3]
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
export async function dropSchemas() {
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
export async function replicas(count, flags = [], relays, stages) {
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
    /** The CPU time of the PostgreSQL backends serving them: load() adds it to a request's. */
    backendCpu: () => backendCpu(name),
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
export async function wireCosts(count) {
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
export async function advanceCost(servers, body, due, probe = false) {
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
export async function team() {
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

export function printTeam(team) {
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
