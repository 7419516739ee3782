/**
 * The commands of src/cli/commands run in this process: each command's `run(args, env)` imported
 * from src/ with stdout and stderr captured, against a sandbox on a real port. The same
 * commands as a person runs them (the built CLI, a child process) are in remote.test.ts and
 * test/cli/cli.test.ts; these reach the code in src/, so a mutation of it is seen (vitest.mutation.config.ts).
 */
import { spawn } from 'node:child_process'
import { existsSync, mkdirSync, readdirSync, writeFileSync } from 'node:fs'
import { createServer, type IncomingHttpHeaders, type Server } from 'node:http'
import type { AddressInfo } from 'node:net'
import { join } from 'node:path'
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest'
import { createSandboxClient, type SandboxClient } from '../../../src/clients/client.js'
import type { Command } from '../../../src/cli/commands/command.js'
import { readPidFile, removePidFile, writePidFile } from '../../../src/cli/commands/pid-file.js'
import { DEFAULT_URL, expectArgs, UsageError } from '../../../src/cli/commands/remote.js'
import {
  clockCommand,
  fixturesCommand,
  journalCommand,
  resetCommand,
  transitionCommand,
} from '../../../src/cli/commands/state.js'
import { stopCommand } from '../../../src/cli/commands/stop.js'
import { main } from '../../../src/cli/main.js'
import { listenCommand, triggerCommand } from '../../../src/cli/commands/webhooks.js'
import { verifySignature } from '../../../src/webhooks/sign.js'
import { isRunning } from '../../../src/lib/processes.js'
import { startSandbox, type RunningSandbox } from '../../../src/index.js'
import { until } from '../../webhooks/receiver.js'
import { interrupt, signalListeners, startRun } from './in-process.js'
import { tempDir } from '../../temp-dir.js'

const TOKEN = 'in-process-commands'

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

/**
 * Runs `command` with `args` as the CLI would (CARD_SANDBOX_URL and CARD_SANDBOX_TOKEN name the
 * sandbox unless `env` says otherwise); `live` sees the output as it is written.
 */
function start(command: Command, args: string[], env: NodeJS.ProcessEnv = {}) {
  return startRun((a, e) => command.run(a, e), args, {
    CARD_SANDBOX_URL: sandbox.url,
    CARD_SANDBOX_TOKEN: TOKEN,
    ...env,
  })
}

const run = (command: Command, args: string[], env?: NodeJS.ProcessEnv) =>
  start(command, args, env).done

const identity = {
  first_name: 'Awa',
  last_name: 'Diop',
  address: 'Dakar',
  phone: '+221770000001',
  email: 'a@example.com',
  id_no: '1',
  selfie_image: 'https://x.test/s.jpg',
  id_image: 'https://x.test/i.jpg',
  back_id_image: 'https://x.test/b.jpg',
}

/**
 * A card user passed by the control plane: a card_user_verification.successful event. (Not
 * through `trigger` while `listen` runs: one command's output is captured at a time.)
 */
async function verifiedUser() {
  const created = await client.v1('POST', '/card-users/create', identity)
  await client.transition('card-users', created.data.userCard.reference, 'passed')
}

/** The tenant's webhook events once the first has an attempt logged. */
async function attempted() {
  await until(
    async () => (await client.webhooks()).data[0]?.attempts.length > 0,
    5_000,
    'the attempt to be logged',
  )
  return (await client.webhooks()).data
}

/** A team's webhook handler on a free port: `answer` gives its status for each delivery. */
async function startHandler(answer: (body: string, headers: IncomingHttpHeaders) => number) {
  const server: Server = createServer((req, res) => {
    let body = ''
    req.on('data', (chunk) => (body += chunk))
    req.on('end', () => res.writeHead(answer(body, req.headers)).end())
  })
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/hooks`,
    close: () => server.close(),
  }
}

/** A URL nothing listens on: a port taken, then let go. */
async function deadUrl(): Promise<string> {
  const free = createServer()
  await new Promise<void>((resolve) => free.listen(0, '127.0.0.1', resolve))
  const url = `http://127.0.0.1:${(free.address() as AddressInfo).port}`
  await new Promise((resolve) => free.close(resolve))
  return url
}

