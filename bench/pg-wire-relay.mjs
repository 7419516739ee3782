// A PostgreSQL wire relay that counts what a client sends, for the bench (run.mjs) and the tests
// (test/store/wire-counts.test.ts): a TCP server on 127.0.0.1 that forwards every connection to
// the real server and reads the protocol in both directions, so the counts do not depend on the
// driver under test.
//
// What is counted, over every connection of the relay since it started or was last reset:
// - `query`, `parse`, `bind`, `execute`, `sync`: the frontend's Query ('Q'), Parse ('P'), Bind
//   ('B'), Execute ('E') and Sync ('S') messages.
// - `statements`: Query + Execute messages. A Query message counts one, whatever its text holds
//   (`BEGIN; SELECT 1` is one); an extended-protocol statement counts one per Execute.
// - `ready`: the backend's ReadyForQuery ('Z') messages.
// - `roundTrips`: the waits. A connection's round trip is counted when its client, having
//   received a ReadyForQuery, sends a message again: a pipelining client that sends three
//   statements before reading any answer makes one round trip, a client that sends one and
//   waits for its answer before each next makes three. The first message after the startup's
//   ReadyForQuery counts; Terminate ('X') does not (nothing is waited for).
// - `connections`: backend connections opened (a cancel request's connection included).
//
// An SSLRequest or a GSSENCRequest is answered 'N' by the relay (no encryption: the client goes
// on in plain text, as node-postgres does with sslmode unset or `prefer`); a CancelRequest is
// forwarded as it is.
//
// A fault can be armed (`cutAt`): the relay ends every connection, client and server side, when a
// client sends a statement whose text holds a given fragment (the statement is not forwarded),
// as PostgreSQL going away at that point does; and, if asked, it ends every new connection at
// once until `reopen` (the server down for a while).

import { connect, createServer } from 'node:net'

const SSL_REQUEST = 80877103
const GSSENC_REQUEST = 80877104
const CANCEL_REQUEST = 80877102

/** The frontend message types counted, by their type byte. */
const FRONTEND = { Q: 'query', P: 'parse', B: 'bind', E: 'execute', S: 'sync' }

/**
 * @typedef {{ query: number, parse: number, bind: number, execute: number, sync: number,
 *   statements: number, ready: number, roundTrips: number, connections: number }} WireCounts
 */

/** @returns {WireCounts} */
const zeroCounts = () => ({
  query: 0,
  parse: 0,
  bind: 0,
  execute: 0,
  sync: 0,
  statements: 0,
  ready: 0,
  roundTrips: 0,
  connections: 0,
})

/**
 * @typedef {object} PgWireRelay
 * @property {number} port the relay's port on 127.0.0.1
 * @property {(url: string) => string} urlOf `url` (a postgres:// URL of the relayed server)
 *   with its host and port replaced by the relay's, its parameters kept
 * @property {() => WireCounts} counts the counts since the start or the last reset (a copy)
 * @property {() => void} reset sets every count to zero
 * @property {(quietMs: number) => Promise<void>} afterTraffic resolves once a message has
 *   passed (within a second) and then none for `quietMs`: just after a replica's tick, say
 * @property {(text: string, options?: { refuse?: boolean }) => Promise<void>} cutAt arms the
 *   fault: ends every connection when a client sends a statement (Query or Parse) whose text
 *   holds `text`, without forwarding it, and with `refuse` every new one until `reopen`; resolves
 *   once it has cut
 * @property {() => void} reopen lets new connections through again after a cut with `refuse`
 * @property {() => Promise<void>} close stops listening and ends every relayed connection
 */

/**
 * Starts a relay to the PostgreSQL server `target` names (a postgres:// URL: its host and port).
 * @param {string} target
 * @returns {Promise<PgWireRelay>}
 */
