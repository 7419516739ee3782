/**
 * The built CLI as a user runs it: a child process on a free port, called over a socket.
 * `npm test` builds dist/ first.
 */
import { pgSchemaUrl, TEST_PG } from '../pg.js'
import { spawn, spawnSync, type ChildProcess } from 'node:child_process'
import { request } from 'node:http'
import {
  copyFileSync,
  existsSync,
  mkdirSync,
  readFileSync,
  symlinkSync,
  writeFileSync,
} from 'node:fs'
import { createRequire } from 'node:module'
import { join } from 'node:path'
import { afterEach, describe, expect, it, vi } from 'vitest'
import { parentOf } from '../../src/lib/processes.js'
import { startSandbox } from '../../src/server/sandbox.js'
import { until } from '../webhooks/receiver.js'
import { tempDir } from '../temp-dir.js'

const CLI = new URL('../../dist/bin/card-sandbox.js', import.meta.url).pathname
const ROOT = new URL('../..', import.meta.url).pathname
const running: ChildProcess[] = []
const cleanups: (() => void)[] = []

afterEach(() => {
  for (const child of running.splice(0)) child.kill('SIGKILL')
  for (const cleanup of cleanups.splice(0).reverse()) cleanup()
})

/** Whether a process runs (not only in our children: a grandchild too). */
function isRunning(pid: number) {
  try {
    process.kill(pid, 0)
    return !/^\S+ \(.*\) Z/.test(readFileSync(`/proc/${pid}/stat`, 'utf8'))
  } catch {
    return false
  }
}

/** Kills a process we did not spawn ourselves, if it still runs, when the test ends. */
function killAfterwards(pid: () => number | undefined) {
  cleanups.push(() => {
    const id = pid()
    if (id && isRunning(id)) process.kill(id, 'SIGKILL')
  })
}

/** Runs the CLI to its end: its exit code and what it printed. */
function runCli(args: string[], env: Record<string, string> = {}) {
  const child = spawn(process.execPath, [CLI, ...args], {
    env: { ...process.env, ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  })
  running.push(child)
  let stdout = ''
  let stderr = ''
  child.stdout.on('data', (chunk) => (stdout += chunk))
  child.stderr.on('data', (chunk) => (stderr += chunk))
  // a command that should have ended but serves on is cut short: its code is then null
  const cutShort = setTimeout(() => child.kill('SIGKILL'), 10_000)
  return new Promise<{ code: number | null; stdout: string; stderr: string }>((resolve) =>
    child.once('close', (code) => {
      clearTimeout(cutShort)
      resolve({ code, stdout, stderr })
    }),
  )
}

/**
 * Starts the CLI (another command file with `cli`, node's own flags with `nodeArgs`) and
 * resolves with its base URL once the banner is printed.
 */
function startCli(
  args: string[],
  env: Record<string, string> = {},
  { cli = CLI, nodeArgs = [] as string[] } = {},
) {
  const child = spawn(process.execPath, [...nodeArgs, cli, '--port', '0', ...args], {
    env: { ...process.env, ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  })
  running.push(child)
  let output = ''
  const exited = new Promise<number | null>((resolve) =>
    child.once('exit', (code) => resolve(code)),
  )
  const baseUrl = new Promise<string>((resolve, reject) => {
    child.stdout!.on('data', (chunk) => {
      output += chunk
      // the pretty banner's line, or the JSON banner's `api` (--log json)
      const match = /API\s+(http:\/\/\S+\/v1)|"api":"(http:\/\/[^"]+\/v1)"/.exec(output)
      if (match) resolve(match[1] ?? match[2])
    })
    child.stderr!.on('data', (chunk) => (output += chunk))
    child.once('exit', (code) => reject(new Error(`exited ${code}: ${output}`)))
  })
  return { child, baseUrl, exited, output: () => output }
}

const auth = { Authorization: 'Bearer cli-token', 'Content-Type': 'application/json' }

/**
 * Creates a card user on a sandbox started on `db`, stops it, starts another on the same `db`
 * and finds the user there; returns the first sandbox's output.
 */
async function keepsDataAcrossRestart(db: string, flags: string[]): Promise<string> {
  const first = startCli(['--db', db, ...flags])
  const created = await fetch(`${await first.baseUrl}/card-users/create`, {
    method: 'POST',
    headers: auth,
    body: JSON.stringify({ phone: '+221770000009' }),
  })
  expect(created.status).toBe(200)
  const reference = ((await created.json()) as any).userCard.reference
  first.child.kill('SIGINT')
  expect(await first.exited).toBe(0)

  const second = startCli(['--db', db, '--log', 'silent'])
  const list = await fetch(`${await second.baseUrl}/card-users`, { headers: auth })
  const body = (await list.json()) as any
  expect(body.data[0].data.map((u: { reference: string }) => u.reference)).toEqual([reference])
  second.child.kill('SIGINT')
  expect(await second.exited).toBe(0)
  return first.output()
}

