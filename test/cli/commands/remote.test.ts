/**
 * The commands that drive a running sandbox (src/cli/commands/state.ts, webhooks.ts, remote.ts): the
 * built CLI as a person runs it, against a sandbox on a real port. `npm test` builds dist/ first.
 */
import { createServer, type Server } from 'node:http'
import type { AddressInfo } from 'node:net'
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest'
import { createSandboxClient, type SandboxClient } from '../../../src/clients/client.js'
import { startSandbox, type RunningSandbox } from '../../../src/server/sandbox.js'
import { verifySignature } from '../../../src/webhooks/sign.js'
import { until } from '../../webhooks/receiver.js'
import { startCli } from './cli-process.js'

const TOKEN = 'cli-commands'

let sandbox: RunningSandbox
let client: SandboxClient

beforeAll(async () => {
  sandbox = await startSandbox({ port: 0, clock: 'manual', seed: 9 })
  client = createSandboxClient({ baseUrl: sandbox.url, token: TOKEN })
})
afterAll(() => sandbox.close())
beforeEach(async () => {
  await client.reset()
  await client.setWebhook({ url: null, secret: null })
})

/** Starts `card-sandbox <args>` against the sandbox (CARD_SANDBOX_URL, CARD_SANDBOX_TOKEN). */
function start(args: string[], env: Record<string, string> = {}) {
  return startCli(sandbox.url, TOKEN, args, env)
}

const run = (args: string[], env?: Record<string, string>) => start(args, env).done

describe('clock', () => {
  it('shows, advances, sets and runs until idle, printing what fired', async () => {
    expect((await run(['clock'])).stdout).toBe('clock: manual 2026-01-01T00:00:00.000Z\n')
    expect((await run(['clock', 'advance', '5m'])).stdout).toBe(
      'clock: manual 2026-01-01T00:05:00.000Z (0 jobs ran)\n',
    )
    expect((await run(['clock', 'set', '2026-02-01T00:00:00Z'])).stdout).toBe(
      'clock: manual 2026-02-01T00:00:00.000Z (0 jobs ran)\n',
    )
    const created = await client.v1('POST', '/card-users/create', {
      first_name: 'Awa',
      last_name: 'Diop',
      address: 'Dakar',
      phone: '+221770000001',
      email: 'a@example.com',
      id_no: '1',
      selfie_image: 'https://x.test/s.jpg',
      id_image: 'https://x.test/i.jpg',
      back_id_image: 'https://x.test/b.jpg',
    })
    const user = created.data.userCard.reference
    const idle = await run(['clock', 'run-due'])
    expect(idle.stdout).toBe(
      `2026-02-01T00:00:03.000Z  card_user ${user} pending → passed (verified)\n` +
        'clock: manual 2026-02-01T00:00:03.000Z (1 jobs ran; idle)\n',
    )
  })

  it('refuses an unknown action or a time in the past, with the exit code of each', async () => {
    const unknown = await run(['clock', 'rewind'])
    expect(unknown.code).toBe(2)
    expect(unknown.stderr).toMatch(/^card-sandbox clock: unknown clock action rewind/)
    const past = await run(['clock', 'set', '2020-01-01T00:00:00Z'])
    expect(past.code).toBe(1)
    expect(past.stderr).toMatch(/answered 422: The now field must not be before/)
  })
})

describe('reset, transition, fixtures, journal', () => {
  it('moves a resource, and says why it cannot', async () => {
    const created = await client.v1('POST', '/card-users/create', { phone: '+221770000001' })
    const user = created.userCard.reference
    const moved = await run(['transition', 'card-users', user, 'passed'])
    expect(moved).toMatchObject({ code: 0, stdout: `card-users ${user}: pending → passed\n` })
    const illegal = await run(['transition', 'card-users', user, 'pending'])
    expect(illegal.code).toBe(1)
    expect(illegal.stderr).toMatch(/answered 409/)
    const unknown = await run(['transition', 'wallets', user, 'x'])
    expect(unknown.code).toBe(2)
    expect((await run(['transition', 'cards'])).stderr).toMatch(/missing reference, state/)
  })

  it('lists and loads fixtures, resets, and prints the journal', async () => {
    const listed = await run(['fixtures', 'list'])
    expect(listed.stdout.split('\n')[0]).toMatch(/^business-every-state\s+Payments pending/)
    expect((await run(['fixtures', 'load', 'verified-user-funded-card'])).stdout).toBe(
      'fixtures: verified-user-funded-card loaded (9 steps)\n',
    )
    const journal = await run(['journal'])
    // the fixture's nine steps, oldest first, among the calls to /__sandbox/webhook and fixtures
    const lines = journal.stdout
      .trim()
      .split('\n')
      .filter((line) => !/ \/__sandbox\/(webhook|fixtures) /.test(line))
    expect(lines[0]).toMatch(
      /^2026-01-01T00:00:00\.000Z {2}wall \S+ {2}POST {3}\/v1\/card-users\/create 200 /,
    )
    expect(lines).toHaveLength(9)
    expect((await run(['reset'])).stdout).toMatch(/^reset: the tenant starts over/)
    expect((await client.v1('GET', '/cards')).data).toEqual([])
  })

  it('shows the wall time beside the sandbox time, which a manual clock holds still', async () => {
    const before = Date.now()
    await client.v1('GET', '/cards?per_page=5')
    await new Promise((resolve) => setTimeout(resolve, 50))
    await client.v1('GET', '/card-users')
    const after = Date.now()
    // the beforeEach's PUT /__sandbox/webhook comes first
    const lines = (await run(['journal'])).stdout
      .trim()
      .split('\n')
      .filter((line) => line.includes(' /v1/'))
    const shown = lines.map((line) =>
      line.match(/^(\S+) {2}wall (\S+) {2}GET {4}(\S+) 200 [\d.]+ms$/),
    )
    expect(shown.map((match) => match?.[3])).toEqual(['/v1/cards?per_page=5', '/v1/card-users'])
    const [first, second] = shown.map((match) => ({
      sandbox: match![1],
      wall: Date.parse(match![2]),
    }))
    expect(first.sandbox).toBe('2026-01-01T00:00:00.000Z')
    expect(second.sandbox).toBe(first.sandbox)
    expect(first.wall).toBeGreaterThanOrEqual(before)
    expect(second.wall - first.wall).toBeGreaterThanOrEqual(50)
    expect(second.wall).toBeLessThanOrEqual(after)
  })

  it('follows the journal with --tail until Ctrl-C', async () => {
    const tail = start(['journal', '--tail'])
    await new Promise((resolve) => setTimeout(resolve, 300))
    await client.v1('GET', '/cards')
    await until(() => tail.stdout().includes('/v1/cards'), 5_000, 'the tailed line')
    tail.child.kill('SIGINT')
    const { code, stdout } = await tail.done
    expect(code).toBe(0)
    expect(stdout.split('\n').filter((line) => line.includes('/v1/cards'))).toHaveLength(1)
  })
})