export async function startPgWireRelay(target) {
  const { hostname, port: targetPort } = new URL(target)
  const backendAt = { host: hostname || '127.0.0.1', port: Number(targetPort || 5432) }
  let counts = zeroCounts()
  /** Messages seen in either direction, counted or not: what afterTraffic watches. */
  let messages = 0
  const sockets = new Set()
  /** @type {{ text: Buffer, refuse: boolean, done: () => void } | undefined} */
  let armed
  let refusing = false

  const server = createServer((client) => {
    if (refusing) return void client.destroy()
    sockets.add(client)
    client.on('close', () => sockets.delete(client))
    client.on('error', () => client.destroy())
    relayConnection(client)
  })

  /** @param {import('node:net').Socket} client */
  function relayConnection(client) {
    /** @type {import('node:net').Socket | undefined} */
    let backend
    let pending = Buffer.alloc(0)
    let started = false
    // whether the client has received a ReadyForQuery since it last sent
    let answered = false

    const openBackend = () => {
      counts.connections++
      const socket = connect(backendAt)
      sockets.add(socket)
      socket.on('close', () => (sockets.delete(socket), client.destroy()))
      socket.on('error', () => client.destroy())
      client.on('close', () => socket.destroy())
      socket.on(
        'data',
        backendMessages((type) => {
          messages++
          if (type === 'Z') {
            counts.ready++
            answered = true
          }
        }, client),
      )
      return socket
    }

    client.on('data', (chunk) => {
      pending = pending.length ? Buffer.concat([pending, chunk]) : chunk
      while (!started) {
        // before the startup message: length and code, no type byte
        if (pending.length < 8) return
        const length = pending.readInt32BE(0)
        if (pending.length < length) return
        const code = pending.readInt32BE(4)
        const message = pending.subarray(0, length)
        pending = pending.subarray(length)
        if (code === SSL_REQUEST || code === GSSENC_REQUEST) {
          client.write('N')
          continue
        }
        backend = openBackend()
        backend.write(message)
        started = true
        if (code === CANCEL_REQUEST) {
          // nothing more is read on a cancel connection: the rest goes through as it is
          if (pending.length) backend.write(pending)
          client.removeAllListeners('data')
          client.pipe(backend)
          return
        }
      }
      // typed messages: a type byte, then a length that counts itself
      let whole = 0
      while (pending.length - whole >= 5) {
        const length = pending.readInt32BE(whole + 1)
        if (pending.length - whole < 1 + length) break
        const type = String.fromCharCode(pending[whole])
        if (armed && (type === 'Q' || type === 'P')) {
          const { text, refuse, done } = armed
          if (pending.subarray(whole, whole + 1 + length).includes(text)) {
            armed = undefined
            refusing = refuse
            for (const socket of sockets) socket.destroy()
            done()
            return
          }
        }
        messages++
        const name = FRONTEND[type]
        if (name) counts[name]++
        if (type === 'Q' || type === 'E') counts.statements++
        if (answered && type !== 'X') {
          counts.roundTrips++
          answered = false
        }
        whole += 1 + length
      }
      if (whole) backend?.write(pending.subarray(0, whole))
      pending = pending.subarray(whole)
    })
  }

  await new Promise((resolve) => server.listen(0, '127.0.0.1', () => resolve(undefined)))
  const port = /** @type {import('node:net').AddressInfo} */ (server.address()).port
  return {
    port,
    urlOf(url) {
      const relayed = new URL(url)
      relayed.hostname = '127.0.0.1'
      relayed.port = String(port)
      return relayed.toString()
    },
    counts: () => ({ ...counts }),
    reset: () => void (counts = zeroCounts()),
    async afterTraffic(quietMs) {
      const sleep = () => new Promise((resolve) => setTimeout(resolve, 1))
      const before = messages
      for (let waited = 0; waited < 1000 && messages === before; waited++) await sleep()
      let last = messages
      let since = performance.now()
      while (performance.now() - since < quietMs) {
        await sleep()
        if (messages !== last) [last, since] = [messages, performance.now()]
      }
    },
    cutAt(text, { refuse = false } = {}) {
      return new Promise((resolve) => {
        armed = { text: Buffer.from(text), refuse, done: () => resolve(undefined) }
      })
    },
    reopen: () => void (refusing = false),
    close() {
      for (const socket of sockets) socket.destroy()
      return new Promise((resolve) => server.close(() => resolve()))
    },
  }
}

/**
 * A 'data' listener for the backend's side: it forwards each chunk to `client` at once and
 * calls `seen` with the type of every whole message (every backend message is typed).
 * @param {(type: string) => void} seen
 * @param {import('node:net').Socket} client
 */
function backendMessages(seen, client) {
  let pending = Buffer.alloc(0)
  return (/** @type {Buffer} */ chunk) => {
    client.write(chunk)
    pending = pending.length ? Buffer.concat([pending, chunk]) : chunk
    let at = 0
    while (pending.length - at >= 5) {
      const length = pending.readInt32BE(at + 1)
      if (pending.length - at < 1 + length) break
      seen(String.fromCharCode(pending[at]))
      at += 1 + length
    }
    pending = pending.subarray(at)
  }
}
