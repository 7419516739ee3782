/**
 * What one webhook POST (src/webhooks/post.ts) leaves behind, seen from a process of its own that
 * runs the built module (dist/webhooks/post.js; `npm test` builds dist/ first): a timer left
 * armed would keep that process alive until the timeout. Left out of the mutation tests
 * (vitest.mutation.config.ts): a mutant of src/ never reaches dist/, and Stryker's copy of the
 * tree has none.
 */
import { spawn } from 'node:child_process'
import { createServer } from 'node:http'
import type { AddressInfo } from 'node:net'
import { afterEach, expect, it } from 'vitest'
import { until } from './receiver.js'

const POST_MODULE = new URL('../../dist/webhooks/post.js', import.meta.url).href

const cleanups: (() => unknown)[] = []
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup()
})

it('leaves no timer behind once answered: a process that posted exits without waiting out the timeout', async () => {
  const server = createServer((req, res) => {
    req.resume()
    req.on('end', () => res.writeHead(200, { connection: 'close' }).end('ok'))
  })
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  cleanups.push(() => {
    server.closeAllConnections()
    return new Promise((resolve) => server.close(resolve))
  })
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/hooks`
  const script =
    `import { postWebhook } from ${JSON.stringify(POST_MODULE)}\n` +
    `const out = await postWebhook(${JSON.stringify(url)}, {}, '{}', { timeoutMs: 60000, readBytes: 10 })\n` +
    'process.stdout.write(String(out.statusCode))'
  const child = spawn(process.execPath, ['--input-type=module', '-e', script], {
    stdio: ['ignore', 'pipe', 'inherit'],
  })
  cleanups.push(() => child.kill())
  let stdout = ''
  child.stdout.on('data', (chunk) => (stdout += chunk))
  let exitCode: number | null = null
  child.on('exit', (code) => (exitCode = code))
  await until(() => exitCode !== null, 15_000, 'the posting process to exit')
  expect({ exitCode, stdout }).toEqual({ exitCode: 0, stdout: '200' })
}, 20_000)