describe('clock', () => {
  it('shows, advances, sets and runs until idle, printing each job that fired', async () => {
    expect(await run(clockCommand, [])).toEqual({
      code: 0,
      stdout: 'clock: manual 2026-01-01T00:00:00.000Z\n',
      stderr: '',
    })
    expect((await run(clockCommand, ['advance', '5m'])).stdout).toBe(
      'clock: manual 2026-01-01T00:05:00.000Z (0 jobs ran)\n',
    )
    expect((await run(clockCommand, ['set', '2026-02-01T00:00:00Z'])).stdout).toBe(
      'clock: manual 2026-02-01T00:00:00.000Z (0 jobs ran)\n',
    )
    const created = await client.v1('POST', '/card-users/create', identity)
    const user = created.data.userCard.reference
    expect((await run(clockCommand, ['run-due'])).stdout).toBe(
      `2026-02-01T00:00:03.000Z  card_user ${user} pending → passed (verified)\n` +
        'clock: manual 2026-02-01T00:00:03.000Z (1 jobs ran; idle)\n',
    )
  })

  it('runs due jobs only up to --until, and says so', async () => {
    const created = await client.v1('POST', '/card-users/create', identity)
    expect(created.data.userCard.reference).toBeTruthy()
    const stopped = await run(clockCommand, ['run-due', '--until', '2026-01-01T00:00:01Z'])
    expect(stopped).toEqual({
      code: 0,
      stdout:
        'clock: manual 2026-01-01T00:00:01.000Z (0 jobs ran; idle until 2026-01-01T00:00:01Z)\n',
      stderr: '',
    })
    expect((await client.clock()).now).toBe('2026-01-01T00:00:01.000Z')
  })

  it('shows the speed of a real clock', async () => {
    const real = await startSandbox({ port: 0, clock: 'real', speed: 60 })
    try {
      const shown = await run(clockCommand, [], { CARD_SANDBOX_URL: real.url })
      expect(shown.stdout).toMatch(/^clock: real \d{4}-\d\d-\d\dT[\d:.]+Z ×60\n$/)
    } finally {
      await real.close()
    }
  })

  it('refuses an unknown action (2), a missing or extra argument (2), a time in the past (1)', async () => {
    const unknown = await run(clockCommand, ['rewind'])
    expect(unknown).toEqual({
      code: 2,
      stdout: '',
      stderr:
        'card-sandbox clock: unknown clock action rewind (advance, set, run-due)\n' +
        "Run 'npx card-sandbox help clock'.\n",
    })
    const missing = await run(clockCommand, ['advance'])
    expect(missing.code).toBe(2)
    expect(missing.stderr).toMatch(/^card-sandbox clock: missing duration\n/)
    expect((await run(clockCommand, ['set'])).stderr).toMatch(/missing instant/)
    const extra = await run(clockCommand, ['run-due', 'now'])
    expect(extra.code).toBe(2)
    expect(extra.stderr).toMatch(/^card-sandbox clock: unexpected argument now\n/)
    const past = await run(clockCommand, ['set', '2020-01-01T00:00:00Z'])
    expect(past.code).toBe(1)
    expect(past.stderr).toMatch(
      /^card-sandbox clock: .*answered 422: The now field must not be before.*\n$/,
    )
    expect(past.stderr).not.toContain('help clock')
  })
})