describe('npx card-sandbox', () => {
  it('serves the API on a free port, prints a banner and stops cleanly on SIGTERM', async () => {
    const cli = startCli(['--log', 'silent'])
    const baseUrl = await cli.baseUrl
    expect(baseUrl).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/v1$/)
    expect(cli.output()).toContain('quirks      on')

    const created = await fetch(`${baseUrl}/card-users/create`, {
      method: 'POST',
      headers: auth,
      body: JSON.stringify({ phone: '+221770000000' }),
    })
    expect(created.status).toBe(200)
    const body = (await created.json()) as any
    expect(body.userCard.phone).toBe('+221770000000')

    const health = await fetch(baseUrl.replace('/v1', '/__sandbox/health'))
    expect(await health.json()).toEqual({ status: 'ok' })

    cli.child.kill('SIGTERM')
    expect(await cli.exited).toBe(0)
    expect(cli.output()).toContain('card-sandbox: stopped')
  })

  it('reads flags from CARD_SANDBOX_* environment variables', async () => {
    const cli = startCli(['--log', 'silent'], {
      CARD_SANDBOX_QUIRKS: 'off',
      CARD_SANDBOX_TOKENS: 'only-me',
      CARD_SANDBOX_WEBHOOK_SECRET: 'banner-secret-5678',
    })
    const baseUrl = await cli.baseUrl
    expect(cli.output()).toContain('quirks      off')
    // the banner masks tokens and secrets (PRODUCT §11)
    expect(cli.output()).toContain('tokens      *******\n')
    expect(cli.output()).toContain('signed with **************5678\n')
    expect(cli.output()).not.toContain('only-me')
    expect(cli.output()).not.toContain('banner-secret')
    const refused = await fetch(`${baseUrl}/cards`, { headers: auth })
    expect(refused.status).toBe(401)
    const created = await fetch(`${baseUrl}/card-users/create`, {
      method: 'POST',
      headers: { ...auth, Authorization: 'Bearer only-me' },
      body: JSON.stringify({ phone: '+221770000000' }),
    })
    const body = (await created.json()) as any
    // quirks off: the clean shape, userCard under data
    expect(body.data.userCard.status).toBe('pending')
  })

  it('prints the dashboard and docs URLs, and no token or secret, in its banner', async () => {
    const cli = startCli([
      '--log',
      'silent',
      '--tokens',
      'first-secret-token,second-secret-token',
      '--webhook-secret',
      'whsec-do-not-print',
      '--webhook-url',
      'http://hooks:hook-password@127.0.0.1:9/in',
    ])
    const origin = (await cli.baseUrl).replace(/\/v1$/, '')
    await vi.waitFor(() => expect(cli.output()).toContain('Press Ctrl-C to stop.'))
    const banner = cli.output()
    expect(banner).toContain(`dashboard   ${origin}/__sandbox/ui`)
    expect(banner).toContain(`docs        ${origin}/__sandbox/docs`)
    expect(banner).toContain('webhooks    http://hooks:*********word@127.0.0.1:9/in')
    for (const secret of [
      'first-secret-token',
      'second-secret-token',
      'whsec-do-not-print',
      'hook-password',
    ])
      expect(banner).not.toContain(secret)
  })

  it('answers the Host names of --allowed-host and CARD_SANDBOX_ALLOWED_HOST, refuses others', async () => {
    const cli = startCli(['--log', 'silent', '--allowed-host', 'sandbox.test'], {
      CARD_SANDBOX_ALLOWED_HOST: 'ignored.test', // the command line wins
    })
    const port = Number(new URL(await cli.baseUrl).port)
    const status = (host: string) =>
      new Promise<number>((resolve, reject) => {
        const req = request(
          { host: '127.0.0.1', port, path: '/__sandbox/health', headers: { Host: host } },
          (res) => {
            res.resume()
            resolve(res.statusCode!)
          },
        )
        req.on('error', reject)
        req.end()
      })
    expect(await status('sandbox.test:4010')).toBe(200)
    expect(await status('ignored.test')).toBe(403)
    expect(await status('evil.example')).toBe(403)
    expect(await status(`localhost:${port}`)).toBe(200)
  })

  it('keeps data across restarts with --db file', async () => {
    await keepsDataAcrossRestart(join(tempDir(), 'sandbox.sqlite'), ['--log', 'silent'])
  })

  it.skipIf(!TEST_PG)(
    'serves from PostgreSQL with --db postgres://…, keeps data across restarts, and masks the URL’s password',
    async () => {
      // trust auth on the test server: the password is only there to be masked
      const url = new URL(pgSchemaUrl())
      url.password = 'pg-password-9876'
      const first = await keepsDataAcrossRestart(url.toString(), [])
      expect(first).toMatch(/database\s+postgres:\/\/root:\*+9876@127\.0\.0\.1/)
      expect(first).not.toContain('pg-password')
    },
  )

  it.skipIf(!TEST_PG)(
    'refuses, in one line, a replica whose clock flags differ from the running ones’, and --seed on PostgreSQL; takes any flags once the others are gone',
    async () => {
      const url = pgSchemaUrl()
      const first = startCli(['--db', url, '--clock', 'manual', '--log', 'silent'])
      await first.baseUrl

      const differing = await runCli(['--port', '0', '--db', url, '--log', 'silent'])
      expect(differing.code).toBe(1)
      expect(differing.stderr).toBe(
        'card-sandbox: could not start: the replicas already serving this database run with ' +
          '--clock manual; start this one with the same flags\n',
      )
      const seeded = await runCli(['--port', '0', '--db', url, '--clock', 'manual', '--seed', '7'])
      expect(seeded.code).toBe(1)
      expect(seeded.stderr).toMatch(
        /^card-sandbox: could not start: --seed cannot be used with a PostgreSQL store/,
      )
      const same = startCli(['--db', url, '--clock', 'manual', '--log', 'silent'])
      expect((await fetch((await same.baseUrl).replace('/v1', '/__sandbox/health'))).status).toBe(
        200,
      )

      // the replicas gone (one killed), the next one's flags are the database's
      first.child.kill('SIGKILL')
      same.child.kill('SIGINT')
      await Promise.all([first.exited, same.exited])
      const real = startCli(['--db', url, '--log', 'silent'])
      expect((await fetch((await real.baseUrl).replace('/v1', '/__sandbox/health'))).status).toBe(
        200,
      )
    },
  )

  it('logs one line per request with --log pretty, the token masked', async () => {
    const cli = startCli(['--log', 'pretty'])
    const baseUrl = await cli.baseUrl
    await fetch(`${baseUrl}/cards`, { headers: auth })
    await new Promise((resolve) => setTimeout(resolve, 100))
    await fetch(`${baseUrl}/cards`, {
      headers: { Authorization: 'Bearer a-much-longer-token-1234' },
    })
    await new Promise((resolve) => setTimeout(resolve, 100))
    await fetch(`${baseUrl}/cards`)
    await new Promise((resolve) => setTimeout(resolve, 100))
    const time = '\\d\\d:\\d\\d:\\d\\d\\.\\d{3}'
    expect(cli.output()).toMatch(
      new RegExp(`\n${time} \\*{5}oken\\s+GET\\s+/v1/cards 200 [\\d.]+ms\n`),
    )
    expect(cli.output()).toMatch(
      new RegExp(`\n${time} …\\*{11}1234\\s+GET\\s+/v1/cards 200 [\\d.]+ms\n`),
    )
    expect(cli.output()).toMatch(
      new RegExp(`\n${time} -\\s+GET\\s+/v1/cards 401 [\\d.]+ms {2}\\S.*\n`),
    )
    expect(cli.output()).not.toContain('cli-token')
    expect(cli.output()).not.toContain('a-much-longer')
  })

  it('prints only JSON lines with --log json, from the banner to the stop, the token masked', async () => {
    const cli = startCli(['--log', 'json', '--tokens', 'cli-token'])
    const baseUrl = await cli.baseUrl
    await fetch(`${baseUrl}/cards`, { headers: auth })
    await until(() => cli.output().includes('"event":"request"'), 5_000, 'the request line')
    cli.child.kill('SIGTERM')
    expect(await cli.exited).toBe(0)
    const lines = cli.output().trimEnd().split('\n')
    const objects = lines.map((line) => JSON.parse(line))
    const origin = baseUrl.replace('/v1', '')
    expect(objects.map((o) => o.event)).toEqual(['listening', 'request', 'stopping', 'stopped'])
    for (const o of objects) {
      expect(o.time).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/)
      expect(o.level).toBe('info')
    }
    expect(objects[0]).toMatchObject({
      version: expect.any(String),
      api: baseUrl,
      dashboard: `${origin}/__sandbox/ui`,
      docs: `${origin}/__sandbox/docs`,
      health: `${origin}/__sandbox/health`,
      clock: 'real',
      quirks: true,
      tokens: ['*****oken'],
    })
    expect(objects[1]).toEqual({
      time: expect.any(String),
      level: 'info',
      event: 'request',
      tenant: '*****oken',
      method: 'GET',
      path: '/v1/cards',
      status: 200,
      ms: expect.any(Number),
    })
    expect(cli.output()).not.toContain('cli-token')
  })

  it('warns when it listens on an address other machines reach, and its dashboard lists no tenant', async () => {
    const cli = startCli(['--host', '0.0.0.0', '--log', 'pretty'])
    const baseUrl = await cli.baseUrl
    await until(() => cli.output().includes('warning:'), 5_000, 'the warning')
    expect(cli.output()).toMatch(/warning: listening on 0\.0\.0\.0, not loopback/)
    await fetch(`${baseUrl}/cards`, { headers: auth })
    const page = await (await fetch(baseUrl.replace('/v1', '/__sandbox/ui'))).text()
    expect(page).toContain('id="not-listed"')
    expect(page).not.toContain('Tenants seen so far')
    // a tenant still opens with its token
    const panel = await fetch(baseUrl.replace('/v1', '/__sandbox/ui/panel'), { headers: auth })
    expect(panel.status).toBe(200)
  })

  it('prints no warning and lists the tenants on loopback', async () => {
    const cli = startCli(['--log', 'pretty'])
    const baseUrl = await cli.baseUrl
    await fetch(`${baseUrl}/cards`, { headers: auth })
    const page = await (await fetch(baseUrl.replace('/v1', '/__sandbox/ui'))).text()
    expect(page).toContain('Tenants seen so far')
    expect(cli.output()).not.toContain('warning:')
  })

  it('refuses a --cors value that is not an origin, in one line', async () => {
    const result = await runCli(['--cors', 'http://localhost:5173/app'])
    expect(result.code).toBe(2)
    expect(result.stderr).toMatch(
      /^card-sandbox: --cors: "http:\/\/localhost:5173\/app" is not an origin/,
    )
  })

  it('finishes an in-flight request before it stops on SIGTERM', async () => {
    const dir = tempDir()
    const scenario = join(dir, 'slow.yaml')
    writeFileSync(
      scenario,
      'name: slow\nrules:\n  - match: { method: GET, path: /v1/cards }\n    latency: 500ms\n',
    )
    const cli = startCli(['--log', 'silent', '--scenario', scenario])
    const baseUrl = await cli.baseUrl
    const inFlight = fetch(`${baseUrl}/cards`, { headers: auth })
    await new Promise((resolve) => setTimeout(resolve, 150)) // the request is being served
    cli.child.kill('SIGTERM')
    const res = await inFlight
    expect(res.status).toBe(200)
    expect(await cli.exited).toBe(0)
  })

  it('draws the same names, addresses and emails for a seed as the library does, in the command and the CommonJS build (the bundles keep a part of faker)', async () => {
    const flags = { seed: 7, clock: 'manual' as const }
    const cli = startCli(['--seed', String(flags.seed), '--clock', flags.clock, '--log', 'silent'])
    const library = await startSandbox({ port: 0, log: 'silent', ...flags })
    cleanups.push(() => void library.close())
    const commonJsBuild = createRequire(import.meta.url)('../../dist/index.cjs') as {
      startSandbox: typeof startSandbox
    }
    const commonJs = await commonJsBuild.startSandbox({ port: 0, log: 'silent', ...flags })
    cleanups.push(() => void commonJs.close())
    const identities = async (baseUrl: string) => {
      const call = (method: string, url: string, body?: unknown) =>
        fetch(url, {
          method,
          headers: auth,
          body: body === undefined ? undefined : JSON.stringify(body),
        }).then((res) => res.json() as Promise<any>)
      const people: unknown[] = []
      for (let i = 0; i < 25; i++) {
        const created = await call('POST', `${baseUrl}/card-users/create`, {
          phone: `+2217700000${String(i).padStart(2, '0')}`,
        })
        const reference = created.userCard.reference
        const control = baseUrl.replace(/\/v1$/, '/__sandbox')
        await call('POST', `${control}/card-users/${reference}/transition`, { to: 'passed' })
        people.push((await call('GET', `${baseUrl}/card-users/${reference}`)).data.cardUser)
      }
      return people
    }
    const bundled = await identities(await cli.baseUrl)
    expect(bundled.map((p: any) => typeof p.first_name)).toEqual(Array(25).fill('string'))
    const whole = await identities(library.baseUrl)
    expect(bundled).toEqual(whole)
    expect(await identities(commonJs.baseUrl)).toEqual(whole)
  })

  it('keeps the code cache the build wrote when started with node options (a cache made under them would be refused)', async () => {
    const cache = new URL('../../dist/bin/cli.cjs.cache', import.meta.url).pathname
    const written = readFileSync(cache)
    const child = spawn(process.execPath, ['--single-threaded', CLI, '--port', '0'], {
      env: { ...process.env, NODE_OPTIONS: '' },
      stdio: ['ignore', 'pipe', 'pipe'],
    })
    running.push(child)
    await new Promise((resolve) => child.stdout!.once('data', resolve))
    // past the moment a start writes a cache it found refused (lib/code-cache.ts: 2 s)
    await new Promise((resolve) => setTimeout(resolve, 3_000))
    expect(readFileSync(cache).equals(written)).toBe(true)
  })

  it('compiles the command under node’s own V8 flags, so that V8 takes the build’s code cache, and has TurboFan inline less once started', async () => {
    // a preloaded probe reports what the start asked of V8 (bin.ts, lib/code-cache.ts)
    const probe = join(tempDir(), 'probe.cjs')
    writeFileSync(
      probe,
      `const v8 = require('node:v8'), vm = require('node:vm')
const say = (line) => process.stderr.write('probe: ' + line + '\\n')
const setFlags = v8.setFlagsFromString
v8.setFlagsFromString = (flags) => (say('flags ' + flags), setFlags(flags))
const Script = vm.Script
vm.Script = class extends Script {
  constructor(...args) { super(...args); say('cache refused ' + this.cachedDataRejected) }
}`,
    )
    const child = spawn(process.execPath, ['-r', probe, CLI, '--port', '0'], {
      env: { ...process.env, NODE_OPTIONS: '' },
      stdio: ['ignore', 'ignore', 'pipe'],
    })
    running.push(child)
    let said = ''
    child.stderr!.on('data', (chunk) => (said += chunk))
    await until(() => said.includes('probe: flags'), 10_000, 'the inlining flag')
    expect(said.split('\n').filter((line) => line.startsWith('probe:'))).toEqual([
      'probe: cache refused false',
      'probe: flags --max-inlined-bytecode-size-cumulative=500',
    ])
  })

  /**
   * The command `cli` (a path) started with a preloaded probe, until its first answer: the
   * answer's status and the files node's module loader loaded apart from the command's own.
   */
  async function loadedByCommand(cli: string) {
    const probe = join(tempDir(), 'probe.cjs')
    writeFileSync(
      probe,
      `const http = require('node:http'), { dirname } = require('node:path')
const own = dirname(${JSON.stringify(cli)})
const listen = http.Server.prototype.listen
http.Server.prototype.listen = function (...args) {
  this.once('request', (req, res) => res.once('finish', () => process.stderr.write('loaded ' +
    JSON.stringify(Object.keys(require.cache).filter((f) => f !== __filename && dirname(f) !== own)) + '\\n')))
  return listen.apply(this, args)
}`,
    )
    const started = startCli(['--log', 'silent'], {}, { cli, nodeArgs: ['-r', probe] })
    const { status } = await fetch(`${await started.baseUrl}/cards`, { headers: auth })
    await until(() => started.output().includes('loaded '), 5_000, 'the probe')
    return { status, loaded: JSON.parse(/loaded (.*)/.exec(started.output())![1]) as string[] }
  }

  it('runs the better-sqlite3 it bundles with the installed addon, loading none of its JavaScript from node_modules', async () => {
    const { status, loaded } = await loadedByCommand(CLI)
    expect(status).toBe(200)
    expect(loaded).toEqual([
      join(ROOT, 'node_modules/better-sqlite3/build/Release/better_sqlite3.node'),
    ])
  })

  it('loads the installed better-sqlite3 when its version is not the one the command was built with', async () => {
    // the package as installed, its better-sqlite3 claiming another version
    const pkg = tempDir()
    mkdirSync(join(pkg, 'dist', 'bin'), { recursive: true })
    for (const file of ['card-sandbox.js', 'cli.cjs', 'package.json'])
      copyFileSync(join(ROOT, 'dist', 'bin', file), join(pkg, 'dist', 'bin', file))
    copyFileSync(join(ROOT, 'package.json'), join(pkg, 'package.json'))
    symlinkSync(join(ROOT, 'drizzle'), join(pkg, 'drizzle'))
    const sqlite = join(pkg, 'node_modules', 'better-sqlite3')
    mkdirSync(sqlite, { recursive: true })
    writeFileSync(
      join(sqlite, 'package.json'),
      '{ "version": "0.0.0-other", "main": "lib/index.js" }',
    )
    for (const dir of ['lib', 'build'])
      symlinkSync(join(ROOT, 'node_modules', 'better-sqlite3', dir), join(sqlite, dir))

    const { status, loaded } = await loadedByCommand(join(pkg, 'dist', 'bin', 'card-sandbox.js'))
    expect(status).toBe(200)
    expect(loaded).toContain(join(ROOT, 'node_modules/better-sqlite3/lib/index.js'))
    expect(loaded).toContain(
      join(ROOT, 'node_modules/better-sqlite3/build/Release/better_sqlite3.node'),
    )
  })

  it('prints the flag table with --help', () => {
    const result = spawnSync(process.execPath, [CLI, '--help'], { encoding: 'utf8' })
    expect(result.status).toBe(0)
    for (const flag of [
      '--port',
      '--host',
      '--db',
      '--seed',
      '--tokens',
      '--speed',
      '--clock',
      '--quirks',
      '--log',
    ]) {
      expect(result.stdout).toContain(flag)
    }
    expect(result.stdout).toContain('CARD_SANDBOX_PORT')
  })

  it('refuses an unknown flag or a bad value with exit code 2', () => {
    for (const args of [
      ['--nope'],
      ['--port', 'abc'],
      ['--clock', 'sideways'],
      ['--quirks', 'maybe'],
      ['--webhook-url', 'not a url'],
      ['--webhook-extensions', 'maybe'],
      ['--allowed-host', 'http://sandbox.test/'],
      ['--public-url', 'sandbox.test:4010'],
    ]) {
      const result = spawnSync(process.execPath, [CLI, ...args], { encoding: 'utf8' })
      expect(result.status, args.join(' ')).toBe(2)
      expect(result.stderr).toMatch(/^card-sandbox: /)
    }
  })

  it('names a database file whose directory does not exist, and that directory', async () => {
    const dir = join(tempDir(), 'no', 'such', 'dir')
    const run = await runCli(['--port', '0', '--db', join(dir, 'x.db'), '--log', 'silent'])
    expect(run.code).toBe(1)
    expect(run.stdout).toBe('')
    expect(run.stderr).toBe(
      `card-sandbox: could not start: cannot open the database ${dir}/x.db: ` +
        `the directory ${dir} does not exist\n`,
    )
  })

  it('refuses a database file another running sandbox holds, in one line, until that one is gone', async () => {
    const db = join(tempDir(), 'shared.sqlite')
    const first = startCli(['--db', db, '--log', 'silent'])
    await first.baseUrl

    const second = await runCli(['--port', '0', '--db', db, '--log', 'silent'])
    expect(second.code).toBe(1)
    expect(second.stdout).toBe('')
    expect(second.stderr).toBe(
      `card-sandbox: could not start: the database ${db} is in use by another sandbox ` +
        `(pid ${first.child.pid}, started ${second.stderr.match(/started (\S+)\)/)?.[1]}); ` +
        'stop it, or use another database file\n',
    )

    // the holder dies without a chance to clean up: its lock goes with it
    first.child.kill('SIGKILL')
    await first.exited
    const third = startCli(['--db', db, '--log', 'silent'])
    const health = await fetch((await third.baseUrl).replace('/v1', '/__sandbox/health'))
    expect(health.status).toBe(200)
  })
})

