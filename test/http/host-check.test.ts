/**
 * The DNS-rebinding guard (PRODUCT §11): only the sandbox's own Host names get in; any other
 * gets 403 in the error shape, naming --allowed-host, before anything runs. In-process through
 * app.request(), and over real sockets with hand-set Host headers (node:http lets a test set
 * one; a browser on a rebound name sends its own name).
 */
import { request } from 'node:http'
import { connect } from 'node:net'
import { hostname, networkInterfaces } from 'node:os'
import { afterEach, describe, expect, it } from 'vitest'
import {
  allowedHostnames,
  hostName,
  hostnameOfUrl,
  isLoopback,
} from '../../src/http/middleware/host-check.js'
import { startSandbox, type RunningSandbox, type SandboxOptions } from '../../src/server/sandbox.js'
import { newSandbox, TOKEN } from '../helpers.js'

const UNKNOWN_UUID = '6f1c2a7e-1111-4222-8333-944444444444'

/** One request of each kind of route: /v1, control plane, dashboard, hosted pages, unknown. */
const ROUTE_KINDS: [method: string, path: string][] = [
  ['GET', '/v1/cards'],
  ['POST', '/v1/card-users/create'],
  ['GET', '/__sandbox/clock'],
  ['POST', '/__sandbox/reset'],
  ['GET', '/__sandbox/health'],
  ['GET', '/__sandbox/openapi.json'],
  ['GET', '/__sandbox/docs'],
  ['GET', '/__sandbox/ui'],
  ['GET', '/__sandbox/ui/panel'],
  ['GET', '/__sandbox/widget.js'],
  ['GET', `/__sandbox/verify/${UNKNOWN_UUID}`],
  ['GET', `/__sandbox/checkout/${UNKNOWN_UUID}`],
  ['POST', `/__sandbox/checkout/${UNKNOWN_UUID}`],
  ['GET', '/nowhere'],
]

const running: RunningSandbox[] = []
afterEach(async () => {
  await Promise.all(running.splice(0).map((s) => s.close()))
})

async function serve(options: SandboxOptions = {}) {
  const sandbox = await startSandbox({ port: 0, clock: 'manual', ...options })
  running.push(sandbox)
  return sandbox
}

type Answer = { status: number; headers: Record<string, unknown>; body: string }

/** One HTTP/1.1 request to `address:port` with the Host header set by hand. */
function send(
  port: number,
  method: string,
  path: string,
  host: string,
  address = '127.0.0.1',
): Promise<Answer> {
  return new Promise((resolve, reject) => {
    const req = request(
      {
        host: address,
        port,
        method,
        path,
        headers: {
          Host: host,
          Authorization: `Bearer ${TOKEN}`,
          ...(method === 'POST' && { 'Content-Type': 'application/json' }),
        },
      },
      (res) => {
        let body = ''
        res.setEncoding('utf8')
        res.on('data', (chunk) => (body += chunk))
        res.on('end', () => resolve({ status: res.statusCode!, headers: res.headers, body }))
      },
    )
    req.on('error', reject)
    req.end(method === 'POST' ? JSON.stringify({ phone: '+221770000001', answer: 'pay' }) : '')
  })
}

function expectRefused(answer: Answer, host: string, what: string) {
  expect(answer.status, `${what}: ${answer.body}`).toBe(403)
  expect(answer.headers['content-type']).toMatch(/^application\/json/)
  const body = JSON.parse(answer.body)
  expect(body).toEqual({ message: expect.any(String), statusCode: 403 })
  expect(body.message).toContain(`"${host}"`)
  expect(body.message).toContain(`--allowed-host ${host} (or CARD_SANDBOX_ALLOWED_HOST).`)
}

/** The first IPv4 address of this machine that is not loopback. */
function interfaceAddress(): string | undefined {
  return Object.values(networkInterfaces())
    .flat()
    .find((a) => a && a.family === 'IPv4' && !a.internal)?.address
}

