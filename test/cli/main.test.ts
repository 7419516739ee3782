/**
 * `card-sandbox` as main() runs it in this process (src/cli/main.ts): serve on a free port with
 * its flags and their variables, its banner, its stop; what it cannot start with; the command it
 * does not know. The built command as a person runs it: test/cli/cli.test.ts.
 */
import { existsSync } from 'node:fs'
import { createServer } from 'node:net'
import type { AddressInfo } from 'node:net'
import { join } from 'node:path'
import { afterEach, describe, expect, it } from 'vitest'
import { main } from '../../src/cli/main.js'
import { readPidFile, writePidFile } from '../../src/cli/commands/pid-file.js'
import { PACKAGE_VERSION } from '../../src/lib/package-files.js'
import { tempDir } from '../temp-dir.js'
import { startRun, startService } from './commands/in-process.js'

const cleanups: (() => unknown)[] = []
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup()
})

/** `card-sandbox <argv>` served in this process, with `env` as its environment. */
async function serve(argv: string[], env: NodeJS.ProcessEnv = {}) {
  const served = await startService(main, argv, env)
  cleanups.push(served.end)
  return served
}

/** `card-sandbox <argv>` that ends by itself: its code and output. */
const run = (argv: string[]) => startRun(main, argv, {}).done

/** The origin (`http://127.0.0.1:<port>`) of the API line of a pretty banner. */
function originOf(banner: string): string {
  const api = /^ {2}API +(http:\/\/\S+)\/v1$/m.exec(banner)
  expect(api, banner).not.toBeNull()
  return api![1]
}

