/**
 * `--db-wait` (src/store/postgres/wait.ts, store/postgres/open.ts): a PostgreSQL store's start waits while the
 * server refuses, does not resolve or is starting up, and fails at once on anything else or
 * without a wait. Against real sockets: a port nothing listens on, a proxy to CARD_SANDBOX_TEST_PG
 * opened during the wait, a name that does not resolve, and a fake server that speaks just
 * enough of PostgreSQL's protocol to refuse a start-up with an ErrorResponse (57P03, 28P01).
 */
import { connect, createServer, type AddressInfo, type Server, type Socket } from 'node:net'
import { afterEach, describe, expect, it } from 'vitest'
import { main } from '../../../src/cli/main.js'
import { openPgStore } from '../../../src/store/postgres/open.js'
import {
  describeError,
  notUpYetCode,
  pgTarget,
  untilPgUp,
  type PgWaitOptions,
} from '../../../src/store/postgres/wait.js'
import { startRun } from '../../cli/commands/in-process.js'
import { freshSchema, TEST_PG } from '../../pg.js'
import { freePort } from '../../ports.js'

const cleanups: (() => unknown)[] = []
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup()
})

/** PostgreSQL's ErrorResponse message: severity, SQLSTATE and message fields. */
function errorResponse(code: string, message: string): Buffer {
  const fields = Buffer.concat([
    ...[
      ['S', 'FATAL'],
      ['V', 'FATAL'],
      ['C', code],
      ['M', message],
    ].map(([type, value]) => Buffer.from(`${type}${value}\0`)),
    Buffer.from([0]),
  ])
  const length = Buffer.alloc(4)
  length.writeInt32BE(fields.length + 4)
  return Buffer.concat([Buffer.from('E'), length, fields])
}

type Answer = { refuse: [code: string, message: string] } | { forwardTo: URL }

/**
 * A server on a free loopback port: each connection is answered by `answer(n)` (n: its number,
 * from 1): refused after the client's start-up message with an ErrorResponse, or piped to a
 * real PostgreSQL. `listen()` opens it (on the port it was given, if it was closed first).
 */
async function fakePg(answer: (n: number) => Answer, port?: number) {
  let connections = 0
  const sockets = new Set<Socket>()
  const server: Server = createServer((socket) => {
    sockets.add(socket)
    socket.on('close', () => sockets.delete(socket))
    socket.on('error', () => {})
    const how = answer(++connections)
    if ('forwardTo' in how) {
      const upstream = connect(Number(how.forwardTo.port || 5432), how.forwardTo.hostname)
      upstream.on('error', () => socket.destroy())
      socket.pipe(upstream).pipe(socket)
      sockets.add(upstream)
      return
    }
    let received = Buffer.alloc(0)
    socket.on('data', (chunk: Buffer) => {
      received = Buffer.concat([received, chunk])
      // the start-up message: its length (4 bytes, itself included), then its body
      if (received.length >= 4 && received.length >= received.readInt32BE(0))
        socket.end(errorResponse(...how.refuse))
    })
  })
  await new Promise<void>((listening) => server.listen(port ?? 0, '127.0.0.1', listening))
  cleanups.push(async () => {
    for (const socket of sockets) socket.destroy()
    await new Promise((closed) => server.close(closed))
  })
  return {
    port: (server.address() as AddressInfo).port,
    connections: () => connections,
  }
}

/** A store opened on `url` with `ms` of wait: whether its start failed (how), and the log lines. */
async function start(url: string, ms: number, onLog?: () => void) {
  const logged: Parameters<NonNullable<PgWaitOptions['log']>>[0][] = []
  const store = openPgStore(url, {
    ms,
    log: (line) => {
      logged.push(line)
      onLog?.()
    },
  })
  cleanups.push(() => store.close())
  const failure = await store.ready.then(
    () => undefined,
    (error: Error & { code?: string }) => error,
  )
  return { store, failure, logged }
}

/** TEST_PG's URL with its host and port replaced by 127.0.0.1:`port` (and a password to hide). */
function via(port: number, base = TEST_PG ?? 'postgres://root@127.0.0.1:5432/test'): string {
  const url = new URL(base)
  url.hostname = '127.0.0.1'
  url.port = String(port)
  url.password = 'hunter2-secret'
  return url.toString()
}

