#!/usr/bin/env node
// npm run bench:ab: is this build faster than another? Both servers (and bare Hono with --hono)
// are started once, side by side on one core, and loaded in turn, two seconds each, for ten
// rounds (each round in the other order than the one before). A round's ratio compares loads a
// few seconds apart, so the drift of a shared machine (whole runs of `npm run bench` move by a
// fifth) cancels; the median of the rounds' ratios is the figure, their spread its precision
// (3 to 8 % on the machines of bench/HISTORY.md). It also reports the server's CPU time per
// request, from /proc.
//
// usage: node bench/ab.mjs --against=<another build's dist directory> [--method=GET|POST]
//   [--rounds=10] [--seconds=2] [--options='{"clock":"manual"}'] [--body='{"card_brand":"amex"}']
//   [--against-options='{"clock":"manual","journal":false}'] [--connections=50] [--hono]
//   Copy dist/ aside before a change (`cp -r dist dist-before`), rebuild, then compare. --body
//   merges into the create body (a refused POST, say); --options are the sandbox factory's.
import { spawn, spawnSync } from 'node:child_process'
import { relative, resolve } from 'node:path'
import autocannon from 'autocannon'
import { cpuMicros, listeningUrl, median } from './processes.mjs'
import { BASELINE_BODY, call, cardsReady, TOKEN } from './setup.mjs'

const ROOT = resolve(import.meta.dirname, '..')
const option = (name, fallback) =>
  process.argv.find((a) => a.startsWith(`--${name}=`))?.slice(name.length + 3) ?? fallback
const AGAINST = option('against')
const METHOD = option('method', 'GET').toUpperCase()
const ROUNDS = Number(option('rounds', 10))
const SECONDS = Number(option('seconds', 2))
const CONNECTIONS = Number(option('connections', 50))
const OPTIONS = option('options', '{"clock":"manual"}')
/** The other server's options, when they differ: one build against itself, `--journal off` say. */
const AGAINST_OPTIONS = option('against-options', OPTIONS)
const BODY = JSON.parse(option('body', '{}'))
if (!AGAINST) {
  console.error('usage: node bench/ab.mjs --against=<dist directory> [--method=POST] …')
  process.exit(2)
}

// servers on core 0, the load on core 1, when taskset and two cores are there
const pinned = spawnSync('taskset', ['-c', '0', 'true']).status === 0
const onCore0 = (args) => (pinned ? ['taskset', ['-c', '0', ...args]] : [args[0], args.slice(1)])
if (pinned) spawnSync('taskset', ['-cp', '1', String(process.pid)])

const servers = [
  { name: 'this build', args: ['bench/sandbox.mjs', OPTIONS, 'dist'] },
  {
    name: `${relative(ROOT, resolve(AGAINST))}${AGAINST_OPTIONS === OPTIONS ? '' : ` ${AGAINST_OPTIONS}`}`,
    args: ['bench/sandbox.mjs', AGAINST_OPTIONS, AGAINST],
  },
  ...(process.argv.includes('--hono')
    ? [{ name: 'bare Hono', args: ['bench/baselines/hono.mjs'], bare: true }]
    : []),
]

for (const server of servers) {
  const [command, args] = onCore0([process.execPath, ...server.args])
  server.child = spawn(command, args, { cwd: ROOT, stdio: ['ignore', 'pipe', 'inherit'] })
  server.url = await listeningUrl(server.child)
  if (server.bare) server.body = BASELINE_BODY
  else {
    // as the bench does (run.mjs startSideBySide): cards issued an hour on, so that a real-clock
    // server does not issue its cards during another's slice, on the same core
    await call(server.url, 'PUT', '/__sandbox/delays', { card_issuing: '1h' })
    server.body = { ...(await cardsReady(server.url)), ...BODY }
  }
  server.rps = []
  server.cpu = []
}

const load = (server, seconds) =>
  autocannon({
    url: server.url + (METHOD === 'GET' ? '/v1/cards' : '/v1/cards/create'),
    method: METHOD,
    connections: CONNECTIONS,
    duration: seconds,
    headers: { authorization: `Bearer ${TOKEN}`, 'content-type': 'application/json' },
    body: METHOD === 'POST' ? JSON.stringify(server.body) : undefined,
  })

try {
  for (const server of servers) await load(server, Math.min(1, SECONDS)) // V8 optimises first
  for (let round = 0; round < ROUNDS; round++) {
    for (const server of round % 2 ? [...servers].reverse() : servers) {
      const before = cpuMicros(server.child.pid)
      const result = await load(server, SECONDS)
      server.rps.push(result.requests.average)
      server.cpu.push((cpuMicros(server.child.pid) - before) / Math.max(1, result.requests.total))
    }
  }
} finally {
  for (const server of servers) server.child.kill('SIGKILL')
}

const [ours] = servers
console.log(
  `${METHOD} ${METHOD === 'GET' ? '/v1/cards' : '/v1/cards/create'}, ${ROUNDS} rounds of ${SECONDS} s, ${CONNECTIONS} connection(s), options ${OPTIONS}${pinned ? ', servers on core 0' : ''}`,
)
console.log('| server | requests/s | ÷ this build, median (rounds) | server CPU µs/request |')
console.log('|---|---|---|---|')
for (const server of servers) {
  const ratios = server.rps.map((rps, i) => rps / ours.rps[i])
  console.log(
    `| ${server.name} | ${Math.round(median(server.rps))} | ${median(ratios).toFixed(3)} (${ratios.map((r) => r.toFixed(2)).join(' ')}) | ${median(server.cpu).toFixed(1)} |`,
  )
}
