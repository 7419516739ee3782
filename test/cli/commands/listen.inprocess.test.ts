/**
 * `card-sandbox listen` (and `trigger`'s made-up card user) run in this process: the command's
 * `run(args, env)` imported from src/ with its output captured (in-process.ts), against real
 * sandboxes on real ports, forwarding to real handlers. The built CLI's own tests of the same
 * command are in listen.test.ts; these reach the code in src/, so a mutation of it is seen
 * (vitest.mutation.config.ts). commands.inprocess.test.ts has the first ones (printing, a
 * forward and its retry, the default secret, a refused --forward-to).
 */
import { createServer, type Server } from 'node:http'
import type { AddressInfo } from 'node:net'
import { afterAll, beforeAll, beforeEach, describe, expect, it, vi } from 'vitest'
import { createSandboxClient, type SandboxClient } from '../../../src/clients/client.js'
import { listenCommand, triggerCommand } from '../../../src/cli/commands/webhooks.js'
import {
  ATTEMPT_HEADER,
  EVENT_ID_HEADER,
  signPayload,
  verifySignature,
} from '../../../src/webhooks/sign.js'
import { startSandbox, type RunningSandbox } from '../../../src/index.js'
import { startReceiver, until } from '../../webhooks/receiver.js'
import { interrupt, signalListeners, startRun } from './in-process.js'

const TOKEN = 'in-process-listen'
const TEAM_SECRET = 'team-secret-0042'

let sandbox: RunningSandbox
let client: SandboxClient

beforeAll(async () => {
  sandbox = await startSandbox({ port: 0, clock: 'manual', seed: 11 })
  client = createSandboxClient({ baseUrl: sandbox.url, token: TOKEN })
})
afterAll(() => sandbox.close())
beforeEach(async () => {
  await client.reset()
  await client.setWebhook({ url: null, secret: null })
  await client.clearRequests()
})

/**
 * `listen <args>` against `on` (CARD_SANDBOX_URL and CARD_SANDBOX_TOKEN unless `env` says
 * otherwise), resolved once it listens: its output as printed, where the tenant's webhooks now
 * go, `stop(signal)` (the signal's listener it added, then its code and whole output).
 */
async function listen(
  args: string[],
  { on = sandbox, env = {} }: { on?: RunningSandbox; env?: NodeJS.ProcessEnv } = {},
) {
  const before = signalListeners()
  const run = startRun((a, e) => listenCommand.run(a, e), args, {
    CARD_SANDBOX_URL: on.url,
    CARD_SANDBOX_TOKEN: TOKEN,
    ...env,
  })
  const started = await Promise.race([
    until(() => run.live.stdout.includes('listening:'), 5_000, 'listen to start').then(() => true),
    run.done.then(() => false),
  ])
  if (!started) throw new Error(`listen ended before listening: ${(await run.done).stderr}`)
  const receiverUrl = /go to (\S+?)[,;]/.exec(run.live.stdout)![1]
  let stopped = false
  const stop = (signal: 'SIGINT' | 'SIGTERM' = 'SIGINT') => {
    if (!stopped) interrupt(before, signal)
    stopped = true
    return run.done
  }
  /** The printed line of `id`'s attempt `attempt`, once printed. */
  const line = async (id: string, attempt: number | string, ms = 5_000) => {
    const find = () =>
      run.live.stdout.split('\n').find((l) => l.includes(` ${id} attempt ${attempt}: `))
    await until(() => find() !== undefined, ms, `the line of ${id} attempt ${attempt}`)
    return find()!
  }
  return { live: run.live, receiverUrl, stop, line, before }
}

const identity = (phone: string) => ({
  first_name: 'Awa',
  last_name: 'Diop',
  address: 'Dakar',
  phone,
  email: 'a@example.com',
  id_no: '1',
  selfie_image: 'https://x.test/s.jpg',
  id_image: 'https://x.test/i.jpg',
  back_id_image: 'https://x.test/b.jpg',
})