describe('--db-wait: a PostgreSQL store waiting for its server at start', () => {
  it('waits on a port nothing listens on, says so once, then fails naming host:port and the refusal', async () => {
    const port = await freePort()
    const { failure, logged } = await start(via(port), 1500)
    expect(failure?.message).toMatch(
      new RegExp(
        `^PostgreSQL at 127\\.0\\.0\\.1:${port} was still not up after --db-wait 1500ms ` +
          `\\((\\d+) attempts\\): connect ECONNREFUSED 127\\.0\\.0\\.1:${port}$`,
      ),
    )
    const attempts = Number(/\((\d+) attempts\)/.exec(failure!.message)![1])
    expect(attempts).toBeGreaterThan(1)
    expect(logged).toEqual([
      { target: `127.0.0.1:${port}`, error: `connect ECONNREFUSED 127.0.0.1:${port}`, ms: 1500 },
    ])
    expect(JSON.stringify(logged) + failure!.message).not.toContain('hunter2')
  })

  it.skipIf(!TEST_PG)(
    'starts once a server begins listening during the wait (a proxy to PostgreSQL opened late)',
    async () => {
      const schema = await freshSchema()
      cleanups.push(() => schema.drop())
      const port = await freePort()
      let opened: Promise<unknown> | undefined
      const { store, failure, logged } = await start(via(port, schema.url), 30_000, () => {
        // nothing listened at the first attempt: the proxy opens now, on that port
        opened = fakePg(() => ({ forwardTo: new URL(TEST_PG!) }), port)
      })
      await opened
      expect(failure).toBeUndefined()
      expect(logged).toHaveLength(1)
      expect(logged[0].error).toContain('ECONNREFUSED')
      const { rows } = await store.queryable.query('SELECT count(*)::int AS n FROM tenants')
      expect(rows).toEqual([{ n: 0 }])
    },
  )

  it.skipIf(!TEST_PG)(
    'waits while the server answers that it is starting up (57P03), then starts',
    async () => {
      const schema = await freshSchema()
      cleanups.push(() => schema.drop())
      const server = await fakePg((n) =>
        n <= 2
          ? { refuse: ['57P03', 'the database system is starting up'] }
          : { forwardTo: new URL(TEST_PG!) },
      )
      const { failure, logged } = await start(via(server.port, schema.url), 30_000)
      expect(failure).toBeUndefined()
      expect(server.connections()).toBeGreaterThanOrEqual(3)
      expect(logged).toEqual([
        {
          target: `127.0.0.1:${server.port}`,
          error: 'the database system is starting up (57P03)',
          ms: 30_000,
        },
      ])
    },
  )

  it('fails naming 57P03 when the server is still starting up after the wait', async () => {
    const server = await fakePg(() => ({ refuse: ['57P03', 'the database system is starting up'] }))
    const { failure } = await start(via(server.port), 1000)
    expect(failure?.message).toMatch(
      `PostgreSQL at 127.0.0.1:${server.port} was still not up after --db-wait 1s`,
    )
    expect(failure?.message).toMatch(/: the database system is starting up \(57P03\)$/)
    expect(server.connections()).toBeGreaterThan(1)
  })

  it('waits on a host name that does not resolve (ENOTFOUND, or EAI_AGAIN without DNS)', async () => {
    const { failure, logged } = await start('postgres://root@card-sandbox-db-wait.invalid/x', 1000)
    expect(failure?.message).toMatch(
      /^PostgreSQL at card-sandbox-db-wait\.invalid:5432 was still not up after --db-wait 1s \(\d+ attempts\): getaddrinfo (ENOTFOUND|EAI_AGAIN) card-sandbox-db-wait\.invalid$/,
    )
    expect(logged).toHaveLength(1)
    expect(logged[0].target).toBe('card-sandbox-db-wait.invalid:5432')
  })

  it('fails at once without a wait (0), with the error as it came', async () => {
    const port = await freePort()
    const refused = await start(via(port), 0)
    expect(refused.failure?.code).toBe('ECONNREFUSED')
    expect(refused.failure?.message).toBe(`connect ECONNREFUSED 127.0.0.1:${port}`)
    expect(refused.logged).toEqual([])

    const server = await fakePg(() => ({ refuse: ['57P03', 'the database system is starting up'] }))
    const starting = await start(via(server.port), 0)
    expect(starting.failure?.code).toBe('57P03')
    expect(server.connections()).toBe(1)
    expect(starting.logged).toEqual([])
  })

  it('fails at once, whatever the wait, on an error that waiting does not mend (a refused password)', async () => {
    const server = await fakePg(() => ({
      refuse: ['28P01', 'password authentication failed for user "root"'],
    }))
    const { failure, logged } = await start(via(server.port), 60_000)
    expect(failure?.code).toBe('28P01')
    expect(server.connections()).toBe(1)
    expect(logged).toEqual([])
  })

  it.skipIf(!TEST_PG)(
    'fails at once, whatever the wait, on a database that does not exist',
    async () => {
      const url = new URL(TEST_PG!)
      url.pathname = '/card_sandbox_no_such_database'
      const { failure, logged } = await start(url.toString(), 60_000)
      expect(failure?.code).toBe('3D000')
      expect(logged).toEqual([])
    },
  )
})

