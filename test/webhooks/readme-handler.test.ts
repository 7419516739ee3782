/** The webhook handler of docs/webhooks.md, run as written, accepts the sandbox's signed deliveries. */
import { spawn } from 'node:child_process'
import { readFileSync, writeFileSync } from 'node:fs'
import { connect } from 'node:net'
import { join } from 'node:path'
import { afterEach, expect, it } from 'vitest'
import { freePort } from '../ports.js'
import { fullIdentity, newSandbox, TOKEN } from '../helpers.js'
import { until } from './receiver.js'
import { tempDir } from '../temp-dir.js'

const PAGE = readFileSync(new URL('../../docs/webhooks.md', import.meta.url), 'utf8')
const HANDLER = /A handler that verifies the signature[\s\S]*?```js\n([\s\S]*?)```/.exec(PAGE)![1]

const cleanups: (() => void)[] = []
afterEach(() => cleanups.splice(0).forEach((cleanup) => cleanup()))

async function runHandler(secret: string) {
  const dir = tempDir('card-sandbox-handler-')
  const port = await freePort()
  writeFileSync(
    join(dir, 'handler.mjs'),
    HANDLER.replace('.listen(3000)', `.listen(${port}, '127.0.0.1')`),
  )
  const child = spawn(process.execPath, [join(dir, 'handler.mjs')], {
    env: { ...process.env, ALAL_API_KEY: secret },
  })
  let output = ''
  child.stdout.on('data', (chunk) => (output += chunk))
  let listening = false
  const probe = setInterval(() => {
    const socket = connect(port, '127.0.0.1')
    socket.on('connect', () => ((listening = true), clearInterval(probe), socket.destroy()))
    socket.on('error', () => socket.destroy())
  }, 20)
  cleanups.push(() => clearInterval(probe))
  cleanups.push(() => child.kill())
  const url = `http://127.0.0.1:${port}/hooks`
  await until(() => listening, 10_000, 'the handler to listen')
  return { url, output: () => output }
}

it('accepts a delivery signed with the tenant’s token and refuses one signed otherwise', async () => {
  const handler = await runHandler(TOKEN)
  const s = newSandbox()
  cleanups.push(() => s.close())
  await s.call('PUT', '/__sandbox/webhook', { url: handler.url })
  const user = await s.call('POST', '/v1/card-users/create', fullIdentity())
  await s.call('POST', '/__sandbox/clock/advance', { by: '3s' })
  await until(
    () => handler.output().includes('card_user_verification.successful'),
    10_000,
    'the handler to log',
  )
  expect(handler.output()).toContain(user.body.data.userCard.reference)

  // a secret the handler does not know: 401, logged and retried
  await s.call('PUT', '/__sandbox/webhook', { url: handler.url, secret: 'not-the-key' })
  const widget = await s.call('POST', '/v1/card-users/create', { phone: '+221770000000' })
  await s.call('POST', `/__sandbox/card-users/${widget.body.userCard.reference}/transition`, {
    to: 'passed',
  })
  await new Promise((resolve) => setImmediate(resolve))
  await s.deps.deliverer.idle()
  const latest = (await s.call('GET', '/__sandbox/webhooks')).body.data[0]
  expect(latest.attempts[0].status_code).toBe(401)
  expect(latest.status).toBe('pending')
})