describe('reset, transition, fixtures, journal', () => {
  it('moves a resource, and says why it cannot', async () => {
    const created = await client.v1('POST', '/card-users/create', { phone: '+221770000001' })
    const user = created.userCard.reference
    expect(await run(transitionCommand, ['card-users', user, 'passed'])).toEqual({
      code: 0,
      stdout: `card-users ${user}: pending → passed\n`,
      stderr: '',
    })
    const illegal = await run(transitionCommand, ['card-users', user, 'pending'])
    expect(illegal.code).toBe(1)
    expect(illegal.stderr).toMatch(/^card-sandbox transition: .*answered 409/)
    const unknown = await run(transitionCommand, ['wallets', user, 'x'])
    expect(unknown.code).toBe(2)
    expect(unknown.stderr).toMatch(
      /^card-sandbox transition: unknown resource wallets \(card-users, cards, transactions, payments, disburses, disputes\)\n/,
    )
    expect((await run(transitionCommand, ['cards'])).stderr).toMatch(/missing reference, state/)
    expect((await run(transitionCommand, [])).stderr).toMatch(
      /^card-sandbox transition: missing resource, reference, state\n/,
    )
  })

  it('moves each kind of resource it lists', async () => {
    await client.applyFixture({ name: 'verified-user-funded-card' })
    const cards = (await client.v1('GET', '/cards')).data as { reference: string }[]
    const moved = await run(transitionCommand, ['cards', cards[0].reference, 'frozen'])
    expect(moved.code, moved.stderr).toBe(0)
    expect(moved.stdout).toMatch(new RegExp(`^cards ${cards[0].reference}: \\w+ → frozen\\n$`))
  })

  it('lists and loads fixtures, resets, and prints the journal oldest first', async () => {
    const listed = await run(fixturesCommand, ['list'])
    const lines = listed.stdout.trimEnd().split('\n')
    expect(lines[0]).toMatch(/^business-every-state {9}Payments pending/)
    expect(lines.length).toBe((await client.fixtures()).length)
    expect((await run(fixturesCommand, [])).stdout).toBe(listed.stdout)
    expect(await run(fixturesCommand, ['load', 'verified-user-funded-card'])).toEqual({
      code: 0,
      stdout: 'fixtures: verified-user-funded-card loaded (9 steps)\n',
      stderr: '',
    })
    const journal = await run(journalCommand, [])
    const steps = journal.stdout
      .trim()
      .split('\n')
      .filter((line) => !/ \/__sandbox\/(webhook|fixtures)/.test(line))
    expect(steps[0]).toMatch(
      /^2026-01-01T00:00:00\.000Z {2}wall \S+ {2}POST {3}\/v1\/card-users\/create 200 [\d.]+ms$/,
    )
    expect(steps).toHaveLength(9)
    expect(await run(resetCommand, [])).toEqual({
      code: 0,
      stdout: expect.stringMatching(/^reset: the tenant starts over \(now .+\)\n$/),
      stderr: '',
    })
    expect((await client.v1('GET', '/cards')).data).toEqual([])
  })

  it('prints a request’s query string in the journal', async () => {
    await client.v1('GET', '/cards?per_page=5')
    const journal = await run(journalCommand, [])
    expect(journal.stdout).toMatch(/ GET {4}\/v1\/cards\?per_page=5 200 [\d.]+ms\n/)
  })

  it('refuses what fixtures, reset and journal do not take', async () => {
    const unknown = await run(fixturesCommand, ['apply'])
    expect(unknown.code).toBe(2)
    expect(unknown.stderr).toMatch(
      /^card-sandbox fixtures: unknown fixtures action apply \(list, load\)\n/,
    )
    expect((await run(fixturesCommand, ['list', 'x'])).stderr).toMatch(/unexpected argument x/)
    expect((await run(fixturesCommand, ['load'])).stderr).toMatch(/missing name/)
    const missing = await run(fixturesCommand, ['load', 'no-such-fixture'])
    expect(missing.code).toBe(1)
    expect(missing.stderr).toMatch(/^card-sandbox fixtures: .*no-such-fixture/)
    expect((await run(resetCommand, ['everything'])).code).toBe(2)
    expect((await run(journalCommand, ['x'])).stderr).toMatch(
      /^card-sandbox journal: unexpected argument x/,
    )
  })

  it('follows the journal with --tail, printing each request once, until Ctrl-C', async () => {
    const before = signalListeners()
    const tail = start(journalCommand, ['--tail'])
    await until(() => signalListeners().length > before.length, 5_000, 'tail to start')
    await client.v1('GET', '/cards')
    await until(() => tail.live.stdout.includes('/v1/cards '), 5_000, 'the tailed line')
    await new Promise((resolve) => setTimeout(resolve, 1_100)) // two more polls: nothing new
    interrupt(before)
    const { code, stdout } = await tail.done
    expect(code).toBe(0)
    expect(stdout.split('\n').filter((line) => line.includes('/v1/cards '))).toHaveLength(1)
    expect(signalListeners()).toEqual(before)
  })
})

describe('journal', () => {
  it('prints the newest hundred requests, not a first page of them', async () => {
    for (let i = 0; i < 30; i++) await client.v1('GET', `/cards?page=${i + 1}`)
    const journal = await run(journalCommand, [])
    const lines = journal.stdout.split('\n').filter((line) => line.includes('/v1/cards?page='))
    expect(lines).toHaveLength(30)
    expect(lines[0]).toContain('/v1/cards?page=1 ')
    expect(lines[29]).toContain('/v1/cards?page=30 ')
  })

  it('stops following on SIGTERM as on Ctrl-C', async () => {
    const before = signalListeners()
    const tail = start(journalCommand, ['--tail'])
    await until(() => signalListeners().length > before.length, 5_000, 'tail to start')
    interrupt(before, 'SIGTERM')
    expect((await tail.done).code).toBe(0)
  })
})

describe('journal --tail when the sandbox goes away', () => {
  it('says so, exits 1 and leaves no signal listener behind', async () => {
    const other = await startSandbox({ port: 0, clock: 'manual' })
    const before = signalListeners()
    const tail = start(journalCommand, ['--tail'], { CARD_SANDBOX_URL: other.url })
    try {
      await until(() => signalListeners().length > before.length, 5_000, 'tail to start')
      await other.close()
      const { code, stderr } = await tail.done
      expect(code).toBe(1)
      expect(stderr).toMatch(
        new RegExp(`^card-sandbox journal: no sandbox answers at ${other.url} \\([^)]+\\): `),
      )
      expect(signalListeners()).toEqual(before)
    } finally {
      interrupt(before)
    }
  })
})