describe('serve', () => {
  it('serves on a free port with its flags and their variables, a banner without a token or a secret, and stops on SIGTERM', async () => {
    const pidFile = join(tempDir(), 'sandbox.pid')
    const served = await serve(
      [
        ...['--port', '0', '--log', 'silent', '--pid-file', pidFile],
        ...['--tokens', 'first-secret-token,second-secret-token'],
        ...['--webhook-secret', 'whsec-do-not-print'],
        ...['--webhook-url', 'http://hooks:hook-password@127.0.0.1:9/in'],
      ],
      // a manual clock shows no speed: it moves only when advanced
      {
        CARD_SANDBOX_QUIRKS: 'off',
        CARD_SANDBOX_CLOCK: 'manual',
        CARD_SANDBOX_SPEED: '3',
        CARD_SANDBOX_RATE_LIMIT: '30',
      },
    )
    expect(served.code).toBe(0)
    const origin = originOf(served.live.stdout)
    expect(origin).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/)
    expect(served.live.stdout).toBe(
      [
        `card-sandbox ${PACKAGE_VERSION} listening`,
        `  API         ${origin}/v1`,
        `  dashboard   ${origin}/__sandbox/ui`,
        `  docs        ${origin}/__sandbox/docs`,
        `  health      ${origin}/__sandbox/health`,
        '  database    :memory:',
        '  clock       manual',
        '  quirks      off',
        '  rate limit  30 /v1 requests a minute per tenant',
        `  tokens      ${'*'.repeat(14)}oken, ${'*'.repeat(15)}oken`,
        '  webhooks    http://hooks:*********word@127.0.0.1:9/in',
        `  signed with ${'*'.repeat(14)}rint`,
        '  scenarios   none (magic values only)',
        '  fixtures    none',
        `  pid file    ${pidFile} (npx card-sandbox stop --pid-file ${pidFile})`,
        'Press Ctrl-C to stop.',
        '',
      ].join('\n'),
    )
    expect(served.live.stderr).toBe('')
    expect(readPidFile(pidFile)).toEqual({ state: 'running', pid: process.pid })

    const auth = (token: string) => ({ headers: { Authorization: `Bearer ${token}` } })
    expect((await fetch(`${origin}/v1/cards`, auth('second-secret-token'))).status).toBe(200)
    expect((await fetch(`${origin}/v1/cards`, auth('someone-else'))).status).toBe(401)
    const clock = await fetch(`${origin}/__sandbox/clock`, auth('first-secret-token'))
    expect(((await clock.json()) as { data: { mode: string } }).data.mode).toBe('manual')

    expect(await served.stop('SIGTERM')).toEqual([0])
    expect(served.live.stdout).toMatch(
      /\ncard-sandbox: SIGTERM received, finishing in-flight requests…\ncard-sandbox: stopped\n$/,
    )
    expect(existsSync(pidFile)).toBe(false)
    await expect(fetch(`${origin}/__sandbox/health`)).rejects.toThrow()
  })

  it('prints the banner as one JSON object with --log json, warns on an address others reach, and stops on SIGINT', async () => {
    const scenario = new URL('../../scenarios/happy-path.yaml', import.meta.url).pathname
    const pidFile = join(tempDir(), 'json.pid')
    const served = await serve(
      [
        ...['--port', '0', '--host', '0.0.0.0', '--log', 'json', '--seed', '7'],
        ...['--public-url', 'http://sandbox.test:4010', '--allowed-host', 'sandbox.test'],
        ...['--cors', 'http://localhost:5173', '--speed', '10'],
        ...['--sdk-compat', 'on', '--webhook-extensions', 'on'],
        ...['--scenario', scenario, '--fixtures', 'verified-user-funded-card'],
        ...['--rate-limit', '30', '--pid-file', pidFile],
      ],
      { CARD_SANDBOX_TOKENS: 'cli-token' },
    )
    expect(served.code).toBe(0)
    const [banner, warning] = served.live.stdout
      .trimEnd()
      .split('\n')
      .map((line) => JSON.parse(line) as Record<string, unknown>)
    const origin = String(banner.api).replace(/\/v1$/, '')
    expect(banner).toEqual({
      time: expect.stringMatching(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/),
      level: 'info',
      event: 'listening',
      version: PACKAGE_VERSION,
      api: `${origin}/v1`,
      dashboard: `${origin}/__sandbox/ui`,
      docs: `${origin}/__sandbox/docs`,
      health: `${origin}/__sandbox/health`,
      public_url: 'http://sandbox.test:4010',
      allowed_hosts: ['sandbox.test'],
      cors: ['http://localhost:5173'],
      database: ':memory:',
      clock: 'real',
      quirks: true,
      sdk_compat: true,
      rate_limit: 30,
      tokens: ['*****oken'],
      seed: 7,
      webhook_url: null,
      webhook_secret: null,
      scenarios: [`happy-path (${scenario})`],
      fixtures: 'verified-user-funded-card',
      webhook_extensions: true,
      pid_file: pidFile,
    })
    expect(warning).toEqual({
      time: expect.any(String),
      level: 'warn',
      event: 'warning',
      host: '0.0.0.0',
      exposed: true,
    })
    expect(served.live.stdout).not.toContain('cli-token')

    expect(await served.stop('SIGINT')).toEqual([0])
    const events = served.live.stdout
      .trimEnd()
      .split('\n')
      .map((line) => JSON.parse(line) as { event: string; message?: string })
    expect(events.map((line) => line.event)).toEqual([
      'listening',
      'warning',
      'stopping',
      'stopped',
    ])
    expect(events[2].message).toBe('SIGINT received, finishing in-flight requests…')
  })

  it('prints each optional setting on its own pretty line: public URL, hosts, CORS, speed, SDK keys, seed, extensions', async () => {
    const served = await serve([
      ...['--port', '0', '--seed', '7', '--speed', '10'],
      ...['--public-url', 'http://sandbox.test:4010', '--allowed-host', 'sandbox.test'],
      ...['--allowed-host', 'box', '--cors', 'http://localhost:5173,https://app.test'],
      ...['--sdk-compat', 'on', '--webhook-extensions', 'on'],
    ])
    expect(served.code).toBe(0)
    const origin = originOf(served.live.stdout)
    expect(served.live.stdout.split('\n').slice(5, -2)).toEqual([
      '  public URL  http://sandbox.test:4010 (wallet_url links)',
      '  also as     sandbox.test, box',
      '  CORS        http://localhost:5173, https://app.test (pages there may call it)',
      '  database    :memory:',
      '  clock       real ×10',
      '  quirks      on',
      '  sdk compat  on (keys the official SDKs read that the real answers lack)',
      '  tokens      any bearer token (one tenant each)',
      '  seed        7',
      '  webhooks    none by default (PUT /__sandbox/webhook per tenant)',
      "  signed with each tenant's bearer token",
      '  scenarios   none (magic values only)',
      '  fixtures    none',
      '  extensions  transaction, payment and disburse events (sandbox only)',
    ])
    expect(served.live.stdout).toContain(`  health      ${origin}/__sandbox/health\n`)
    expect(await served.stop('SIGTERM')).toEqual([0])
  })

  it('warns in words on an address others reach, even with --log silent', async () => {
    const served = await serve(['--port', '0', '--host', '0.0.0.0', '--log', 'silent'])
    expect(served.code).toBe(0)
    expect(served.live.stdout).toMatch(
      /\n[\d:.]+ +- +warning: listening on 0\.0\.0\.0, not loopback: anyone who can reach this machine can call the sandbox with any token \(--tokens limits who gets in\); the dashboard lists no tenant and shows one only to whoever pastes its token\n$/,
    )
    expect(await served.stop('SIGTERM')).toEqual([0])
  })

  it('says why it could not start (1): a port in use, a pid file of a running sandbox or one it cannot write, a database it cannot open', async () => {
    const taken = createServer()
    await new Promise<void>((resolve) => taken.listen(0, '127.0.0.1', resolve))
    cleanups.push(() => new Promise((resolve) => taken.close(resolve)))
    const port = (taken.address() as AddressInfo).port
    const inUse = await serve(['--port', String(port), '--log', 'silent'])
    expect(inUse.code).toBe(1)
    expect(inUse.live.stderr).toBe(
      `card-sandbox: could not start: port ${port} is already in use (try --port 0)\n`,
    )

    const dir = tempDir()
    const held = join(dir, 'held.pid')
    cleanups.push(writePidFile(held))
    const running = await serve(['--port', '0', '--log', 'silent', '--pid-file', held])
    expect(running.code).toBe(1)
    expect(running.live.stderr).toBe(
      `card-sandbox: could not start: --pid-file ${held} belongs to a running sandbox ` +
        `(pid ${process.pid}); stop it with 'npx card-sandbox stop --pid-file ${held}'\n`,
    )

    const unwritable = join(dir, 'no', 'such', 'dir', 'sandbox.pid')
    const pidless = await serve(['--port', '0', '--log', 'silent', '--pid-file', unwritable])
    expect(pidless.code).toBe(1)
    expect(pidless.live.stderr).toMatch(
      new RegExp(`^card-sandbox: could not start: cannot write --pid-file ${unwritable}: `),
    )
    expect(pidless.live.stdout).toBe('')

    const nowhere = join(dir, 'missing')
    const db = await serve(['--port', '0', '--log', 'silent', '--db', join(nowhere, 'x.db')])
    expect(db.code).toBe(1)
    expect(db.live.stderr).toBe(
      `card-sandbox: could not start: cannot open the database ${nowhere}/x.db: ` +
        `the directory ${nowhere} does not exist\n`,
    )
  })

  it('refuses a flag it does not know, naming the nearest, and a bad value (2)', async () => {
    expect(await run(['--prot', '4010'])).toEqual({
      code: 2,
      stdout: '',
      stderr:
        "card-sandbox: unknown flag --prot; did you mean --port?\nRun 'npx card-sandbox --help' for the flags.\n",
    })
    const clock = await run(['serve', '--clock', 'sideways'])
    expect(clock.code).toBe(2)
    expect(clock.stderr).toMatch(/^card-sandbox: --clock .*sideways/)
  })

  it('prints its version, and its help with its flags', async () => {
    for (const flag of ['--version', '-v'])
      expect(await run([flag])).toEqual({ code: 0, stdout: `${PACKAGE_VERSION}\n`, stderr: '' })
    const help = await run(['serve', '--help'])
    expect(help.code).toBe(0)
    expect(help.stdout).toMatch(/^card-sandbox: a local, stateful sandbox/)
    expect(help.stdout).toContain('\nFlags of serve:\n')
  })
})