/** A card user passed by the control plane: one card_user_verification.successful event, its id. */
async function verifiedUser(on: SandboxClient = client, phone = '+221770000001') {
  const created = await on.v1('POST', '/card-users/create', identity(phone))
  const reference = created.data.userCard.reference as string
  await on.transition('card-users', reference, 'passed')
  let id: string | undefined
  await until(
    async () => {
      id = (await on.webhooks({ per_page: 100 })).data.find((e) => e.body.includes(reference))?.id
      return id !== undefined
    },
    5_000,
    'the event',
  )
  return id!
}

/** The bodies of the tenant's PUTs of its webhook endpoint, oldest first. */
async function webhookPuts(on: SandboxClient = client) {
  const { data } = await on.requests({ per_page: 100 })
  return data
    .filter((r) => r.method === 'PUT' && r.path === '/__sandbox/webhook')
    .reverse()
    .map((r) => r.request.body)
}

/** A delivery signed with `secret` as the sandbox signs one, posted to the receiver by hand. */
function postSigned(
  receiverUrl: string,
  secret: string,
  { id, attempt, extra }: { id?: string; attempt?: string; extra?: Record<string, string> },
) {
  const { body, headers } = signPayload(
    { event: 'card_user_verification.successful', data: { reference: 'forged' } },
    secret,
  )
  return fetch(receiverUrl, {
    method: 'POST',
    body,
    headers: {
      ...headers,
      ...(id && { [EVENT_ID_HEADER]: id }),
      ...(attempt && { [ATTEMPT_HEADER]: attempt }),
      ...extra,
    },
  })
}

/** A handler that cuts each request's connection: `reset` sends a TCP reset, else a plain close. */
async function cuttingHandler(reset: boolean) {
  const server: Server = createServer((req) => {
    req.resume()
    req.on('end', () => (reset ? req.socket.resetAndDestroy() : req.socket.destroy()))
  })
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/hooks`,
    close: () => {
      server.closeAllConnections()
      return new Promise((resolve) => server.close(resolve))
    },
  }
}

/** A URL nothing listens on: a port taken, then let go. */
async function deadUrl(): Promise<string> {
  const free = createServer()
  await new Promise<void>((resolve) => free.listen(0, '127.0.0.1', resolve))
  const url = `http://127.0.0.1:${(free.address() as AddressInfo).port}/hooks`
  await new Promise((resolve) => free.close(resolve))
  return url
}

describe('listen on a sandbox started with --webhook-url and --webhook-secret', () => {
  const FLAG_SECRET = 'flag-secret-9876'
  let flagged: RunningSandbox
  let flaggedClient: SandboxClient
  beforeAll(async () => {
    flagged = await startSandbox({
      port: 0,
      clock: 'manual',
      seed: 12,
      webhookUrl: 'https://hook:hook-password-77@hooks.example.com/default',
      webhookSecret: FLAG_SECRET,
    })
    flaggedClient = createSandboxClient({ baseUrl: flagged.url, token: TOKEN })
  })
  afterAll(() => flagged.close())

  it('signs with the flag secret while listening, forwards the headers the handler needs, and leaves both defaults defaults', async () => {
    const found = await flaggedClient.webhook()
    expect(found).toEqual({
      url: 'https://hook:hook-password-77@hooks.example.com/default',
      secret: FLAG_SECRET,
      url_source: 'flag',
      secret_source: 'flag',
    })
    const handler = await startReceiver([200])
    const listening = await listen(['--forward-to', handler.url], { on: flagged })
    try {
      expect(listening.live.stdout).toBe(
        `listening: the tenant's webhooks now go to ${listening.receiverUrl}, forwarded to ${handler.url}; ` +
          'signed with the --webhook-secret default ************9876, as before. ' +
          'Ctrl-C stops (and puts the webhook URL back).\n',
      )
      // the URL is the receiver's for now; the secret stays the default, not pinned on the tenant
      expect(await flaggedClient.webhook()).toEqual({
        url: listening.receiverUrl,
        secret: FLAG_SECRET,
        url_source: 'tenant',
        secret_source: 'flag',
      })
      const id = await verifiedUser(flaggedClient)
      expect(await listening.line(id, 1)).toBe(
        `card_user_verification.successful ${id} attempt 1: signature ok, ${handler.url} answered 200`,
      )
      const [got] = handler.requests
      expect(verifySignature(got.body, got.headers['x-alal-signature'], FLAG_SECRET)).toBe(true)
      expect(got.headers[EVENT_ID_HEADER]).toBe(id)
      expect(got.headers[ATTEMPT_HEADER]).toBe('1')
      expect(got.headers['content-type']).toBe('application/json')
      // the handler's own Host, not the receiver's: only the delivery's x- headers and its type go on
      expect(got.headers.host).toBe(new URL(handler.url).host)
    } finally {
      await handler.close()
    }
    const stopped = await listening.stop('SIGINT')
    expect(stopped.code).toBe(0)
    expect(stopped.stdout.split('\n').at(-2)).toBe(
      'listening: stopped; the webhook URL is the --webhook-url default again ' +
        '(https://hook:************d-77@hooks.example.com/default)',
    )
    expect(await flaggedClient.webhook()).toEqual(found)
    // set once to the receiver, once back to the defaults: never unset in between
    expect(await webhookPuts(flaggedClient)).toEqual([
      { url: listening.receiverUrl, secret: null },
      { url: null, secret: null },
    ])
  })
})

