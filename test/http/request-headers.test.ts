/**
 * Over a socket the stages read headers from node's list of what arrived (http/request-headers.ts),
 * as the Fetch API would: any case, surrounding spaces trimmed, a repeated header joined with
 * ", " (so two Authorization headers are no bearer token at all).
 */
import { request } from 'node:http'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { startSandbox, type RunningSandbox } from '../../src/server/sandbox.js'

let sandbox: RunningSandbox
beforeAll(async () => {
  sandbox = await startSandbox({ port: 0, clock: 'manual', log: 'silent' })
})
afterAll(() => sandbox.close())

/**
 * Sends `headers` as given (node's raw list: names, values, repeats kept), after the Host and,
 * with a body, its Content-Length.
 */
function send(method: string, path: string, headers: string[], body?: string) {
  const host = ['Host', new URL(sandbox.url).host]
  const length = body === undefined ? [] : ['Content-Length', String(Buffer.byteLength(body))]
  const all = [...host, ...length, ...headers]
  return new Promise<{ status: number; body: { message?: string } }>((resolve, reject) => {
    // a connection each: one refused before its body was read is not reused
    const req = request(`${sandbox.url}${path}`, { method, headers: all, agent: false }, (res) => {
      let text = ''
      res.on('data', (chunk: Buffer) => (text += chunk.toString()))
      res.on('end', () => resolve({ status: res.statusCode!, body: JSON.parse(text) }))
    })
    req.on('error', reject)
    req.end(body)
  })
}

describe('request headers over a socket', () => {
  it('finds the bearer token whatever the header name case', async () => {
    for (const name of ['Authorization', 'authorization', 'AUTHORIZATION']) {
      const res = await send('GET', '/v1/cards', [name, 'Bearer headers-test'])
      expect(res.status, name).toBe(200)
    }
  })

  it('reads two Authorization headers as one joined value: no bearer token, 401', async () => {
    const res = await send('GET', '/v1/cards', [
      'Authorization',
      'Bearer one',
      'Authorization',
      'Bearer two',
    ])
    expect(res.status).toBe(401)
  })

  it('reads the body by its Content-Type and Content-Length, any case', async () => {
    const body = JSON.stringify({ phone: '+221770000001' })
    const createUser = (headers: string[], sent?: string) =>
      send(
        'POST',
        '/v1/card-users/create',
        ['authorization', 'Bearer headers-test', ...headers],
        sent,
      )
    expect((await createUser(['CONTENT-TYPE', 'application/json'], body)).status).toBe(200)
    expect((await createUser(['content-type', 'text/plain'], body)).status).toBe(415)
    const tooLarge = ['content-type', 'application/json', 'Content-Length', String(2 * 1024 * 1024)]
    expect((await createUser(tooLarge)).status).toBe(413)
  })

  it('reads a JSON media type with spaces before its parameters as JSON', async () => {
    const res = await send(
      'POST',
      '/v1/card-users/create',
      ['authorization', 'Bearer headers-test', 'content-type', 'application/json ; charset=utf-8'],
      JSON.stringify({ phone: '+221770000002' }),
    )
    expect(res.status).toBe(200)
  })

  it('measures a chunked body as it arrives, without a Content-Length', async () => {
    const status = await new Promise<number>((resolve, reject) => {
      const req = request(
        `${sandbox.url}/v1/card-users/create`,
        {
          method: 'POST',
          headers: {
            Authorization: 'Bearer headers-test',
            'Content-Type': 'application/json',
            'Transfer-Encoding': 'chunked',
          },
        },
        (res) => {
          res.resume()
          res.on('end', () => resolve(res.statusCode!))
        },
      )
      req.on('error', reject)
      req.write('{"address":"')
      for (let i = 0; i < 20; i++) req.write('x'.repeat(64 * 1024))
      req.end('"}')
    })
    expect(status).toBe(413)
  })
})