describe('trigger and listen', () => {
  it('triggers each event it knows, and lists them for one it does not', async () => {
    const events = [
      'card_user_verification.successful',
      'card_user_verification.failed',
      'card_creation.successful',
      'card_creation.failed',
    ]
    for (const event of events) {
      const triggered = await run(triggerCommand, [event])
      expect(triggered.code, triggered.stderr).toBe(0)
      expect(triggered.stdout).toMatch(
        new RegExp(
          `^triggered ${event.replace('.', '\\.')} \\([\\w-]+\\); no webhook URL is set: run 'card-sandbox listen' to see it\\n$`,
        ),
      )
    }
    const fired = (await client.webhooks()).data.map((e) => e.type)
    expect([...new Set(fired)].sort()).toEqual(
      expect.arrayContaining([...events].sort()) as string[],
    )
    for (const event of events) expect(fired).toContain(event)
    // each trigger made its own resource reach that state
    const cards = (await client.v1('GET', '/cards')).data as { status: string }[]
    expect(cards.map((card) => card.status).sort()).toEqual(
      expect.arrayContaining(['failed', 'issued']) as string[],
    )
    const unknown = await run(triggerCommand, ['payment.success'])
    expect(unknown.code).toBe(2)
    expect(unknown.stderr).toBe(
      'card-sandbox trigger: no trigger for payment.success (events: card_user_verification.successful, card_user_verification.failed, card_creation.successful, card_creation.failed)\n' +
        "Run 'npx card-sandbox help trigger'.\n",
    )
    expect((await run(triggerCommand, [])).stderr).toMatch(/missing event/)
  })

  it('names where a triggered event is sent when a webhook URL is set', async () => {
    await client.setWebhook({ url: 'http://127.0.0.1:9/hooks' })
    const triggered = await run(triggerCommand, ['card_user_verification.failed'])
    expect(triggered.stdout).toMatch(/; sent to http:\/\/127\.0\.0\.1:9\/hooks\n$/)
  })

  it('listens, printing each delivery with its signature check, and takes its URL back off', async () => {
    const before = signalListeners()
    const listen = start(listenCommand, [])
    try {
      await until(() => listen.live.stdout.includes('listening:'), 5_000, 'listen to start')
      const { url } = await client.webhook()
      expect(listen.live.stdout).toBe(
        `listening: the tenant's webhooks now go to ${url}; signed with the bearer token (the default secret) ${'*'.repeat(TOKEN.length - 4)}${TOKEN.slice(-4)}, as before. Ctrl-C stops (and puts the webhook URL back).\n`,
      )
      await verifiedUser()
      await until(() => listen.live.stdout.includes('attempt 1'), 5_000, 'the printed line')
      expect(listen.live.stdout).toMatch(
        /\ncard_user_verification\.successful evt_\w+ attempt 1: signature ok, answered 200\n/,
      )
      // printed once: a verified delivery is not printed again as refused
      await new Promise((resolve) => setTimeout(resolve, 500))
      expect(listen.live.stdout.match(/card_user_verification\.successful/g)).toHaveLength(1)
      // a delivery whose signature does not match is printed as refused
      await fetch(url!, {
        method: 'POST',
        headers: { 'content-type': 'application/json', 'x-alal-signature': 'f'.repeat(128) },
        body: '{"event":"forged"}',
      })
      await until(() => listen.live.stdout.includes('forged'), 5_000, 'the forged line')
      expect(listen.live.stdout).toMatch(/\nforged \? attempt \?: BAD SIGNATURE, answered 401\n/)
      await fetch(url!, { method: 'POST', body: 'not json' })
      await until(() => listen.live.stdout.includes('(not JSON)'), 5_000, 'the non-JSON line')
      expect(listen.live.stdout).toMatch(
        /\n\(not JSON\) \? attempt \?: BAD SIGNATURE, answered 401\n/,
      )
    } finally {
      interrupt(before)
    }
    const { code, stdout } = await listen.done
    expect(code).toBe(0)
    expect(stdout).toMatch(/listening: stopped; the webhook URL is unset again\n$/)
    expect((await client.webhook()).url).toBeNull()
  })

  it('forwards each delivery as sent to a handler whose answer the sandbox gets', async () => {
    const got: { body: string; signature: string; type: string }[] = []
    const handler = await startHandler((body, headers) => {
      got.push({
        body,
        signature: String(headers['x-alal-signature']),
        type: String(headers['content-type']),
      })
      return got.length === 1 ? 500 : 204
    })
    const handlerUrl = handler.url
    const before = signalListeners()
    const listen = start(listenCommand, ['--forward-to', handlerUrl])
    try {
      await until(() => listen.live.stdout.includes('listening:'), 5_000, 'listen to start')
      expect(listen.live.stdout).toContain(`, forwarded to ${handlerUrl}; signed with`)
      await verifiedUser()
      await until(() => got.length === 1, 5_000, 'the forwarded delivery')
      expect(verifySignature(got[0].body, got[0].signature, TOKEN)).toBe(true)
      expect(got[0].type).toBe('application/json')
      await until(
        () => listen.live.stdout.includes(`${handlerUrl} answered 500`),
        5_000,
        'the printed line',
      )
      expect(listen.live.stdout).toMatch(
        /card_user_verification\.successful evt_\w+ attempt 1: signature ok, http:\S+ answered 500; the sandbox retries in 10 s of sandbox time, at \S+ \(attempt 2 of 7\)\n/,
      )
      // the handler's 500 reached the sandbox: the event waits for its retry, then gets the 204
      const [event] = await attempted()
      expect(event.attempts[0].status_code).toBe(500)
      await client.advanceClock('10s')
      await until(() => got.length === 2, 5_000, 'the retry')
      await until(() => listen.live.stdout.includes('answered 204'), 5_000, 'the retry line')
      expect(listen.live.stdout).toMatch(/ attempt 2: signature ok, http:\S+ answered 204\n/)
    } finally {
      interrupt(before)
      handler.close()
    }
    expect((await listen.done).code).toBe(0)
  })

  it.each([
    ["the tenant's own secret with the default URL", { url: null, secret: 'team-secret-0042' }],
    ["the tenant's own URL with the default secret", { url: 'http://127.0.0.1:9/mine' }],
  ])('keeps %s: each delivery verifies, and exit puts both back', async (_, endpoint) => {
    await client.setWebhook(endpoint)
    const found = await client.webhook()
    expect([found.url_source, found.secret_source]).toEqual(
      endpoint.url === null ? ['none', 'tenant'] : ['tenant', 'token'],
    )
    // the team's handler checks with the secret it knows: the one the tenant signs with
    const verified: boolean[] = []
    const handler = await startHandler((body, headers) => {
      verified.push(verifySignature(body, headers['x-alal-signature'], found.secret!))
      return 200
    })
    const handlerUrl = handler.url
    const before = signalListeners()
    const listen = start(listenCommand, ['--forward-to', handlerUrl])
    try {
      await until(() => listen.live.stdout.includes('listening:'), 5_000, 'listen to start')
      await verifiedUser()
      const printed = () => /attempt 1: (signature ok|BAD SIGNATURE)/.exec(listen.live.stdout)
      await until(() => printed() !== null, 5_000, 'the delivery line')
      expect(printed()?.[1]).toBe('signature ok')
      await until(() => verified.length === 1, 5_000, 'the forwarded delivery')
      expect(verified).toEqual([true])
    } finally {
      interrupt(before)
      handler.close()
    }
    expect((await listen.done).code).toBe(0)
    expect(await client.webhook()).toEqual(found)
  })

  it('answers the sandbox 502 when the handler cannot be reached, saying why', async () => {
    const dead = await deadUrl()
    const before = signalListeners()
    const listen = start(listenCommand, ['--forward-to', `${dead}/hooks`])
    try {
      await until(() => listen.live.stdout.includes('listening:'), 5_000, 'listen to start')
      await verifiedUser()
      await until(() => listen.live.stdout.includes('ECONNREFUSED'), 5_000, 'the printed line')
      expect(listen.live.stdout).toContain(`${dead}/hooks refused the connection (ECONNREFUSED);`)
      const [event] = await attempted()
      expect(event.attempts[0].status_code).toBe(502)
    } finally {
      interrupt(before, 'SIGTERM') // as Ctrl-C
    }
    expect((await listen.done).stdout).toMatch(
      /listening: stopped; the webhook URL is unset again\n$/,
    )
  })

  it('refuses a --forward-to that is not an http(s) URL, before touching the webhook', async () => {
    await client.setWebhook({ url: 'http://127.0.0.1:9/mine' })
    const refused = await run(listenCommand, ['--forward-to', 'localhost:3000'])
    expect(refused.code).toBe(2)
    expect(refused.stderr).toMatch(
      /^card-sandbox listen: --forward-to must be an http\(s\) URL \(got "localhost:3000"\)\n/,
    )
    expect((await client.webhook()).url).toBe('http://127.0.0.1:9/mine')
    for (const url of ['xhttp://127.0.0.1:3000/hooks', 'http://127.0.0.1:3000/hooks x']) {
      const lookalike = await run(listenCommand, ['--forward-to', url])
      expect(lookalike.code, url).toBe(2)
      expect(lookalike.stderr, url).toContain('--forward-to must be an http(s) URL')
    }
    expect((await run(listenCommand, ['now'])).code).toBe(2)
  })
})

