/**
 * A body over 1 MiB sent chunked (no Content-Length, its size known only as it arrives) is
 * refused with a 413 that leaves the connection usable: a keep-alive client's next request on
 * it is answered.
 */
import { Agent, request } from 'node:http'
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest'
import { startSandbox, type RunningSandbox } from '../../../src/server/sandbox.js'

let sandbox: RunningSandbox
beforeAll(async () => {
  sandbox = await startSandbox({ port: 0, clock: 'manual', log: 'silent' })
})
afterAll(() => sandbox.close())

// one socket, kept alive: the second request goes where the first went, if it still can
let agent: Agent
afterEach(() => agent.destroy())
const keepAliveAgent = () => (agent = new Agent({ keepAlive: true, maxSockets: 1 }))

type Answer = { status: number; connection: string | undefined; body: unknown }

/** Creates a card user through `agent`, sent chunked: with an address `padding` bytes long, if any. */
function createUserChunked(padding: number): Promise<Answer> {
  return new Promise((resolve, reject) => {
    const req = request(
      `${sandbox.url}/v1/card-users/create`,
      {
        method: 'POST',
        agent,
        headers: {
          Authorization: 'Bearer chunked-bodies',
          'Content-Type': 'application/json',
          'Transfer-Encoding': 'chunked',
        },
      },
      (res) => {
        let text = ''
        res.on('data', (chunk: Buffer) => (text += chunk.toString()))
        res.on('end', () =>
          resolve({
            status: res.statusCode!,
            connection: res.headers.connection,
            body: JSON.parse(text),
          }),
        )
      },
    )
    req.on('error', reject)
    req.write('{"phone":"+221770000001"')
    if (padding > 0) {
      const chunk = 'x'.repeat(64 * 1024)
      req.write(',"address":"')
      for (let sent = 0; sent < padding; sent += chunk.length) req.write(chunk)
      req.write('"')
    }
    req.end('}')
  })
}

const MiB = 1024 * 1024

describe('a chunked body over 1 MiB', () => {
  it('is refused with a 413, and the next request on the same connection is answered', async () => {
    keepAliveAgent()
    const refused = await createUserChunked(2 * MiB)
    expect(refused.status).toBe(413)
    expect(refused.body).toEqual({
      message: 'The request body is larger than 1 MiB.',
      statusCode: 413,
    })
    expect(refused.connection).toBe('keep-alive')
    const next = await createUserChunked(0)
    expect(next.status).toBe(200)
  })

  it('past 16 MiB, is refused with Connection: close, so the next request goes on a new connection', async () => {
    keepAliveAgent()
    // 16 MiB of address and the rest of the body: past the limit by a few bytes, all of it read
    const refused = await createUserChunked(16 * MiB)
    expect(refused.status).toBe(413)
    expect(refused.connection).toBe('close')
    const next = await createUserChunked(0)
    expect(next.status).toBe(200)
  })
})
