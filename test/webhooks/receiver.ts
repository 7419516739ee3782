/** A real local HTTP receiver for webhook tests: records every request, answers as told. */
import { createServer, type IncomingHttpHeaders, type ServerResponse } from 'node:http'
import type { AddressInfo } from 'node:net'

/** `at`: when it arrived (ms since the epoch). */
export type Received = { headers: IncomingHttpHeaders; body: string; at: number }
/** A status to answer with, or 'hang' to never answer. */
export type Answer = number | 'hang'

export async function startReceiver(answers: Answer[] = [200]) {
  const requests: Received[] = []
  const hanging: ServerResponse[] = []
  const server = createServer((req, res) => {
    const chunks: Buffer[] = []
    req.on('data', (chunk) => chunks.push(chunk))
    req.on('end', () => {
      requests.push({
        headers: req.headers,
        body: Buffer.concat(chunks).toString('utf8'),
        at: Date.now(),
      })
      const answer = answers[Math.min(requests.length - 1, answers.length - 1)]
      if (answer === 'hang') return void hanging.push(res)
      res.writeHead(answer, { 'Content-Type': 'text/plain' }).end(`answer ${answer}`)
    })
  })
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  const { port } = server.address() as AddressInfo
  return {
    url: `http://127.0.0.1:${port}/hooks`,
    requests,
    hanging,
    async close() {
      for (const res of hanging) res.destroy()
      server.closeAllConnections()
      await new Promise((resolve) => server.close(resolve))
    },
  }
}

/** Polls until `ready()` holds; fails after `ms` (every wait in these tests is bounded). */
export async function until(
  ready: () => boolean | Promise<boolean>,
  ms = 5_000,
  what = 'condition',
): Promise<void> {
  const deadline = Date.now() + ms
  while (!(await ready())) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`)
    await new Promise((resolve) => setTimeout(resolve, 10))
  }
}

/**
 * A hostile receiver: answers 200, then streams `bytes` as fast as the socket takes them.
 * `closedEarly` says whether the last response closed before its whole body was written.
 */
export async function startStreamingReceiver(bytes: number) {
  const chunk = Buffer.alloc(64 * 1024, 'x')
  const state = { sent: 0, closedEarly: null as boolean | null, requests: 0 }
  const server = createServer((req, res) => {
    state.requests++
    req.resume()
    req.on('end', () => {
      res.writeHead(200, { 'Content-Type': 'text/plain' })
      res.on('close', () => (state.closedEarly = !res.writableFinished))
      let sent = 0
      const pump = () => {
        while (sent < bytes && !res.destroyed) {
          const part = chunk.subarray(0, Math.min(chunk.length, bytes - sent))
          sent += part.length
          state.sent += part.length
          if (!res.write(part)) return void res.once('drain', pump)
        }
        if (!res.destroyed) res.end()
      }
      pump()
    })
  })
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  const { port } = server.address() as AddressInfo
  return {
    url: `http://127.0.0.1:${port}/hooks`,
    state,
    async close() {
      server.closeAllConnections()
      await new Promise((resolve) => server.close(resolve))
    },
  }
}