describe('a foreign Host over a socket', () => {
  it('gets 403 naming --allowed-host on every kind of route, and changes nothing', async () => {
    const sandbox = await serve()
    for (const [method, path] of ROUTE_KINDS) {
      const answer = await send(sandbox.port, method, path, `evil.example:${sandbox.port}`)
      expectRefused(answer, 'evil.example', `${method} ${path}`)
    }
    // the refused POST /v1/card-users/create created no tenant and no card user
    expect(await sandbox.deps.tenants.all()).toEqual([])
    const own = await send(sandbox.port, 'GET', '/v1/card-users', `127.0.0.1:${sandbox.port}`)
    expect(own.status).toBe(200)
    expect(JSON.parse(own.body).data[0].data).toEqual([])
  })

  it('lets the same requests in under the sandbox’s own names, whatever the port', async () => {
    const sandbox = await serve()
    for (const host of ['localhost', 'LOCALHOST:1', '127.0.0.1:80', '[::1]:4010', '[::1]']) {
      for (const [method, path] of ROUTE_KINDS) {
        const answer = await send(sandbox.port, method, path, host)
        expect(answer.status, `${host} ${method} ${path}: ${answer.body}`).not.toBe(403)
      }
    }
  })

  it('refuses names that only look like its own', async () => {
    const sandbox = await serve()
    for (const host of ['localhost.evil.example', '127.0.0.1.nip.io', 'evil-localhost', '[::2]']) {
      expectRefused(await send(sandbox.port, 'GET', '/__sandbox/ui', host), host, host)
    }
  })

  it('answers an HTTP/1.0 request without a Host header (no browser sends one)', async () => {
    const sandbox = await serve()
    const raw = await new Promise<string>((resolve, reject) => {
      const socket = connect(sandbox.port, '127.0.0.1', () =>
        socket.write('GET /__sandbox/health HTTP/1.0\r\n\r\n'),
      )
      let text = ''
      socket.setEncoding('utf8')
      socket.on('data', (chunk: string) => (text += chunk))
      socket.on('end', () => resolve(text))
      socket.on('error', reject)
    })
    expect(raw).toMatch(/^HTTP\/1\.[01] 200 /)
    expect(raw).toContain('{"status":"ok"}')
  })

  it('accepts the names given with allowedHosts (--allowed-host) and the publicUrl host', async () => {
    const sandbox = await serve({
      allowedHosts: ['Sandbox.Test', 'fd00::7'],
      publicUrl: 'https://tunnel.example.dev/',
    })
    for (const host of ['sandbox.test:8080', '[fd00::7]', 'tunnel.example.dev']) {
      expect((await send(sandbox.port, 'GET', '/__sandbox/ui', host)).status, host).toBe(200)
    }
    expectRefused(await send(sandbox.port, 'GET', '/__sandbox/ui', 'other.test'), 'other.test', '')
  })
})

describe('bound to a wildcard address', () => {
  it("accepts the machine's interface address and host name, and still refuses others", async () => {
    const sandbox = await serve({ host: '0.0.0.0' })
    const address = interfaceAddress()
    // connect to the interface itself when the machine has one besides loopback
    const answer = address
      ? await send(sandbox.port, 'GET', '/__sandbox/ui', `${address}:${sandbox.port}`, address)
      : await send(sandbox.port, 'GET', '/__sandbox/ui', '192.0.2.1') // no interface: refused
    expect(answer.status, answer.body).toBe(address ? 200 : 403)
    const named = await send(sandbox.port, 'GET', '/__sandbox/health', hostname())
    expect(named.status, named.body).toBe(200)
    expectRefused(
      await send(sandbox.port, 'GET', '/__sandbox/ui', 'evil.example'),
      'evil.example',
      '',
    )
  })

  it('shows its url (and links) as 127.0.0.1', async () => {
    const sandbox = await serve({ host: '0.0.0.0' })
    expect(sandbox.url).toBe(`http://127.0.0.1:${sandbox.port}`)
    expect((await fetch(`${sandbox.url}/__sandbox/health`)).status).toBe(200)
  })

  it('while bound to loopback, refuses the interface address and host name', async () => {
    const sandbox = await serve()
    const names = [interfaceAddress() ?? '192.0.2.1', hostname()]
    for (const name of names) {
      if (name === 'localhost') continue
      expectRefused(await send(sandbox.port, 'GET', '/__sandbox/ui', name), name.toLowerCase(), '')
    }
  })
})

