/**
 * The PostgreSQL wire relay the wire-count tests and the bench measure with
 * (bench/pg-wire-relay.mjs), against the real server: node-postgres through it answers as
 * directly, and the relay counts each protocol message and each wait exactly.
 */
import { connect } from 'node:net'
import pg from 'pg'
import { afterEach, describe, expect, it } from 'vitest'
import { startPgWireRelay, type PgWireRelay } from '../../bench/pg-wire-relay.mjs'
import { TEST_PG } from '../pg.js'

const cleanups: (() => Promise<unknown>)[] = []
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup()
})

async function relayed(): Promise<{ relay: PgWireRelay; client: pg.Client }> {
  const relay = await startPgWireRelay(TEST_PG!)
  cleanups.push(() => relay.close())
  const client = new pg.Client({ connectionString: relay.urlOf(TEST_PG!) })
  await client.connect()
  cleanups.push(() => client.end().catch(() => {}))
  return { relay, client }
}

const NOTHING = {
  query: 0,
  parse: 0,
  bind: 0,
  execute: 0,
  sync: 0,
  statements: 0,
  ready: 0,
  roundTrips: 0,
  connections: 0,
}

/** A client speaking the protocol itself through the relay: what node-postgres cannot do. */
async function rawSession(relay: PgWireRelay) {
  const { username, pathname } = new URL(TEST_PG!)
  const socket = connect(relay.port, '127.0.0.1')
  await new Promise((resolve) => socket.once('connect', resolve))
  cleanups.push(async () => void socket.destroy())
  let received = Buffer.alloc(0)
  socket.on('data', (chunk: Buffer) => (received = Buffer.concat([received, chunk])))
  /** Waits until `n` ReadyForQuery messages have arrived since the last wait. */
  const readyForQuery = async (n: number) => {
    for (;;) {
      let at = 0
      let seen = 0
      while (received.length - at >= 5) {
        const length = received.readInt32BE(at + 1)
        if (received.length - at < 1 + length) break
        if (received[at] === 0x5a) seen++
        at += 1 + length
      }
      if (seen >= n) {
        received = received.subarray(at)
        return
      }
      await new Promise((resolve) => setTimeout(resolve, 5))
    }
  }
  /** The first `n` bytes received, once they have arrived, taken off what is read next. */
  const bytes = async (n: number) => {
    while (received.length < n) await new Promise((resolve) => setTimeout(resolve, 5))
    const taken = received.subarray(0, n)
    received = received.subarray(n)
    return taken
  }
  return {
    socket,
    readyForQuery,
    bytes,
    user: decodeURIComponent(username),
    database: pathname.slice(1),
  }
}

const startupMessage = (user: string, database: string) => {
  const body = Buffer.from(`user\0${user}\0database\0${database}\0\0`)
  const head = Buffer.alloc(8)
  head.writeInt32BE(8 + body.length, 0)
  head.writeInt32BE(196608, 4) // protocol 3.0
  return Buffer.concat([head, body])
}
const queryMessage = (text: string) => {
  const body = Buffer.from(`${text}\0`)
  const head = Buffer.alloc(5)
  head.write('Q', 0)
  head.writeInt32BE(4 + body.length, 1)
  return Buffer.concat([head, body])
}