describe('where the sandbox is and which tenant', () => {
  it('takes --url and --token before CARD_SANDBOX_URL and CARD_SANDBOX_TOKEN', async () => {
    const other = createSandboxClient({ baseUrl: sandbox.url, token: 'flagged-tenant' })
    await other.advanceClock('1h')
    const flagged = await run(clockCommand, ['--url', sandbox.url, '--token', 'flagged-tenant'], {
      CARD_SANDBOX_URL: await deadUrl(),
    })
    expect(flagged.stdout).toBe('clock: manual 2026-01-01T01:00:00.000Z\n')
    expect((await run(clockCommand, [])).stdout).toBe('clock: manual 2026-01-01T00:00:00.000Z\n')
  })

  it('says which URL it tried when nothing answers there (1)', async () => {
    const url = await deadUrl()
    const gone = await run(clockCommand, [], { CARD_SANDBOX_URL: url })
    expect(gone).toEqual({
      code: 1,
      stdout: '',
      stderr: `card-sandbox clock: no sandbox answers at ${url} (ECONNREFUSED): start one with 'npx card-sandbox', or name the running one with --url or CARD_SANDBOX_URL\n`,
    })
    const flagged = await run(resetCommand, ['--url', url, '--token', 't'], {
      CARD_SANDBOX_URL: sandbox.url,
    })
    expect(flagged.stderr).toContain(`no sandbox answers at ${url} (ECONNREFUSED)`)
  })

  it('does not call a server that answers, but is no sandbox, absent', async () => {
    const stranger = createServer((_, res) => res.writeHead(200).end('<html>not a sandbox</html>'))
    await new Promise<void>((resolve) => stranger.listen(0, '127.0.0.1', resolve))
    const url = `http://127.0.0.1:${(stranger.address() as AddressInfo).port}`
    try {
      const answered = await run(clockCommand, [], { CARD_SANDBOX_URL: url }).catch(
        (error: Error) => ({ code: -1, stdout: '', stderr: String(error) }),
      )
      expect(answered.code).not.toBe(0)
      expect(answered.stderr).not.toContain('no sandbox answers')
    } finally {
      stranger.close()
    }
  })

  it('tries the default URL when none is given', async () => {
    const tried = await run(clockCommand, [], { CARD_SANDBOX_URL: '' })
    // a sandbox may or may not run there; either it answers or the line names the default
    if (tried.code !== 0) expect(tried.stderr).toContain(`no sandbox answers at ${DEFAULT_URL} (`)
    expect(DEFAULT_URL).toBe('http://127.0.0.1:4010')
  })

  it('asks for a token, an http(s) URL and known options, each a usage error (2)', async () => {
    const tokenless = await run(clockCommand, [], { CARD_SANDBOX_TOKEN: '' })
    expect(tokenless).toEqual({
      code: 2,
      stdout: '',
      stderr:
        'card-sandbox clock: needs the bearer token of the tenant to act on: --token <token> or CARD_SANDBOX_TOKEN\n' +
        "Run 'npx card-sandbox help clock'.\n",
    })
    const ftp = await run(clockCommand, ['--url', 'ftp://127.0.0.1:4010'])
    expect(ftp.code).toBe(2)
    expect(ftp.stderr).toMatch(
      /^card-sandbox clock: --url must be an http\(s\) URL \(got "ftp:\/\/127\.0\.0\.1:4010"\)\n/,
    )
    expect((await run(clockCommand, ['--url', 'not a url'])).code).toBe(2)
    const lookalike = await run(clockCommand, ['--url', 'xhttp://127.0.0.1:4010'])
    expect(lookalike.code).toBe(2)
    expect(lookalike.stderr).toContain('--url must be an http(s) URL')
    const option = await run(resetCommand, ['--force'])
    expect(option.code).toBe(2)
    expect(option.stderr).toMatch(/^card-sandbox reset: .*--force/)
    expect(option.stderr).toMatch(/Run 'npx card-sandbox help reset'\.\n$/)
  })

  it('expects the positional arguments it names', () => {
    expect(expectArgs(['a', 'b'], ['x', 'y'])).toEqual(['a', 'b'])
    expect(() => expectArgs(['a'], ['x', 'y', 'z'])).toThrow(new UsageError('missing y, z'))
    expect(() => expectArgs(['a', 'b'], ['x'])).toThrow(new UsageError('unexpected argument b'))
    expect(expectArgs(['a', 'b'], ['x'], true)).toEqual(['a', 'b'])
  })
})