describe('in-process (app.request)', () => {
  it('lets a bare path in: it is addressed to localhost', async () => {
    const s = newSandbox()
    expect((await s.app.request('/__sandbox/health')).status).toBe(200)
    expect((await s.call('GET', '/v1/cards')).status).toBe(200)
    expect((await s.app.request('http://127.0.0.1:4010/__sandbox/health')).status).toBe(200)
  })

  it('refuses a full URL naming another host, as a socket would', async () => {
    const s = newSandbox()
    const res = await s.app.request('http://evil.example/v1/cards', {
      headers: { Authorization: `Bearer ${TOKEN}` },
    })
    expect(res.status).toBe(403)
    expect(res.headers.get('x-content-type-options')).toBe('nosniff')
    const body = (await res.json()) as { message: string; statusCode: number }
    expect(body.statusCode).toBe(403)
    expect(body.message).toContain('--allowed-host evil.example')
    // refused before auth: no tenant was made for the token
    expect(await s.deps.tenants.all()).toEqual([])
  })
})

describe('the set of names', () => {
  it('is the loopback names and the bound host; a wildcard adds interfaces and host name', () => {
    expect([...allowedHostnames({ host: '127.0.0.1' })].sort()).toEqual(
      ['127.0.0.1', '[::1]', 'localhost'].sort(),
    )
    expect(allowedHostnames({ host: '192.0.2.9' }).has('192.0.2.9')).toBe(true)
    expect(allowedHostnames({ host: '::1' }).has('[::1]')).toBe(true)
    const wildcard = allowedHostnames({ host: '::' })
    expect(wildcard.has(hostname().toLowerCase())).toBe(true)
    for (const a of Object.values(networkInterfaces()).flat()) {
      if (!a) continue
      expect(wildcard.has(a.family === 'IPv6' ? `[${a.address}]` : a.address), a.address).toBe(true)
    }
    expect(wildcard.has('0.0.0.0')).toBe(false)
  })

  it('normalizes the names given: case, port and IPv6 brackets', () => {
    expect(hostName('Sandbox.Test:4010')).toBe('sandbox.test')
    expect(hostName('fd00::7')).toBe('[fd00::7]')
    expect(hostName('[FD00::7]:80')).toBe('[fd00::7]')
    for (const bad of ['http://a.test', 'a.test/path', '*', '*.a.test', 'a b', ''])
      expect(() => hostName(bad), bad).toThrow(/host name/)
  })

  it('reads the hostname of a request URL without its port', () => {
    expect(hostnameOfUrl('http://localhost/v1')).toBe('localhost')
    expect(hostnameOfUrl('http://Evil.Example:4010/v1?x=//y')).toBe('evil.example')
    expect(hostnameOfUrl('http://[::1]:4010/')).toBe('[::1]')
    expect(hostnameOfUrl('http://127.0.0.1')).toBe('127.0.0.1')
  })
})

describe('isLoopback', () => {
  it('is true for localhost, 127.0.0.0/8 and ::1 (bare or bracketed), in any case and spacing', () => {
    for (const host of ['localhost', ' LocalHost ', '::1', '[::1]', '127.0.0.1', '127.1.22.255'])
      expect(isLoopback(host), host).toBe(true)
  })

  it('is false for any other name or address, and for what only looks like one', () => {
    for (const host of [
      '0.0.0.0',
      '::',
      'example.test',
      'localhost.example.test',
      '::2',
      '[::2]',
      '128.0.0.1',
      '10.127.0.0.1',
      '127.0.0',
      '127.0.0.1.5',
      '127.0.0.1234',
      '127.0.0.x',
      '127.a.b.c',
      '',
    ])
      expect(isLoopback(host), host).toBe(false)
  })
})

describe('hostName', () => {
  it('trims and lowercases, and drops a port only when it is one', () => {
    expect(hostName(' Example.Test:4010 ')).toBe('example.test')
    expect(hostName('[FD00::7]:8080')).toBe('[fd00::7]')
    expect(() => hostName('example.test:80x')).toThrow(
      /not a host name or address: "example.test:80x"/,
    )
  })
})