describe('npx card-sandbox <command>', () => {
  it('serves with `serve` as with no command, and refuses an unknown command with exit code 2', async () => {
    const served = startCli(['--log', 'silent'])
    expect(await served.baseUrl).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/v1$/)
    const child = spawn(process.execPath, [CLI, 'serve', '--port', '0', '--log', 'silent'], {
      stdio: ['ignore', 'pipe', 'inherit'],
    })
    running.push(child)
    let banner = ''
    child.stdout.on('data', (chunk) => (banner += chunk))
    await until(() => banner.includes('Press Ctrl-C'), 10_000, 'the banner of serve')
    expect(banner).toMatch(/API\s+http:\/\/127\.0\.0\.1:\d+\/v1/)

    const unknown = await runCli(['frobnicate', '--port', '0'])
    expect(unknown.code).toBe(2)
    expect(unknown.stderr.split('\n')[0]).toBe(
      "card-sandbox: unknown command 'frobnicate' (commands: serve, stop, reset, clock, transition, trigger, listen, fixtures, journal, proxy, drift, help)",
    )
    const help = await runCli(['help'])
    expect(help.code).toBe(0)
    expect(help.stdout).toMatch(/^ {2}stop \[--pid-file <file>\] +stop the sandbox/m)
    expect(help.stdout).toContain('--pid-file <file>')
  })

  it('writes --pid-file once listening; `stop --pid-file` stops it cleanly and the file goes', async () => {
    const pidFile = join(tempDir(), 'sandbox.pid')
    const cli = startCli(['--log', 'silent', '--pid-file', pidFile])
    await cli.baseUrl
    expect(readFileSync(pidFile, 'utf8')).toBe(`${cli.child.pid}\n`)

    // a second sandbox on the same pid file would make `stop` stop the wrong one
    const second = await runCli(['--port', '0', '--log', 'silent', '--pid-file', pidFile])
    expect(second.code).toBe(1)
    expect(second.stderr).toContain(
      `--pid-file ${pidFile} belongs to a running sandbox (pid ${cli.child.pid})`,
    )

    const stopped = await runCli(['stop', '--pid-file', pidFile])
    expect(stopped.stderr).toBe('')
    expect(stopped.stdout).toBe(
      `card-sandbox: stopped the sandbox of ${pidFile} (pid ${cli.child.pid})\n`,
    )
    expect(stopped.code).toBe(0)
    expect(await cli.exited).toBe(0)
    expect(cli.output()).toContain('card-sandbox: SIGTERM received')
    expect(existsSync(pidFile)).toBe(false)

    const again = await runCli(['stop'], { CARD_SANDBOX_PID_FILE: pidFile })
    expect(again.code).toBe(1)
    expect(again.stderr).toBe(`card-sandbox: no sandbox to stop: ${pidFile} does not exist\n`)
  })

  it('`stop` removes a pid file whose process is gone, and needs a pid file to read', async () => {
    const pidFile = join(tempDir(), 'sandbox.pid')
    const gone = spawnSync(process.execPath, ['-e', 'console.log(process.pid)'], {
      encoding: 'utf8',
    })
    writeFileSync(pidFile, gone.stdout)
    const stale = await runCli(['stop', '--pid-file', pidFile])
    expect(stale.code).toBe(1)
    expect(stale.stderr).toContain(`process ${gone.stdout.trim()} of ${pidFile} is not running`)
    expect(existsSync(pidFile)).toBe(false)

    const missing = await runCli(['stop'], { CARD_SANDBOX_PID_FILE: '' })
    expect(missing.code).toBe(2)
    expect(missing.stderr).toMatch(/^card-sandbox: stop needs --pid-file <file>/)
  })

  it.each(['SIGTERM', 'SIGKILL'] as const)(
    'stops when npx, started in the background by a shell, is killed with %s',
    async (signal) => {
      const dir = tempDir()
      const pidFile = join(dir, 'sandbox.pid')
      // `npx card-sandbox & echo $!`: npm runs the package's own bin through `sh -c`
      const shell = spawn(
        'sh',
        ['-c', `npx card-sandbox --port 0 --log silent --pid-file ${pidFile} & echo $!; wait`],
        {
          cwd: ROOT,
          env: {
            ...process.env,
            // a cache of its own: npx links the package in, without its prepare script
            npm_config_cache: join(dir, 'npm-cache'),
            npm_config_ignore_scripts: 'true',
            npm_config_update_notifier: 'false',
          },
          stdio: ['ignore', 'pipe', 'pipe'],
        },
      )
      running.push(shell)
      // stdout: `echo $!` first, then the sandbox's banner; stderr: npm's warnings
      let stdout = ''
      let output = ''
      shell.stdout.on('data', (chunk) => {
        stdout += chunk
        output += chunk
      })
      shell.stderr.on('data', (chunk) => (output += chunk))
      let server: number | undefined
      killAfterwards(() => server)
      await until(() => existsSync(pidFile) && /^\d+\n/.test(stdout), 30_000, 'the sandbox')
      const wrapper = Number(stdout.split('\n')[0])
      server = Number(readFileSync(pidFile, 'utf8'))
      expect(server).not.toBe(wrapper)

      process.kill(wrapper, signal)
      await until(() => !isRunning(server!), 10_000, `the sandbox to stop`).catch((error) => {
        throw new Error(`${error.message} after npx got ${signal}; the output:\n${output}`)
      })
      expect(existsSync(pidFile)).toBe(false)
    },
    60_000,
  )
})

