/**
 * A smoke run of the benchmark harness (a few seconds, tiny counts): it asserts only that every
 * figure was produced, so the harness does not rot. No timing is asserted: benchmarks are not tests.
 */
import { spawnSync } from 'node:child_process'
import { readFileSync } from 'node:fs'
import { join } from 'node:path'
import { expect, it } from 'vitest'
import { TEST_PG } from './pg.js'
import { tempDir } from './temp-dir.js'

it('produces every figure of npm run bench', () => {
  const dir = tempDir('card-sandbox-bench-')
  const out = join(dir, 'results.json')
  const run = spawnSync(process.execPath, ['bench/run.mjs', '--smoke', `--out=${out}`], {
    cwd: new URL('..', import.meta.url).pathname,
    encoding: 'utf8',
    // with PostgreSQL, the team part starts 18 replicas: about a minute on a busy machine
    timeout: 200_000,
  })
  expect(run.status, run.stderr).toBe(0)
  const report = JSON.parse(readFileSync(out, 'utf8'))
  const f = report.figures
  for (const run of ['sandbox', 'node_http', 'hono']) {
    for (const request of ['get_cards', 'create_card']) {
      expect(f[`${run}_${request}`]).toEqual(
        expect.objectContaining({
          rps: expect.any(Number),
          p50: expect.any(Number),
          p99: expect.any(Number),
        }),
      )
    }
  }
  for (const request of ['get_cards', 'create_card']) {
    expect(f[`${request}_to_hono`]).toEqual(expect.any(Number))
    expect(f[`sandbox_${request}_1`].mean).toEqual(expect.any(Number))
    expect(f[`hono_${request}_1`].mean).toEqual(expect.any(Number))
    expect(f[`${request}_1_mean_to_hono`]).toEqual(expect.any(Number))
    expect(f[`${request}_real_to_manual`]).toEqual(expect.any(Number))
    expect(f[`${request}_journal_off_to_on`]).toEqual(expect.any(Number))
    // the ratios come from the side-by-side slices, each with its rounds' spread
    const spreads = f.spreads[request]
    expect(spreads.to_hono.ratio).toBe(f[`${request}_to_hono`])
    expect(spreads.one_connection_mean_to_hono.ratio).toBe(f[`${request}_1_mean_to_hono`])
    expect(spreads.real_to_manual.ratio).toBe(f[`${request}_real_to_manual`])
    expect(spreads.journal_off_to_on.ratio).toBe(f[`${request}_journal_off_to_on`])
    for (const spread of Object.values(spreads) as {
      ratio: number
      min: number
      max: number
    }[]) {
      expect(spread.min).toBeLessThanOrEqual(spread.ratio)
      expect(spread.max).toBeGreaterThanOrEqual(spread.ratio)
    }
    expect(f.rounds[request]).toHaveLength(1)
    for (const name of ['hono', 'sandbox', 'manual_clock', 'journal_off', 'hono_sqlite'])
      expect(f.rounds[request][0][name].rps).toBeGreaterThan(0)
    expect(Object.keys(f.rounds[`${request}_1`][0]).sort()).toEqual([
      'hono',
      'hono_sqlite',
      'sandbox',
    ])
  }
  // the floor of a create: bare Hono running its SQL alone, beside the sandbox's ratios
  expect(f.spreads.create_card.sql_floor_to_hono.ratio).toBe(f.create_card_sql_floor_to_hono)
  expect(f.spreads.create_card.sql_floor_one_connection_mean_to_hono.ratio).toBe(
    f.create_card_1_sql_floor_mean_to_hono,
  )
  expect(f.create_card_sql_floor_to_hono).toBeGreaterThan(0)
  expect(f.create_card_1_sql_floor_mean_to_hono).toBeGreaterThan(0)
  expect(run.stdout).toMatch(
    /one connection, mean latency.*bare Hono with the create's SQL alone: [\d.]+×/,
  )
  // a cold start, beside bare Hono's and bare node:http's in the same run
  for (const start of ['cold_start_ms', 'cold_start_hono_ms', 'cold_start_node_http_ms'])
    expect(f[start]).toBeGreaterThan(0)
  expect(run.stdout).toMatch(/cold start, median of 1 .*ms \(bare Hono [\d.]+, node:http [\d.]+\)/)
  expect(f.reset).toEqual({
    rows: expect.any(Number),
    p50: expect.any(Number),
    p99: expect.any(Number),
  })
  expect(Object.keys(f.list)).toHaveLength(2)
  expect(f.restore).toEqual({
    rows: expect.any(Number),
    p50: expect.any(Number),
    p99: expect.any(Number),
    p50_to_reset: expect.any(Number),
  })
  expect(f.restore.rows).toBeGreaterThanOrEqual(20)
  expect(f.due_transitions.count).toBe(100)
  expect(f.run_due).toMatchObject({ count: 100, ms: expect.any(Number) })
  expect(f.due_issuances).toMatchObject({ count: 100, ms: expect.any(Number) })
  expect(f.webhooks).toMatchObject({ count: 20, lost: 0 })
  expect(f.rss_idle_mb).toBeGreaterThan(0)
  expect(f.rss_peak_mb).toBeGreaterThan(0)
  // the team sandbox: 1, 2 and 3 replicas on PostgreSQL, when the tests have one
  if (TEST_PG) {
    const team = f.team
    for (const count of [1, 2, 3]) {
      for (const request of ['get_cards', 'create_card', 'get_cards_read'])
        expect(team[`pg_${count}_${request}`]).toEqual(
          expect.objectContaining({
            rps: expect.any(Number),
            to_sqlite: expect.any(Number),
            cpu_us: expect.any(Number),
            pg_cpu_us: expect.any(Number),
          }),
        )
      for (const request of ['get_cards', 'create_card']) {
        // at the wire: a request sends at least one statement, in at least one round trip
        expect(team.wire[`pg_${count}`][request].statements).toBeGreaterThan(0)
        expect(team.wire[`pg_${count}`][request].round_trips).toBeGreaterThan(0)
      }
      expect(team.wire[`pg_${count}`].idle_statements_per_s).toEqual(expect.any(Number))
      expect(team.due[`pg_${count}`]).toMatchObject({ jobs: 20, ms_per_job: expect.any(Number) })
    }
    expect(team.due.sqlite).toMatchObject({ jobs: 20, ms_per_job: expect.any(Number) })
    expect(team.due.sqlite_other_tenant).toMatchObject({
      jobs: 50,
      other_tenant_worst_get_ms: expect.any(Number),
    })
    expect(team.due.pg_1_other_tenant).toMatchObject({
      jobs: 20,
      other_tenant_worst_get_ms: expect.any(Number),
    })
    for (const request of ['get_cards', 'create_card'])
      expect(Object.keys(team.sizing[request]).sort()).toEqual([
        'pg_core_rps',
        'replica_core_rps',
        'sqlite_core_rps',
      ])
    expect(run.stdout).toMatch(/another tenant's slowest GET during an advance: SQLite [\d.]+ ms/)
    expect(run.stdout).toMatch(
      /a GET with the replicas' read cache off .*: 1 replica [\d.]+ \/ [\d.]+/,
    )
    expect(team.due_under_load).toMatchObject({
      seconds: 0.5,
      sandbox: { p99: expect.any(Number), p999: expect.any(Number), non2xx: 0 },
      hono: { p99: expect.any(Number), p999: expect.any(Number) },
      p99_to_hono: expect.any(Number),
    })
    expect(run.stdout).toMatch(/cards falling due under the load .*; p99 [\d.]+× Hono's/)
  } else expect(f.team).toBeUndefined()
  expect(report.targets).toHaveLength(17)
  for (const row of report.targets) expect(row.value).not.toContain('undefined')
}, 230_000)

it('measures each stage of the request path with --profile', () => {
  const dir = tempDir('card-sandbox-bench-')
  const out = join(dir, 'profile.json')
  const run = spawnSync(
    process.execPath,
    ['bench/run.mjs', '--profile', '--smoke', `--out=${out}`],
    { cwd: new URL('..', import.meta.url).pathname, encoding: 'utf8', timeout: 120_000 },
  )
  expect(run.status, run.stderr).toBe(0)
  const report = JSON.parse(readFileSync(out, 'utf8'))
  expect(Object.keys(report.stages)).toEqual([
    'all stages',
    'hostCheck off',
    'journal off',
    'webhookKick off',
    'dueWork off',
    'scenarios off',
    'all of these off',
    'bare Hono',
  ])
  for (const stage of Object.values(report.stages) as any[])
    for (const request of ['get_cards', 'create_card'])
      expect(stage[request]).toEqual({
        rps: expect.any(Number),
        cpu_us: expect.any(Number),
        saves_us: expect.any(Number),
      })
  // every configuration and bare Hono loaded side by side in each round
  for (const request of ['get_cards', 'create_card']) {
    expect(report.rounds[request]).toHaveLength(1)
    expect(Object.keys(report.rounds[request][0]).sort()).toEqual(Object.keys(report.stages).sort())
  }
  for (const request of ['get_cards', 'create_card'])
    expect(report.functions[request].length).toBeGreaterThan(10)
  // by place, where perf runs (bench/perf.mjs); said so where it does not
  if (report.places.unavailable) expect(report.places.unavailable).toMatch(/perf/)
  else
    for (const request of ['get_cards', 'create_card']) {
      const places = report.places[request].map((row: { place: string }) => row.place)
      expect(places).toContain('kernel (system calls, loopback TCP)')
      expect(places).toContain('SQLite and better-sqlite3')
      expect(places.some((place: string) => place.startsWith('JS: ours'))).toBe(true)
    }
}, 150_000)

it('compares two builds side by side with npm run bench:ab', () => {
  // against itself: the harness is what is checked, not a figure
  const run = spawnSync(
    process.execPath,
    ['bench/ab.mjs', '--against=dist', '--method=POST', '--rounds=1', '--seconds=0.2', '--hono'],
    { cwd: new URL('..', import.meta.url).pathname, encoding: 'utf8', timeout: 60_000 },
  )
  expect(run.status, run.stderr).toBe(0)
  const rows = run.stdout
    .split('\n')
    .filter((line) => /^\| (this build|dist|bare Hono) \|/.test(line))
  expect(rows.map((row) => row.split(' | ')[0])).toEqual(['| this build', '| dist', '| bare Hono'])
  for (const row of rows)
    expect(row).toMatch(/^\| [^|]+ \| \d+ \| \d+\.\d{3} \(\d+\.\d\d\) \| \d+\.\d \|$/)
}, 90_000)