describe.skipIf(!TEST_PG)('the PostgreSQL wire relay', () => {
  it('counts the startup: one backend connection, its ReadyForQuery, no statement or wait', async () => {
    const { relay } = await relayed()
    expect(relay.counts()).toEqual({ ...NOTHING, connections: 1, ready: 1 })
  })

  it('counts a simple query as one Query, one statement, one round trip', async () => {
    const { relay, client } = await relayed()
    relay.reset()
    const { rows } = await client.query('SELECT 41 + 1 AS answer')
    expect(rows).toEqual([{ answer: 42 }])
    expect(relay.counts()).toEqual({ ...NOTHING, query: 1, statements: 1, ready: 1, roundTrips: 1 })
  })

  it('counts an extended-protocol query as Parse, Bind, Execute, Sync: one statement, one round trip', async () => {
    const { relay, client } = await relayed()
    relay.reset()
    const { rows } = await client.query('SELECT $1::int * 2 AS twice', [21])
    expect(rows).toEqual([{ twice: 42 }])
    expect(relay.counts()).toEqual({
      ...NOTHING,
      parse: 1,
      bind: 1,
      execute: 1,
      sync: 1,
      statements: 1,
      ready: 1,
      roundTrips: 1,
    })
    // a named statement is parsed once: the second run sends Bind, Execute and Sync only
    relay.reset()
    for (let i = 0; i < 2; i++)
      await client.query({ name: 'twice', text: 'SELECT $1::int * 2', values: [i] })
    expect(relay.counts()).toMatchObject({ parse: 1, bind: 2, execute: 2, statements: 2 })
  })

  it('counts a transaction of three statements sent one after the other as three round trips', async () => {
    const { relay, client } = await relayed()
    await client.query('CREATE TEMPORARY TABLE relayed (n int)')
    relay.reset()
    await client.query('BEGIN')
    await client.query('INSERT INTO relayed VALUES ($1)', [7])
    await client.query('COMMIT')
    expect(relay.counts()).toEqual({
      ...NOTHING,
      query: 2,
      parse: 1,
      bind: 1,
      execute: 1,
      sync: 1,
      statements: 3,
      ready: 3,
      roundTrips: 3,
    })
    expect((await client.query('SELECT n FROM relayed')).rows).toEqual([{ n: 7 }])
  })

  it('counts statements sent together before any answer as one round trip, and Terminate as none', async () => {
    const relay = await startPgWireRelay(TEST_PG!)
    cleanups.push(() => relay.close())
    const { socket, readyForQuery, user, database } = await rawSession(relay)
    socket.write(startupMessage(user, database))
    await readyForQuery(1)
    socket.write(Buffer.concat([queryMessage('SELECT 1'), queryMessage('SELECT 2; SELECT 3')]))
    await readyForQuery(2)
    expect(relay.counts()).toMatchObject({ query: 2, statements: 2, ready: 3, roundTrips: 1 })
    const ended = new Promise((resolve) => socket.once('close', resolve))
    socket.write(Buffer.from([0x58, 0, 0, 0, 4])) // Terminate
    await ended
    expect(relay.counts().roundTrips).toBe(1)
  })

  it('answers an SSLRequest N itself, and the session goes on in plain text', async () => {
    const relay = await startPgWireRelay(TEST_PG!)
    cleanups.push(() => relay.close())
    const { socket, readyForQuery, bytes, user, database } = await rawSession(relay)
    const sslRequest = Buffer.alloc(8)
    sslRequest.writeInt32BE(8, 0)
    sslRequest.writeInt32BE(80877103, 4)
    socket.write(sslRequest)
    expect((await bytes(1)).toString()).toBe('N')
    expect(relay.counts().connections).toBe(0)
    socket.write(startupMessage(user, database))
    await readyForQuery(1)
    socket.write(queryMessage('SELECT 1'))
    await readyForQuery(1)
    expect(relay.counts()).toMatchObject({ connections: 1, query: 1, ready: 2, roundTrips: 1 })
  })

  it('counts each backend connection and the messages of all of them, until reset', async () => {
    const { relay, client } = await relayed()
    const other = new pg.Client({ connectionString: relay.urlOf(TEST_PG!) })
    await other.connect()
    cleanups.push(() => other.end())
    await Promise.all([client.query('SELECT 1'), other.query('SELECT 2')])
    expect(relay.counts()).toMatchObject({ connections: 2, query: 2, roundTrips: 2, ready: 4 })
    relay.reset()
    expect(relay.counts()).toEqual(NOTHING)
  })

  it('waits for traffic and then a quiet gap before afterTraffic resolves', async () => {
    const { relay, client } = await relayed()
    let settled = false
    const waiting = relay.afterTraffic(5).then(() => (settled = true))
    await new Promise((resolve) => setTimeout(resolve, 50))
    expect(settled).toBe(false)
    await client.query('SELECT 1')
    await waiting
    expect(settled).toBe(true)
  })
})