/** The environment of a process the test starts, without npm's mark (`npm test` sets it): only
 * --exit-with-parent may then make the sandbox watch its parent. */
function withoutNpm(env: Record<string, string> = {}) {
  const plain: Record<string, string | undefined> = { ...process.env, ...env }
  delete plain.npm_lifecycle_event
  return plain
}

/**
 * A parent, as a test runner or a kit is, that starts `card-sandbox serve <args>` (stdin
 * /dev/null, its output on the parent's own, which the test reads even once the parent is gone)
 * and lives on until killed. Resolves once the sandbox has written its pid file.
 */
async function serveUnderParent(args: string[]) {
  const pidFile = join(tempDir(), 'sandbox.pid')
  const argv = [CLI, 'serve', '--port', '0', '--log', 'json', '--pid-file', pidFile, ...args]
  const parent = spawn(
    process.execPath,
    [
      '-e',
      `require('node:child_process').spawn(process.execPath, ${JSON.stringify(argv)}, ` +
        `{ stdio: ['ignore', 'inherit', 'inherit'] }); setInterval(() => {}, 1000)`,
    ],
    { env: withoutNpm(), stdio: ['ignore', 'pipe', 'pipe'] },
  )
  running.push(parent)
  let output = ''
  parent.stdout.on('data', (chunk) => (output += chunk))
  parent.stderr.on('data', (chunk) => (output += chunk))
  let server: number | undefined
  killAfterwards(() => server)
  await until(() => logLine(output, 'listening') !== undefined, 10_000, 'the banner')
  server = Number(readFileSync(pidFile, 'utf8'))
  const { health } = logLine(output, 'listening') as { health?: string }
  return { parent, server, pidFile, health: health!, output: () => output }
}