describe('commands', () => {
  it('names the command nearest an unknown one, or none, and exits 2', async () => {
    const commands =
      '(commands: serve, stop, reset, clock, transition, trigger, listen, fixtures, journal, proxy, drift, help)'
    expect(await run(['trigerr', 'card_creation.successful'])).toEqual({
      code: 2,
      stdout: '',
      stderr:
        `card-sandbox: unknown command 'trigerr'; did you mean 'trigger'? ${commands}\n` +
        "Run 'npx card-sandbox help' for the commands and their flags.\n",
    })
    const far = await run(['frobnicate'])
    expect(far.code).toBe(2)
    expect(far.stderr.split('\n')[0]).toBe(`card-sandbox: unknown command 'frobnicate' ${commands}`)
  })

  it("prints a command's help with --help or -h, the command not run", async () => {
    for (const flag of ['--help', '-h']) {
      const help = await run(['drift', flag])
      expect(help.code).toBe(0)
      expect(help.stdout).toMatch(
        /^Usage: npx card-sandbox drift <file> \[--json\] \[--check\] \[--scenario <out\.yaml>\]\n\nReport where/,
      )
    }
    const usage = await run(['help', 'journal'])
    expect(usage.stdout).toMatch(/^Usage: npx card-sandbox journal \[--tail\]\n/)
  })
})