describe('listen with the tenant’s own URL and secret', () => {
  it('names the secret as the tenant’s, keeps it while listening, and puts both back on SIGTERM', async () => {
    await client.setWebhook({ url: 'https://hooks.example.com/team', secret: TEAM_SECRET })
    const found = await client.webhook()
    expect(found).toMatchObject({ url_source: 'tenant', secret_source: 'tenant' })
    await client.clearRequests()
    const handler = await startReceiver([200])
    // where the sandbox is and which tenant, from --url and --token rather than the environment
    const listening = await listen(
      ['--url', sandbox.url, '--token', TOKEN, '--forward-to', handler.url],
      { env: { CARD_SANDBOX_URL: await deadUrl(), CARD_SANDBOX_TOKEN: '' } },
    )
    try {
      expect(listening.live.stdout).toContain(
        `, forwarded to ${handler.url}; signed with the tenant's own secret ************0042, as before.`,
      )
      expect(await client.webhook()).toEqual({
        url: listening.receiverUrl,
        secret: TEAM_SECRET,
        url_source: 'tenant',
        secret_source: 'tenant',
      })
      const id = await verifiedUser()
      expect(await listening.line(id, 1)).toBe(
        `card_user_verification.successful ${id} attempt 1: signature ok, ${handler.url} answered 200`,
      )
      const [got] = handler.requests
      expect(verifySignature(got.body, got.headers['x-alal-signature'], TEAM_SECRET)).toBe(true)
    } finally {
      await handler.close()
    }
    const stopped = await listening.stop('SIGTERM')
    expect(stopped).toMatchObject({ code: 0, stderr: '' })
    expect(stopped.stdout.split('\n').at(-2)).toBe(
      "listening: stopped; the webhook URL is the tenant's own again (https://hooks.example.com/team)",
    )
    expect(await client.webhook()).toEqual(found)
    // (the journal keeps a secret masked)
    expect(await webhookPuts()).toEqual([
      { url: listening.receiverUrl, secret: '************0042' },
      { url: 'https://hooks.example.com/team', secret: '************0042' },
    ])
    expect(signalListeners()).toEqual(listening.before)
  })
})