/** The JSON log line of `event` in `output`, if any. */
function logLine(output: string, event: string) {
  return output
    .split('\n')
    .slice(0, -1) // the last is not a whole line yet
    .filter((line) => line.startsWith('{'))
    .map((line) => JSON.parse(line) as { event: string; message?: string; health?: string })
    .find((line) => line.event === event)
}

/** Waits two of the parent watch's looks (500 ms apart), to see that nothing stopped meanwhile. */
const twoLooks = () => new Promise((resolve) => setTimeout(resolve, 1_100))

describe.runIf(process.platform === 'linux')('serve --exit-with-parent', () => {
  it('stops cleanly once the process that started it is killed with SIGKILL', async () => {
    const sandbox = await serveUnderParent(['--exit-with-parent', 'on'])
    expect((await fetch(sandbox.health)).status).toBe(200)

    sandbox.parent.kill('SIGKILL')
    await until(() => !isRunning(sandbox.server), 10_000, 'the sandbox to stop')
    expect(logLine(sandbox.output(), 'stopping')?.message).toBe(
      'its parent process has gone (--exit-with-parent), finishing in-flight requests…',
    )
    expect(logLine(sandbox.output(), 'stopped')).toBeDefined()
    expect(existsSync(sandbox.pidFile)).toBe(false)
  })

  it('without it, outlives the process that started it', async () => {
    const sandbox = await serveUnderParent([])
    sandbox.parent.kill('SIGKILL')
    await until(
      () => parentOf(sandbox.server) !== sandbox.parent.pid,
      10_000,
      'the sandbox to be adopted',
    )
    await twoLooks()
    expect(isRunning(sandbox.server)).toBe(true)
    expect((await fetch(sandbox.health)).status).toBe(200)
    process.kill(sandbox.server, 'SIGTERM')
    await until(() => !isRunning(sandbox.server), 10_000, 'the sandbox to stop')
  })

  it('stops cleanly once its stdin closes (CARD_SANDBOX_EXIT_WITH_PARENT), having read and dropped what came', async () => {
    const child = spawn(process.execPath, [CLI, 'serve', '--port', '0', '--log', 'json'], {
      env: withoutNpm({ CARD_SANDBOX_EXIT_WITH_PARENT: 'on' }),
      stdio: ['pipe', 'pipe', 'pipe'],
    })
    running.push(child)
    let output = ''
    child.stdout.on('data', (chunk) => (output += chunk))
    const exited = new Promise<number | null>((resolve) => child.once('exit', resolve))
    await until(() => logLine(output, 'listening') !== undefined, 10_000, 'the banner')
    // far more than a pipe holds (64 KiB): written only if the sandbox reads it
    let written = false
    child.stdin.on('error', () => {}) // EPIPE, should the sandbox be gone
    child.stdin.write(Buffer.alloc(8 * 1024 * 1024, 'x'), () => (written = true))
    await until(() => written, 10_000, 'the sandbox to read its stdin')
    await twoLooks()
    expect(child.exitCode).toBeNull()

    child.stdin.end()
    expect(await exited).toBe(0)
    expect(logLine(output, 'stopping')?.message).toBe(
      'its stdin closed (--exit-with-parent), finishing in-flight requests…',
    )
    expect(logLine(output, 'stopped')).toBeDefined()
  })

  it('serves on with stdin /dev/null, which ends at once (it watches a pipe or a socket only)', async () => {
    const cli = startCli(['--log', 'silent', '--exit-with-parent', 'on'])
    const health = (await cli.baseUrl).replace(/\/v1$/, '/__sandbox/health')
    await twoLooks()
    expect(cli.child.exitCode).toBeNull()
    expect((await fetch(health)).status).toBe(200)
    cli.child.kill('SIGTERM')
    expect(await cli.exited).toBe(0)
  })
})