describe('stop and the pid file', () => {
  /** A process that runs until told to stop, and its pid file. */
  async function background(dir: string) {
    const child = spawn(process.execPath, ['-e', 'setInterval(() => {}, 1000)'], {
      stdio: 'ignore',
    })
    await new Promise((resolve) => child.once('spawn', resolve))
    const file = join(dir, 'sandbox.pid')
    writeFileSync(file, `${child.pid}\n`)
    return { child, file, pid: child.pid! }
  }

  it('stops the process of the pid file with SIGTERM and waits until it is gone', async () => {
    const dir = tempDir()
    const { child, file, pid } = await background(dir)
    const exited = new Promise((resolve) => child.once('exit', (_, signal) => resolve(signal)))
    const stopped = await run(stopCommand, ['--pid-file', file])
    expect(stopped).toEqual({
      code: 0,
      stdout: `card-sandbox: stopped the sandbox of ${file} (pid ${pid})\n`,
      stderr: '',
    })
    expect(await exited).toBe('SIGTERM')
    expect(isRunning(pid)).toBe(false)
    // the process (not a sandbox) left its file: stop removed it
    expect(existsSync(file)).toBe(false)
  })

  it('reads the pid file from CARD_SANDBOX_PID_FILE, the flag first', async () => {
    const dir = tempDir()
    const { file, pid } = await background(dir)
    const stopped = await run(stopCommand, [], { CARD_SANDBOX_PID_FILE: file })
    expect(stopped.stdout).toBe(`card-sandbox: stopped the sandbox of ${file} (pid ${pid})\n`)
    const missing = join(dir, 'missing.pid')
    const flagFirst = await run(stopCommand, ['--pid-file', missing], {
      CARD_SANDBOX_PID_FILE: file,
    })
    expect(flagFirst.stderr).toBe(`card-sandbox: no sandbox to stop: ${missing} does not exist\n`)
  })

  it('says why there is nothing to stop (1), and what it needs (2)', async () => {
    const dir = tempDir()
    expect(await run(stopCommand, [])).toEqual({
      code: 2,
      stdout: '',
      stderr:
        'card-sandbox: stop needs --pid-file <file> (or CARD_SANDBOX_PID_FILE): the file the sandbox was started with\n',
    })
    const unknown = await run(stopCommand, ['--pid', '1'])
    expect(unknown.code).toBe(2)
    expect(unknown.stderr).toMatch(
      /^card-sandbox: .*--pid.*\nRun 'npx card-sandbox help stop'\.\n$/,
    )
    expect((await run(stopCommand, ['--pid-file', 'a', 'extra'])).code).toBe(2)

    const missing = join(dir, 'missing.pid')
    expect(await run(stopCommand, ['--pid-file', missing])).toEqual({
      code: 1,
      stdout: '',
      stderr: `card-sandbox: no sandbox to stop: ${missing} does not exist\n`,
    })
    const invalid = join(dir, 'invalid.pid')
    writeFileSync(invalid, 'not a pid\n')
    expect((await run(stopCommand, ['--pid-file', invalid])).stderr).toBe(
      `card-sandbox: no sandbox to stop: ${invalid} holds no process id\n`,
    )
    expect(existsSync(invalid)).toBe(true)

    const { child, file, pid } = await background(dir)
    child.kill('SIGKILL')
    await until(() => !isRunning(pid), 5_000, 'the process to end')
    const stale = await run(stopCommand, ['--pid-file', file])
    expect(stale).toEqual({
      code: 1,
      stdout: '',
      stderr: `card-sandbox: no sandbox to stop: process ${pid} of ${file} is not running (stale file removed)\n`,
    })
    expect(existsSync(file)).toBe(false)
  })

  it('writes this process’s pid whole, reads it back as running, and removes only its own', () => {
    const dir = tempDir()
    const file = join(dir, 'own.pid')
    expect(readPidFile(file)).toEqual({ state: 'missing' })
    const remove = writePidFile(file)
    expect(readPidFile(file)).toEqual({ state: 'running', pid: process.pid })
    remove()
    expect(existsSync(file)).toBe(false)
    remove() // already gone: nothing thrown

    // a file another process wrote over is left alone
    const again = writePidFile(file)
    writeFileSync(file, '1\n')
    again()
    expect(existsSync(file)).toBe(true)
    removePidFile(file)
    expect(existsSync(file)).toBe(false)
    removePidFile(file)

    for (const text of ['', '12x\n', '-3\n', ' 4\n']) {
      writeFileSync(file, text)
      expect(readPidFile(file), JSON.stringify(text)).toEqual({ state: 'invalid' })
    }
    writeFileSync(file, '7 \n')
    expect(readPidFile(file).state).not.toBe('invalid')
    // what is not a missing file is said, not taken for one
    expect(() => readPidFile(dir)).toThrow(/EISDIR/)
    // a pid file that cannot be written leaves nothing behind
    expect(() => writePidFile(join(dir, 'no-such-dir', 'x.pid'))).toThrow(/ENOENT.*open/)
    // one that cannot take the place of what is there (a directory) leaves no file aside
    const occupied = join(dir, 'occupied')
    mkdirSync(join(occupied, 'inside'), { recursive: true })
    expect(() => writePidFile(occupied)).toThrow()
    expect(readdirSync(dir).filter((name) => name.endsWith('.tmp'))).toEqual([])
  })

  it('counts a pid whose process began after the file was written as stale (reused)', async () => {
    const dir = tempDir()
    const file = join(dir, 'old.pid')
    writeFileSync(file, `${process.pid}\n`)
    expect(readPidFile(file)).toEqual({ state: 'running', pid: process.pid })
    // a file from long before this process started: its pid now names another program
    const { utimesSync } = await import('node:fs')
    const longAgo = new Date(Date.now() - 24 * 3600_000)
    utimesSync(file, longAgo, longAgo)
    expect(readPidFile(file)).toEqual({ state: 'stale', pid: process.pid })
  })
})