describe('what listen prints of the handler’s answer', () => {
  it('prints a 2xx answer before answering the sandbox, and looks a failed one up in the log', async () => {
    const handler = await startReceiver([200, 200, 299, 500])
    const listening = await listen(['--forward-to', handler.url])
    try {
      const id = await verifiedUser()
      await listening.line(id, 1)
      // the line is out before the sandbox has the answer: the log says delivered a little later
      await until(
        async () => (await client.webhooks()).data[0]?.status === 'delivered',
        5_000,
        'the delivery to be logged',
      )

      // by hand, signed with the secret the tenant signs with: the line is out before the answer
      const forged = (answered: number) =>
        `card_user_verification.successful evt_forged attempt 1: signature ok, ${handler.url} answered ${answered}\n`
      const ok = await postSigned(listening.receiverUrl, TOKEN, {
        id: 'evt_forged',
        attempt: '1',
        extra: {
          authorization: 'Bearer not-for-the-handler',
          'user-agent': 'forger/1',
          'x-trace': 't1',
        },
      })
      expect(ok.status).toBe(200)
      expect(listening.live.stdout).toContain(forged(200))
      // what goes on: the x- headers and the content type, nothing else the receiver got
      expect(handler.requests[1].headers).toMatchObject({
        'x-trace': 't1',
        [EVENT_ID_HEADER]: 'evt_forged',
      })
      expect(handler.requests[1].headers.authorization).toBeUndefined()
      expect(handler.requests[1].headers['user-agent']).not.toBe('forger/1')
      const edge = await postSigned(listening.receiverUrl, TOKEN, {
        id: 'evt_forged',
        attempt: '1',
      })
      expect(edge.status).toBe(299)
      expect(listening.live.stdout).toContain(forged(299))

      // a failed answer to an attempt the log has as delivered: no retry to announce
      const again = await postSigned(listening.receiverUrl, TOKEN, { id, attempt: '1' })
      expect(again.status).toBe(500)
      const lines = () => listening.live.stdout.split('\n').filter((l) => l.includes(` ${id} `))
      await until(() => lines().length === 2, 5_000, 'the line of the 500')
      expect(lines()[1]).toBe(
        `card_user_verification.successful ${id} attempt 1: signature ok, ${handler.url} answered 500`,
      )
      expect(handler.requests).toHaveLength(4)
    } finally {
      await handler.close()
      await listening.stop()
    }
  })

  it.each([
    ['a reset connection', true, 'could not be reached (ECONNRESET)'],
    ['a connection closed unanswered', false, 'failed (UND_ERR_SOCKET)'],
  ])('says the handler %s, and the sandbox gets 502', async (_, reset, said) => {
    const handler = await cuttingHandler(reset)
    const listening = await listen(['--forward-to', handler.url])
    try {
      const id = await verifiedUser()
      expect(await listening.line(id, 1)).toMatch(
        new RegExp(
          `^card_user_verification\\.successful ${id} attempt 1: signature ok, ${handler.url} ` +
            `${said.replace(/[()]/g, '\\$&')}; the sandbox retries in 10 s of sandbox time, at \\S+ \\(attempt 2 of 7\\)$`,
        ),
      )
      const [event] = (await client.webhooks()).data
      expect(event.attempts[0].status_code).toBe(502)
    } finally {
      await handler.close()
      await listening.stop()
    }
  })

  it('says a handler URL that cannot be fetched failed, with why', async () => {
    const listening = await listen(['--forward-to', 'http://127.0.0.1:99999/hooks'])
    try {
      const id = await verifiedUser()
      expect(await listening.line(id, 1)).toMatch(
        / attempt 1: signature ok, http:\/\/127\.0\.0\.1:99999\/hooks failed \(ERR_INVALID_URL\); the sandbox retries in 10 s /,
      )
    } finally {
      await listening.stop()
    }
  })
})

