/**
 * The commands that drive a running sandbox (remote.ts, state.ts), run in this process
 * (in-process.ts), for what commands.inprocess.test.ts does not reach: the flags suggested for a
 * typo, a URL fetch refuses to reach, and the sandbox's answers without their optional fields (a
 * fixture with no description, a journal entry of a sandbox older than wall_at, a move with no
 * word for it), served here by a stand-in on a real port that answers as a sandbox does.
 */
import { createServer, type Server } from 'node:http'
import type { AddressInfo } from 'node:net'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import type { Command } from '../../../src/cli/commands/command.js'
import { clockCommand, fixturesCommand, journalCommand } from '../../../src/cli/commands/state.js'
import { until } from '../../webhooks/receiver.js'
import { interrupt, signalListeners, startRun } from './in-process.js'

/** What the stand-in answers, by method and path (query included), in the sandbox's envelope. */
const ANSWERS: Record<string, unknown> = {
  'GET /__sandbox/fixtures': {
    data: [
      { name: 'bare', description: null },
      { name: 'described', description: 'Has a description.' },
    ],
  },
  'GET /__sandbox/requests?per_page=100': {
    data: [
      {
        id: 'req_1',
        at: '2026-01-01T00:00:00.000Z',
        method: 'GET',
        path: '/v1/cards',
        query: '',
        status: 200,
        latency_ms: 3,
      },
    ],
    meta: {},
  },
  'POST /__sandbox/clock/run-due': {
    data: {
      mode: 'manual',
      now: '2026-01-01T00:00:03.000Z',
      transitions_run: 1,
      fired: [
        {
          at: '2026-01-01T00:00:03.000Z',
          resource: 'card',
          reference: 'card_1',
          from: 'pending',
          to: 'issued',
        },
      ],
    },
  },
}

let standIn: Server
let url: string
/** The requests the stand-in has had, as `METHOD path`. */
const asked: string[] = []

beforeAll(async () => {
  standIn = createServer((req, res) => {
    const key = `${req.method} ${req.url}`
    asked.push(key)
    req.resume()
    const answer = ANSWERS[key]
    res.writeHead(answer === undefined ? 404 : 200, { 'Content-Type': 'application/json' })
    res.end(JSON.stringify(answer ?? { message: `no ${key} here` }))
  })
  await new Promise<void>((resolve) => standIn.listen(0, '127.0.0.1', resolve))
  url = `http://127.0.0.1:${(standIn.address() as AddressInfo).port}`
})
afterAll(() => new Promise((resolve) => standIn.close(resolve)))

const start = (command: Command, args: string[], env: NodeJS.ProcessEnv = {}) =>
  startRun((a, e) => command.run(a, e), args, {
    CARD_SANDBOX_URL: url,
    CARD_SANDBOX_TOKEN: 'stand-in',
    ...env,
  })
const run = (command: Command, args: string[], env?: NodeJS.ProcessEnv) =>
  start(command, args, env).done

describe('a mistyped flag', () => {
  it('is answered with the nearest of --url, --token and the command’s own flags', async () => {
    for (const [typed, meant] of [
      ['--ulr', 'url'],
      ['--tokn', 'token'],
      ['--untl', 'until'],
    ]) {
      expect(await run(clockCommand, [typed, 'x']), typed).toEqual({
        code: 2,
        stdout: '',
        stderr: `card-sandbox clock: unknown flag ${typed}; did you mean --${meant}?\nRun 'npx card-sandbox help clock'.\n`,
      })
    }
    expect(asked).toEqual([])
  })
})

describe('a URL fetch will not reach', () => {
  it('is said with fetch’s reason when it gives no error code (a port fetch refuses)', async () => {
    // 6000 (X11) is on fetch's list of bad ports: it fails without trying, its cause has no code
    const refused = await run(clockCommand, ['--url', 'http://127.0.0.1:6000'])
    expect(refused).toEqual({
      code: 1,
      stdout: '',
      stderr:
        "card-sandbox clock: no sandbox answers at http://127.0.0.1:6000 (bad port): start one with 'npx card-sandbox', or name the running one with --url or CARD_SANDBOX_URL\n",
    })
  })
})

describe('answers without their optional fields', () => {
  it('lists a fixture with no description as its name alone', async () => {
    expect(await run(fixturesCommand, ['list'])).toEqual({
      code: 0,
      stdout: `bare\n${'described'.padEnd(28)} Has a description.\n`,
      stderr: '',
    })
  })

  it('prints a journal entry without a wall time (an older sandbox) with its own time only', async () => {
    expect(await run(journalCommand, [])).toEqual({
      code: 0,
      stdout: '2026-01-01T00:00:00.000Z  GET    /v1/cards 200 3ms\n',
      stderr: '',
    })
  })

  it('prints a move that has no word for it as its two states', async () => {
    expect(await run(clockCommand, ['run-due'])).toEqual({
      code: 0,
      stdout:
        '2026-01-01T00:00:03.000Z  card card_1 pending → issued\n' +
        'clock: manual 2026-01-01T00:00:03.000Z (1 jobs ran; idle)\n',
      stderr: '',
    })
  })
})

describe('journal --tail', () => {
  it('asks the sandbox nothing more once stopped', async () => {
    const polls = () => asked.filter((key) => key.startsWith('GET /__sandbox/requests')).length
    const first = polls()
    const before = signalListeners()
    const tail = start(journalCommand, ['--tail'])
    try {
      // its first page, then one poll (every 500 ms)
      await until(() => polls() >= first + 2, 5_000, 'a poll of the tail')
    } finally {
      interrupt(before)
    }
    expect((await tail.done).code).toBe(0)
    const stopped = polls()
    // two more polls' time: none comes
    await new Promise((resolve) => setTimeout(resolve, 1_100))
    expect(polls()).toBe(stopped)
    expect(signalListeners()).toEqual(before)
  })
})
