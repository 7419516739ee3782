/**
 * `card-sandbox listen --forward-to`: the built CLI as a person runs it, against sandboxes on real
 * ports, forwarding to a real handler that verifies signatures with the secret its team set.
 * `npm test` builds dist/ first.
 */
import { spawn } from 'node:child_process'
import { createServer, type Server } from 'node:http'
import type { AddressInfo } from 'node:net'
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest'
import { createSandboxClient, type SandboxClient } from '../../../src/clients/client.js'
import { verifySignature } from '../../../src/webhooks/sign.js'
import { startSandbox, type RunningSandbox } from '../../../src/server/sandbox.js'
import { fullIdentity } from '../../helpers.js'
import { until } from '../../webhooks/receiver.js'
import { isRunning } from '../../../src/lib/processes.js'
import { CLI, startCli } from './cli-process.js'

const TOKEN = 'cli-listen-token'
const TEAM_SECRET = 'team-secret-0042'

/** Starts `card-sandbox <args>` against `sandbox` as the tenant TOKEN. */
function start(sandbox: RunningSandbox, args: string[]) {
  return startCli(sandbox.url, TOKEN, args)
}

/** A team's handler: answers 200 to a delivery signed with `secret`, 401 to any other. */
async function teamHandler(secret: string) {
  const got: { body: string; verified: boolean }[] = []
  const server: Server = createServer((req, res) => {
    let body = ''
    req.on('data', (chunk) => (body += chunk))
    req.on('end', () => {
      const verified = verifySignature(body, req.headers['x-alal-signature'], secret)
      got.push({ body, verified })
      res.writeHead(verified ? 200 : 401).end()
    })
  })
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/hooks`
  return { url, got, close: () => new Promise((resolve) => server.close(resolve)) }
}

/** A URL nothing listens on: a port taken, then let go. */
async function deadUrl(): Promise<string> {
  const free = createServer()
  await new Promise<void>((resolve) => free.listen(0, '127.0.0.1', resolve))
  const url = `http://127.0.0.1:${(free.address() as AddressInfo).port}/hooks`
  await new Promise((resolve) => free.close(resolve))
  return url
}

async function listening(listen: ReturnType<typeof start>) {
  await until(() => listen.stdout().includes('listening:'), 10_000, 'listen to start')
}

async function stop(listen: ReturnType<typeof start>, signal: NodeJS.Signals) {
  listen.child.kill(signal)
  const stopped = await listen.done
  expect(stopped.stderr).toBe('')
  expect(stopped.code).toBe(0)
  return stopped.stdout
}

/**
 * `card-sandbox listen` as `npx card-sandbox listen` runs it: npm (here a node process with npm's
 * npm_lifecycle_event) → `sh -c` → the command. Resolves once it listens, with npm's process and
 * the command's pid (`echo $!`, the first line out).
 */
async function listenUnderNpm(sandbox: RunningSandbox) {
  const shell = `"${process.execPath}" "${CLI}" listen & echo $!; wait`
  const npm = spawn(
    process.execPath,
    [
      '-e',
      `require('node:child_process').spawn('sh', ['-c', ${JSON.stringify(shell)}], ` +
        `{ stdio: 'inherit' }); setInterval(() => {}, 1000)`,
    ],
    {
      env: {
        ...process.env,
        CARD_SANDBOX_URL: sandbox.url,
        CARD_SANDBOX_TOKEN: TOKEN,
        npm_lifecycle_event: 'npx',
      },
      stdio: ['ignore', 'pipe', 'pipe'],
    },
  )
  let output = ''
  npm.stdout.on('data', (chunk) => (output += chunk))
  npm.stderr.on('data', (chunk) => (output += chunk))
  const pid = () => Number(/^(\d+)\n/.exec(output)?.[1])
  try {
    await until(() => output.includes('listening:'), 10_000, 'listen to start')
  } catch (error) {
    npm.kill('SIGKILL')
    if (isRunning(pid())) process.kill(pid(), 'SIGKILL')
    throw error
  }
  return { npm, listen: pid(), output: () => output }
}