describe('what listen says when the log cannot tell', () => {
  it('says the sandbox retries later: at once without an event id, after its search of a log gone, after a handler that never answers', async () => {
    const gone = await startSandbox({ port: 0, clock: 'manual', seed: 13 })
    const handler = await startReceiver(['hang', 500, 500])
    const listening = await listen(['--forward-to', handler.url], { on: gone })
    try {
      await gone.close()
      const later = '; the sandbox retries it later (its webhook log says when)'
      const anonymous = '? attempt ?: signature ok'
      // a handler that never answers: given up on after the 10 s a forwarded delivery may take
      const hung = postSigned(listening.receiverUrl, TOKEN, {})
      await until(() => handler.requests.length === 1, 5_000, 'the first forward')
      // an event the log (here: no longer there) does not know: looked for 5 s
      const searched = await postSigned(listening.receiverUrl, TOKEN, {
        id: 'evt_unknown',
        attempt: '1',
      })
      expect(searched.status).toBe(500)
      // a delivery without an event id: nothing to look for, printed at once
      const unnamed = await postSigned(listening.receiverUrl, TOKEN, {})
      expect(unnamed.status).toBe(500)
      await until(
        () => listening.live.stdout.includes(`${anonymous}, ${handler.url} answered 500`),
        2_000,
        'the line of the delivery without an id',
      )
      expect(listening.live.stdout).toContain(
        `card_user_verification.successful ${anonymous}, ${handler.url} answered 500${later}\n`,
      )
      expect(listening.live.stdout).not.toContain('evt_unknown')
      expect(await listening.line('evt_unknown', 1, 8_000)).toBe(
        `card_user_verification.successful evt_unknown attempt 1: signature ok, ${handler.url} answered 500${later}`,
      )
      expect((await hung).status).toBe(502)
      expect(listening.live.stdout).toContain(
        `card_user_verification.successful ${anonymous}, ${handler.url} did not answer within 10 s${later}\n`,
      )
    } finally {
      await handler.close()
    }
    // its sandbox gone, listen cannot put the URL back, and says so
    const stopped = await listening.stop()
    expect(stopped.code).toBe(1)
    expect(stopped.stderr).toMatch(
      new RegExp(`^card-sandbox listen: no sandbox answers at ${gone.url} \\(ECONNREFUSED\\)`),
    )
    expect(signalListeners()).toEqual(listening.before)
  }, 25_000)
})

describe('the retries listen announces', () => {
  it('follows the sandbox’s schedule to the last attempt and a replay, found among more than a page of events', async () => {
    const dead = await deadUrl()
    const listening = await listen(['--forward-to', dead])
    try {
      // the oldest of 21 events: past the log's first page of 20
      const id = await verifiedUser(client, '+221770000100')
      for (let i = 1; i <= 20; i++)
        await verifiedUser(client, `+2217700001${String(i).padStart(2, '0')}`)
      const refused = `signature ok, ${dead} refused the connection (ECONNREFUSED)`
      const first = await listening.line(id, 1)
      const [event] = (await client.webhooks({ per_page: 100 })).data.filter((e) => e.id === id)
      expect(first).toBe(
        `card_user_verification.successful ${id} attempt 1: ${refused}; the sandbox retries in 10 s ` +
          `of sandbox time, at ${new Date(Date.parse(event.attempts[0].at) + 10_000).toISOString()} (attempt 2 of 7)`,
      )
      for (const [by, attempt, next] of [
        ['10s', 2, '1 min'],
        ['1m', 3, '5 min'],
        ['5m', 4, '30 min'],
        ['30m', 5, '2 h'],
        ['2h', 6, '6 h'],
      ] as const) {
        await client.advanceClock(by)
        expect(await listening.line(id, attempt)).toMatch(
          new RegExp(
            `: ${refused.replace(/[()]/g, '\\$&')}; the sandbox retries in ${next} of sandbox time, at \\S+ \\(attempt ${attempt + 1} of 7\\)$`,
          ),
        )
      }
      await client.advanceClock('6h')
      expect(await listening.line(id, 7)).toMatch(
        /; no retry left: the sandbox marks the event failed$/,
      )
      // a replay starts a new round of attempts, numbered on
      await client.replayWebhook(id)
      expect(await listening.line(id, 8)).toMatch(
        /; the sandbox retries in 10 s of sandbox time, at \S+ \(attempt 9 of 14\)$/,
      )
    } finally {
      await listening.stop()
    }
  })
})

describe('trigger', () => {
  it('makes up a seven-digit Senegalese mobile number for its card user', async () => {
    const random = vi.spyOn(Math, 'random').mockReturnValue(0.0000123)
    let triggered
    try {
      triggered = await startRun(
        (a, e) => triggerCommand.run(a, e),
        ['card_user_verification.failed'],
        { CARD_SANDBOX_URL: sandbox.url, CARD_SANDBOX_TOKEN: TOKEN },
      ).done
    } finally {
      random.mockRestore()
    }
    expect(triggered.code, triggered.stderr).toBe(0)
    const reference = /\(([\w-]+)\)/.exec(triggered.stdout)![1]
    const user = await client.v1('GET', `/card-users/${reference}`)
    expect(user.data.cardUser.phone).toBe('+221770000123')
  })
})
