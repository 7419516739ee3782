#!/usr/bin/env node
// A hostile webhook receiver, measured by hand (not a test: RSS is too noisy to assert). Starts
// the built CLI, points a tenant's webhook at a node:http receiver, sends one event it answers
// with a short 200 (the first delivery's own cost: fetch loads, the event log is read), then one
// it answers with a 200 and 300 MB streamed as fast as the socket takes them. Prints the
// sandbox's RSS before that second delivery, its peak during it (VmHWM, reset in between), how
// much of the body the receiver sent before the sandbox closed the connection, and what the
// attempt log kept. Linux only (/proc). `npm run build` first; BODY_MB=… changes the size.
import { readFileSync, writeFileSync } from 'node:fs'
import { spawn } from 'node:child_process'
import { createServer } from 'node:http'
import { join, resolve } from 'node:path'

const ROOT = resolve(import.meta.dirname, '..')
const BODY_BYTES = Number(process.env.BODY_MB ?? 300) * 1024 * 1024
const CHUNK = Buffer.alloc(64 * 1024, 'x')

const memory = (pid) => {
  const status = readFileSync(`/proc/${pid}/status`, 'utf8')
  const kb = (key) => Number(new RegExp(`${key}:\\s+(\\d+) kB`).exec(status)[1])
  return { rss: kb('VmRSS') / 1024, peak: kb('VmHWM') / 1024 }
}

let sent = 0
let closedEarly = null
let received = 0
const receiver = createServer((req, res) => {
  req.resume()
  req.on('end', () => {
    if (++received === 1) return void res.writeHead(200).end('ok')
    res.writeHead(200, { 'Content-Type': 'text/plain' })
    res.on('close', () => (closedEarly ??= !res.writableFinished))
    const pump = () => {
      while (sent < BODY_BYTES && !res.destroyed) {
        sent += CHUNK.length
        if (!res.write(CHUNK)) return void res.once('drain', pump)
      }
      if (!res.destroyed) res.end()
    }
    pump()
  })
})
await new Promise((ok) => receiver.listen(0, '127.0.0.1', ok))
const hook = `http://127.0.0.1:${receiver.address().port}/hooks`

const cli = spawn(
  process.execPath,
  [join(ROOT, 'dist/bin/card-sandbox.js'), '--port', '0', '--log', 'silent', '--seed', '1'],
  {
    cwd: ROOT,
    stdio: ['ignore', 'pipe', 'inherit'],
  },
)
let banner = ''
const base = await new Promise((ok) =>
  cli.stdout.on('data', (chunk) => {
    banner += chunk
    const m = /API\s+(http:\/\/\S+)\/v1/.exec(banner)
    if (m) ok(m[1])
  }),
)
const H = { Authorization: 'Bearer rss-probe-token', 'Content-Type': 'application/json' }
const call = async (method, path, body) =>
  (await fetch(base + path, { method, headers: H, body: body && JSON.stringify(body) })).json()

const attemptOf = async (user, started) => {
  while (Date.now() - started < 60_000) {
    const events = await call('GET', '/__sandbox/webhooks')
    const event = events.data.find((e) => e.body.includes(user.userCard.reference))
    if (event?.attempts[0]) return event.attempts[0]
    await new Promise((ok) => setTimeout(ok, 50))
  }
}
const deliver = async (phone) => {
  const user = await call('POST', '/v1/card-users/create', { phone })
  await call('POST', `/__sandbox/card-users/${user.userCard.reference}/transition`, {
    to: 'passed',
  })
  return attemptOf(user, Date.now())
}

await call('PUT', '/__sandbox/webhook', { url: hook })
await deliver('+221770000000')
await new Promise((ok) => setTimeout(ok, 500))
writeFileSync(`/proc/${cli.pid}/clear_refs`, '5') // resets the peak (VmHWM) to the current RSS
const before = memory(cli.pid)
const attempt = await deliver('+221770000001')
await new Promise((ok) => setTimeout(ok, 300))
const after = memory(cli.pid)
const mb = (n) => `${n.toFixed(1)} MB`
console.log(`receiver streamed up to ${BODY_BYTES / 1024 / 1024} MB after a 200`)
console.log(
  `sandbox RSS before ${mb(before.rss)}, peak ${mb(after.peak)} (+${mb(after.peak - before.rss)}), after ${mb(after.rss)}`,
)
console.log(
  `receiver sent ${mb(sent / 1024 / 1024)} before the connection closed (closed early: ${closedEarly})`,
)
console.log(
  `attempt: status ${attempt?.status_code}, ${attempt?.latency_ms} ms, error ${attempt?.error}, response kept ${attempt?.response?.length ?? 0} chars`,
)
cli.kill('SIGKILL')
receiver.closeAllConnections()
receiver.close()