describe('on a sandbox without webhook flags', () => {
  let sandbox: RunningSandbox
  let client: SandboxClient
  beforeAll(async () => {
    sandbox = await startSandbox({ port: 0, clock: 'manual', seed: 7 })
    client = createSandboxClient({ baseUrl: sandbox.url, token: TOKEN })
  })
  afterAll(() => sandbox.close())
  beforeEach(async () => {
    await client.reset()
    await client.setWebhook({ url: null, secret: null })
  })

  it("keeps the team's own secret: its handler accepts every forwarded delivery, and exit puts URL and secret back", async () => {
    await client.setWebhook({ url: 'https://hooks.example.com/team', secret: TEAM_SECRET })
    const before = await client.webhook()
    expect(before).toEqual({
      url: 'https://hooks.example.com/team',
      secret: TEAM_SECRET,
      url_source: 'tenant',
      secret_source: 'tenant',
    })
    const handler = await teamHandler(TEAM_SECRET)
    const listen = start(sandbox, ['listen', '--forward-to', handler.url])
    try {
      await listening(listen)
      expect(listen.stdout()).toContain(
        `signed with the tenant's own secret ************0042, as before.`,
      )
      expect(await client.webhook()).toMatchObject({
        url: expect.stringMatching(/^http:\/\/127\.0\.0\.1:\d+\/webhooks$/),
        secret: TEAM_SECRET,
        secret_source: 'tenant',
      })
      await client.v1('POST', '/card-users/create', fullIdentity({ phone: '+221770000001' }))
      await client.v1('POST', '/card-users/create', fullIdentity({ phone: '+221770000002' }))
      await client.runUntilIdle()
      await until(() => handler.got.length === 2, 5_000, 'both forwarded deliveries')
      expect(handler.got.map((d) => d.verified)).toEqual([true, true])
      await until(
        () => listen.stdout().split(`${handler.url} answered 200`).length === 3,
        5_000,
        'two printed lines',
      )
    } finally {
      const stdout = await stop(listen, 'SIGINT')
      await handler.close()
      expect(stdout).toContain(
        "listening: stopped; the webhook URL is the tenant's own again (https://hooks.example.com/team)",
      )
    }
    expect(await client.webhook()).toEqual(before)
  })

  it('leaves the default secret (the token) a default, and unsets the URL again on SIGTERM', async () => {
    const before = await client.webhook()
    expect(before).toEqual({ url: null, secret: TOKEN, url_source: 'none', secret_source: 'token' })
    const handler = await teamHandler(TOKEN)
    const listen = start(sandbox, ['listen', '--forward-to', handler.url])
    try {
      await listening(listen)
      expect(listen.stdout()).toContain(
        'signed with the bearer token (the default secret) ************oken, as before.',
      )
      // not pinned: the tenant still has no secret of its own while listen runs
      expect((await client.webhook()).secret_source).toBe('token')
      await client.v1('POST', '/card-users/create', fullIdentity({ phone: '+221770000003' }))
      await client.runUntilIdle()
      await until(() => handler.got.length === 1, 5_000, 'the forwarded delivery')
      expect(handler.got[0].verified).toBe(true)
    } finally {
      const stdout = await stop(listen, 'SIGTERM')
      await handler.close()
      expect(stdout).toContain('listening: stopped; the webhook URL is unset again')
    }
    expect(await client.webhook()).toEqual(before)
  })

  it('started through npx, stops once npm is killed (SIGKILL) and puts URL and secret back as found', async () => {
    await client.setWebhook({ url: 'https://hooks.example.com/team', secret: TEAM_SECRET })
    const before = await client.webhook()
    const started = await listenUnderNpm(sandbox)
    try {
      expect((await client.webhook()).url).not.toBe(before.url)
      started.npm.kill('SIGKILL')
      await until(() => !isRunning(started.listen), 10_000, 'listen to stop')
    } finally {
      started.npm.kill('SIGKILL')
      if (isRunning(started.listen)) process.kill(started.listen, 'SIGKILL')
    }
    expect(started.output()).toContain(
      "listening: stopped (npm, which started it, has gone); the webhook URL is the tenant's own again (https://hooks.example.com/team)",
    )
    expect(await client.webhook()).toEqual(before)
  })

  it('says when the sandbox retries a delivery the handler refused, from its real schedule', async () => {
    const target = await deadUrl()
    const listen = start(sandbox, ['listen', '--forward-to', target])
    try {
      await listening(listen)
      await client.v1('POST', '/card-users/create', fullIdentity({ phone: '+221770000004' }))
      await client.runUntilIdle()
      const refused = (attempt: number) =>
        listen
          .stdout()
          .split('\n')
          .find((line) => line.includes(` attempt ${attempt}: signature ok, ${target} refused`))
      await until(() => refused(1) !== undefined, 5_000, 'the first refused attempt')
      const [event] = (await client.webhooks()).data
      const firstAt = Date.parse(event.attempts[0].at)
      expect(refused(1)).toBe(
        `card_user_verification.successful ${event.id} attempt 1: signature ok, ${target} ` +
          'refused the connection (ECONNREFUSED); the sandbox retries in 10 s of sandbox time, ' +
          `at ${new Date(firstAt + 10_000).toISOString()} (attempt 2 of 7)`,
      )
      await client.advanceClock('10s')
      await until(() => refused(2) !== undefined, 5_000, 'the second refused attempt')
      expect(refused(2)).toMatch(
        / attempt 2: .*; the sandbox retries in 1 min of sandbox time, at \S+ \(attempt 3 of 7\)$/,
      )
      // the rest of the schedule, to the last attempt
      for (const [by, attempt] of [
        ['1m', 3],
        ['5m', 4],
        ['30m', 5],
        ['2h', 6],
        ['6h', 7],
      ] as const) {
        await client.advanceClock(by)
        await until(() => refused(attempt) !== undefined, 5_000, `refused attempt ${attempt}`)
      }
      expect(refused(6)).toMatch(/retries in 6 h of sandbox time, at \S+ \(attempt 7 of 7\)$/)
      expect(refused(7)).toMatch(/; no retry left: the sandbox marks the event failed$/)
      // a replay starts a new round of attempts, numbered on
      await client.replayWebhook(event.id)
      await until(() => refused(8) !== undefined, 5_000, 'the replayed attempt')
      expect(refused(8)).toMatch(/retries in 10 s of sandbox time, at \S+ \(attempt 9 of 14\)$/)
    } finally {
      await stop(listen, 'SIGINT')
    }
  })
})