describe('the line of what it waits for', () => {
  it("names a connection tried on several addresses (Node's AggregateError, no message) by the first", () => {
    const refused = (address: string) =>
      Object.assign(new Error(`connect ECONNREFUSED ${address}`), { code: 'ECONNREFUSED' })
    const error = Object.assign(
      new AggregateError([refused('::1:5432'), refused('127.0.0.1:5432')]),
      {
        code: 'ECONNREFUSED',
      },
    )
    expect(describeError(error)).toBe('connect ECONNREFUSED ::1:5432')
  })
})

describe('the pace of the attempts (a sleep that only records)', () => {
  const refused = () => Object.assign(new Error('connect ECONNREFUSED'), { code: 'ECONNREFUSED' })
  const failingTimes = (failures: number) => {
    let tries = 0
    return async () => {
      if (++tries <= failures) throw refused()
    }
  }

  it('pauses 250, 500 and 1000 ms, then every 2 s, and tells how many attempts it took', async () => {
    const slept: number[] = []
    const sleep = async (ms: number) => void slept.push(ms)
    const attempts = await untilPgUp('postgres://db:5433/x', failingTimes(5), { ms: 60_000 }, sleep)
    expect(attempts).toBe(6)
    expect(slept).toEqual([250, 500, 1000, 2000, 2000])
  })

  it('waits without anyone to tell', async () => {
    const attempts = await untilPgUp(
      'postgres://db/x',
      failingTimes(1),
      { ms: 60_000 },
      async () => {},
    )
    expect(attempts).toBe(2)
  })

  it('fails once the wait has passed, naming the target, the attempts and the error, its cause kept', async () => {
    const failure = await untilPgUp('postgres://db/x', failingTimes(99), { ms: 1 }, async () => {
      await new Promise((resolve) => setTimeout(resolve, 5))
    }).catch((error: Error) => error)
    expect((failure as Error).message).toBe(
      'PostgreSQL at db:5432 was still not up after --db-wait 1ms (2 attempts): connect ECONNREFUSED',
    )
    expect(((failure as Error).cause as { code: string }).code).toBe('ECONNREFUSED')
  })
})

describe('what waiting is worth', () => {
  it('looks for the code through three causes deep, not further', () => {
    const wrapped = (depth: number): unknown =>
      depth === 0 ? { code: 'ECONNREFUSED' } : { cause: wrapped(depth - 1) }
    expect(notUpYetCode(wrapped(3))).toBe('ECONNREFUSED')
    expect(notUpYetCode(wrapped(4))).toBeUndefined()
    expect(notUpYetCode({ code: '28P01' })).toBeUndefined()
  })

  it('names the target by host and port, with PostgreSQL’s defaults, and never the rest', () => {
    expect(pgTarget('postgres://root:secret@db.internal:6543/x')).toBe('db.internal:6543')
    expect(pgTarget('postgres:///x')).toBe('localhost:5432')
    expect(pgTarget('not a url')).toBe('the --db URL')
  })

  it('adds the code to a message that lacks it, and only then', () => {
    const error = (message: string, code?: string) => Object.assign(new Error(message), { code })
    expect(describeError(error('the database system is starting up', '57P03'))).toBe(
      'the database system is starting up (57P03)',
    )
    expect(describeError(error('connect ECONNREFUSED 127.0.0.1:1', 'ECONNREFUSED'))).toBe(
      'connect ECONNREFUSED 127.0.0.1:1',
    )
    expect(describeError(error('no code'))).toBe('no code')
    expect(describeError('a string')).toBe('a string')
  })
})

describe('card-sandbox --db-wait', () => {
  it('prints the line of what it waits for, then exits 1 naming it; CARD_SANDBOX_DB_WAIT sets it', async () => {
    const port = await freePort()
    const db = `postgres://root:hunter2-secret@127.0.0.1:${port}/test`
    const { code, stdout, stderr } = await startRun(
      main,
      ['--db', db, '--port', '0', '--log', 'silent'],
      { CARD_SANDBOX_DB_WAIT: '1s' },
    ).done
    expect(code).toBe(1)
    expect(stdout).toContain(
      `warning: waiting up to 1s (--db-wait) for PostgreSQL at 127.0.0.1:${port}: connect ECONNREFUSED 127.0.0.1:${port}`,
    )
    expect(stderr).toMatch(
      new RegExp(
        `^card-sandbox: could not start: PostgreSQL at 127\\.0\\.0\\.1:${port} was still not up after --db-wait 1s \\(\\d+ attempts\\)`,
      ),
    )
    expect(stdout + stderr).not.toContain('hunter2')
  })

  it('fails fast as before without it', async () => {
    const port = await freePort()
    const { code, stdout, stderr } = await startRun(
      main,
      ['--db', `postgres://root@127.0.0.1:${port}/test`, '--port', '0', '--log', 'silent'],
      {},
    ).done
    expect(code).toBe(1)
    expect(stdout).not.toContain('waiting')
    expect(stderr).toBe(`card-sandbox: could not start: connect ECONNREFUSED 127.0.0.1:${port}\n`)
  })
})
