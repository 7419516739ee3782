/**
 * One webhook POST (src/webhooks/post.ts) against real receivers on real ports: what it reports
 * of an answer, and of a receiver that never answers or cannot be reached. That it leaves no
 * timer behind: post-built.test.ts.
 */
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http'
import type { AddressInfo } from 'node:net'
import { afterEach, describe, expect, it } from 'vitest'
import { postWebhook, RESPONSE_PREFIX_BYTES } from '../../src/webhooks/post.js'
import { until } from './receiver.js'

const cleanups: (() => unknown)[] = []
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup()
})

/** A receiver on a real port that answers each request with `answer`, once its body is in. */
async function receiver(answer: (res: ServerResponse, req: IncomingMessage) => void) {
  const server = createServer((req, res) => {
    req.resume()
    req.on('end', () => answer(res, req))
  })
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  cleanups.push(() => {
    server.closeAllConnections()
    return new Promise((resolve) => server.close(resolve))
  })
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}/hooks`
}

/** A port nothing listens on. */
async function deadPort() {
  const server = createServer()
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  const { port } = server.address() as AddressInfo
  await new Promise((resolve) => server.close(resolve))
  return `http://127.0.0.1:${port}/hooks`
}

const post = (url: string, headers: Record<string, string> = {}, timeoutMs = 2_000) =>
  postWebhook(url, headers, '{"event":"x"}', { timeoutMs, readBytes: 10 })

describe('an answer', () => {
  it('reports a 204 without a body as answered, with an empty response', async () => {
    const url = await receiver((res) => res.writeHead(204).end())
    expect(await post(url)).toEqual({
      statusCode: 204,
      response: '',
      error: null,
      timedOut: false,
      code: null,
    })
  })

  it('does not report an answer as timed out', async () => {
    const url = await receiver((res) => res.writeHead(500).end('no'))
    expect(await post(url)).toEqual({
      statusCode: 500,
      response: 'no',
      error: null,
      timedOut: false,
      code: null,
    })
  })

  it('reads an answer exactly as long as the bound whole, keeping its connection', async () => {
    const closes: boolean[] = []
    // the bound's 10 bytes, then the end of the answer a moment later
    const url = await receiver((res) => {
      res.on('close', () => closes.push(res.writableFinished))
      res.writeHead(200).write('0123456789')
      setTimeout(() => res.end(), 50)
    })
    expect((await post(url)).response).toBe('0123456789')
    await until(() => closes.length === 1)
    // the receiver finished its answer: the connection was not dropped under it
    expect(closes).toEqual([true])
  })
})

describe('no answer', () => {
  it('reports a receiver that never answers as timed out after the timeout', async () => {
    const url = await receiver(() => {})
    expect(await post(url, {}, 100)).toEqual({
      statusCode: null,
      response: null,
      error: 'timed out after 100 ms',
      timedOut: true,
      code: null,
    })
  })

  it('reports a refused connection with its system code', async () => {
    expect(await post(await deadPort())).toEqual({
      statusCode: null,
      response: null,
      error: 'fetch failed: ECONNREFUSED',
      timedOut: false,
      code: 'ECONNREFUSED',
    })
  })

  it('describes a failure without a system code by its cause’s message', async () => {
    const outcome = await post('nope://127.0.0.1/hooks')
    expect(outcome.error).toBe('fetch failed: unknown scheme')
    expect(outcome.code).toBe(null)
  })

  it('describes a failure without a cause by its message alone', async () => {
    const url = await receiver((res) => res.end())
    const outcome = await post(url, { 'x-bad': 'a\nb' })
    expect(outcome.error).toBe('Headers.append: "a\nb" is an invalid header value.')
  })

  it('keeps at most the first 512 characters of an error', async () => {
    const url = await receiver((res) => res.end())
    const long = 'a'.repeat(600)
    const outcome = await post(url, { 'x-bad': `${long}\nb` })
    expect(outcome.error).toBe(
      `Headers.append: "${long}\nb" is an invalid header value.`.slice(0, RESPONSE_PREFIX_BYTES),
    )
  })
})