describe('on a sandbox started with --webhook-url and --webhook-secret', () => {
  let sandbox: RunningSandbox
  let client: SandboxClient
  const FLAG_SECRET = 'flag-secret-9876'
  beforeAll(async () => {
    sandbox = await startSandbox({
      port: 0,
      clock: 'manual',
      seed: 8,
      webhookUrl: 'https://hooks.example.com/default',
      webhookSecret: FLAG_SECRET,
    })
    client = createSandboxClient({ baseUrl: sandbox.url, token: TOKEN })
  })
  afterAll(() => sandbox.close())

  it('signs with the flag secret while listening, and leaves both defaults defaults after', async () => {
    const before = await client.webhook()
    expect(before).toEqual({
      url: 'https://hooks.example.com/default',
      secret: FLAG_SECRET,
      url_source: 'flag',
      secret_source: 'flag',
    })
    const handler = await teamHandler(FLAG_SECRET)
    const listen = start(sandbox, ['listen', '--forward-to', handler.url])
    try {
      await listening(listen)
      expect(listen.stdout()).toContain(
        'signed with the --webhook-secret default ************9876, as before.',
      )
      expect(await client.webhook()).toMatchObject({ url_source: 'tenant', secret_source: 'flag' })
      await client.v1('POST', '/card-users/create', fullIdentity({ phone: '+221770000005' }))
      await client.runUntilIdle()
      await until(() => handler.got.length === 1, 5_000, 'the forwarded delivery')
      expect(handler.got[0].verified).toBe(true)
    } finally {
      const stdout = await stop(listen, 'SIGINT')
      await handler.close()
      expect(stdout).toContain(
        'listening: stopped; the webhook URL is the --webhook-url default again (https://hooks.example.com/default)',
      )
    }
    expect(await client.webhook()).toEqual(before)
  })
})
