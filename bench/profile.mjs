// `npm run bench -- --profile` (bench/run.mjs): what each stage of the request path costs, and a
// CPU profile of the server under load, as µs per request by function.
import { mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { cardsReady, SETUP_CALLS } from './setup.mjs'
import { perfWorks, samplePlaces } from './perf.mjs'
import { median } from './processes.mjs'
import {
  C,
  LOADS,
  OUT,
  ROOT,
  SMOKE,
  baseline,
  inTurn,
  load,
  machine,
  pinning,
  round,
  roundFigures,
  sandboxWith,
  startSideBySide,
  uptime,
} from './harness.mjs'

/**
 * --profile: the stages of the request path (src/server/app.ts) switched off one at a time, all on and
 * all off, and bare Hono, all side by side (inTurn); a stage's cost is the server's CPU time per
 * request it adds (with it, less without), the median of the rounds' differences. Then a CPU
 * profile of the sandbox with every stage on, under each load, as µs per request by function
 * (self time).
 */
export async function profile() {
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