describe('trigger and listen', () => {
  it('triggers each event it knows, and lists them for one it does not', async () => {
    for (const event of [
      'card_user_verification.successful',
      'card_user_verification.failed',
      'card_creation.successful',
      'card_creation.failed',
    ]) {
      const triggered = await run(['trigger', event])
      expect(triggered.stdout).toMatch(new RegExp(`^triggered ${event.replace('.', '\\.')} \\(`))
    }
    const types = (await client.webhooks()).data.map((e) => e.type)
    expect(types).toEqual(
      expect.arrayContaining([
        'card_user_verification.successful',
        'card_user_verification.failed',
        'card_creation.successful',
        'card_creation.failed',
      ]),
    )
    const unknown = await run(['trigger', 'payment.success'])
    expect(unknown.code).toBe(2)
    expect(unknown.stderr).toMatch(
      /no trigger for payment\.success \(events: card_user_verification/,
    )
  })

  it('listens, forwarding each delivery as sent to a handler whose answer the sandbox gets', async () => {
    const got: { body: string; signature: string }[] = []
    const handler: Server = createServer((req, res) => {
      let body = ''
      req.on('data', (chunk) => (body += chunk))
      req.on('end', () => {
        got.push({ body, signature: String(req.headers['x-alal-signature']) })
        res.writeHead(got.length === 1 ? 500 : 204).end()
      })
    })
    await new Promise<void>((resolve) => handler.listen(0, '127.0.0.1', resolve))
    const handlerUrl = `http://127.0.0.1:${(handler.address() as AddressInfo).port}/hooks`
    const listen = start(['listen', '--forward-to', handlerUrl])
    try {
      await until(() => listen.stdout().includes('listening:'), 5_000, 'listen to start')
      expect((await client.webhook()).url).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/webhooks$/)
      await run(['trigger', 'card_user_verification.successful'])
      await until(() => got.length === 1, 5_000, 'the forwarded delivery')
      expect(verifySignature(got[0].body, got[0].signature, TOKEN)).toBe(true)
      await until(
        () => listen.stdout().includes(`${handlerUrl} answered 500`),
        5_000,
        'the printed line',
      )
      expect(listen.stdout()).toMatch(
        /card_user_verification\.successful evt_\w+ attempt 1: signature ok, .* answered 500/,
      )
      // the handler's 500 reached the sandbox: the event waits for its retry
      await sandbox.deps.deliverer.idle()
      const [event] = (await client.webhooks()).data
      expect(event.attempts[0].status_code).toBe(500)
      await client.advanceClock('10s')
      await until(() => got.length === 2, 5_000, 'the retry')
    } finally {
      listen.child.kill('SIGINT')
      const { code, stdout } = await listen.done
      handler.close()
      expect(code).toBe(0)
      expect(stdout).toContain('listening: stopped; the webhook URL is unset')
    }
    expect((await client.webhook()).url).toBeNull()
  })
})

describe('a sandbox that is not there', () => {
  it('says which URL it tried, and asks for a token when none is given', async () => {
    // a port nothing listens on: taken, then let go
    const free = createServer()
    await new Promise<void>((resolve) => free.listen(0, '127.0.0.1', resolve))
    const url = `http://127.0.0.1:${(free.address() as AddressInfo).port}`
    await new Promise((resolve) => free.close(resolve))
    const gone = await run(['clock'], { CARD_SANDBOX_URL: url })
    expect(gone.code).toBe(1)
    expect(gone.stderr).toBe(
      `card-sandbox clock: no sandbox answers at ${url} (ECONNREFUSED): start one with 'npx card-sandbox', or name the running one with --url or CARD_SANDBOX_URL\n`,
    )
    const flagged = await run(['reset', '--url', url, '--token', 't'])
    expect(flagged.stderr).toContain(`no sandbox answers at ${url} (ECONNREFUSED)`)
    const tokenless = await run(['clock'], { CARD_SANDBOX_TOKEN: '' })
    expect(tokenless.code).toBe(2)
    expect(tokenless.stderr).toMatch(/--token <token> or CARD_SANDBOX_TOKEN/)
  })
})