describe('each command’s help', () => {
  // a table row wrapped onto lines of its own (deeper indented) read as one line
  const helpOf = async (name: string) =>
    (await run({ run: main } as unknown as Command, ['help', name])).stdout.replace(/\n {3,}/g, ' ')

  it('lists every command with its usage and what it does', async () => {
    const help = await helpOf('')
    for (const line of [
      /^ {2}stop \[--pid-file <file>\]\s*stop the sandbox started with --pid-file <file>, and wait until it is gone$/m,
      /^ {2}reset\s*empty the tenant: every resource, job and event$/m,
      /^ {2}clock \[advance <duration> \| set <ISO> \| run-due \[--until <ISO>\]\]\s*show the tenant's clock, move it, or run until idle$/m,
      /^ {2}transition <resource> <reference> <state>\s*move a resource to a state \(resources: card-users, cards, transactions, payments, disburses, disputes\)$/m,
      /^ {2}trigger <event>\s*create what an event needs and make it fire \(card_user_verification\.successful, card_user_verification\.failed, card_creation\.successful, card_creation\.failed\)$/m,
      /^ {2}listen \[--forward-to <url>\]\s*receive the tenant's webhooks here, printing each \(and forwarding\), until Ctrl-C$/m,
      /^ {2}fixtures list \| fixtures load <name>\s*list the fixtures, or load one into the tenant \(all or nothing\)$/m,
      /^ {2}journal \[--tail\]\s*the tenant's last requests, oldest first; --tail follows new ones until Ctrl-C$/m,
    ])
      expect(help).toMatch(line)
  })

  it('gives each command that drives a sandbox its own flags and --url, --token with their variables', async () => {
    const own: Record<string, RegExp[]> = {
      clock: [/^ {2}--until <ISO> +run-due: stop before the jobs due after this instant$/m],
      journal: [/^ {2}--tail +keep printing requests as they arrive$/m],
      listen: [
        /^ {2}--forward-to <url> +also post each delivery, bytes and headers as sent, to your handler; the sandbox gets its answer$/m,
      ],
      reset: [],
      transition: [],
      trigger: [],
      fixtures: [],
    }
    for (const [name, lines] of Object.entries(own)) {
      const help = await helpOf(name)
      expect(help, name).toMatch(new RegExp(`^Usage: npx card-sandbox ${name}`))
      for (const line of lines) expect(help, name).toMatch(line)
      expect(help, name).toMatch(
        /^ {2}--url <url> +the running sandbox \(default http:\/\/127\.0\.0\.1:4010\) env CARD_SANDBOX_URL$/m,
      )
      expect(help, name).toMatch(
        /^ {2}--token <token> +the bearer token of the tenant to act on env CARD_SANDBOX_TOKEN$/m,
      )
    }
    const stop = await helpOf('stop')
    expect(stop).toMatch(
      /^ {2}--pid-file <file> +the file the sandbox was started with env CARD_SANDBOX_PID_FILE$/m,
    )
    expect(stop).not.toContain('--url')
  })
})
