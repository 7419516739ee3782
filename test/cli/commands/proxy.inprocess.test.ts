/**
 * `card-sandbox proxy` in this process (src/cli/commands/proxy.ts's run(), its output captured): its
 * first line says where it listens and what it relays to, each exchange prints one masked line,
 * the record file fills, Ctrl-C stops it with 0; a usage mistake exits 2, a proxy that cannot
 * start 1. The built command: test/cli/proxy.test.ts.
 */
import { readFileSync } from 'node:fs'
import { createServer, type Server } from 'node:http'
import type { AddressInfo } from 'node:net'
import { join } from 'node:path'
import { afterEach, describe, expect, it } from 'vitest'
import { proxyCommand } from '../../../src/cli/commands/proxy.js'
import { tempDir } from '../../temp-dir.js'
import { startRun, startService } from './in-process.js'

const cleanups: (() => unknown)[] = []
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup()
})

const run = (args: string[]) => startRun((a, e) => proxyCommand.run(a, e), args, {}).done

/** `card-sandbox proxy <args>` serving in this process until its test ends. */
async function proxy(args: string[]) {
  const served = await startService((a, e) => proxyCommand.run(a, e), args, {})
  cleanups.push(served.end)
  return served
}

/** An upstream on a free port answering its request's URL, and an access token. */
async function upstream(): Promise<string> {
  const server: Server = createServer((req, res) => {
    res.writeHead(200, { 'Content-Type': 'application/json' })
    res.end(JSON.stringify({ url: req.url, data: { access_token: 'acc_0123456789abcdefghij' } }))
  })
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  cleanups.push(() => new Promise((resolve) => server.close(resolve)))
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}`
}

describe('card-sandbox proxy', () => {
  it('relays to --upstream, prints one masked line per exchange, records it, and stops on SIGINT', async () => {
    const upstreamUrl = `${await upstream()}/v1`
    const file = join(tempDir(), 'run.jsonl')
    const served = await proxy(['--upstream', upstreamUrl, '--port', '0', '--record', file])
    expect(served.code).toBe(0)
    const base = /^card-sandbox proxy: (http:\/\/127\.0\.0\.1:\d+\/v1) → /.exec(served.live.stdout)
    expect(served.live.stdout).toBe(
      `card-sandbox proxy: ${base?.[1]} → ${upstreamUrl}, recording to ${file}. Ctrl-C stops.\n`,
    )
    expect(served.live.stderr).toBe('')

    const res = await fetch(`${base![1]}/cards?token=tok_secret_0123456789`, {
      headers: { Authorization: 'Bearer live-key-0123456789' },
    })
    expect(res.status).toBe(200)
    expect(((await res.json()) as { url: string }).url).toBe(
      '/v1/cards?token=tok_secret_0123456789',
    )
    const [, exchange] = served.live.stdout.split('\n')
    expect(exchange).toMatch(
      /^GET {4}\/v1\/cards\?token=\*{17}6789 200 \d+(\.\d+)?ms {2}\d+ findings$/,
    )
    const record = readFileSync(file, 'utf8')
    expect(record.split('\n').filter(Boolean)).toHaveLength(1)
    for (const secret of [
      'tok_secret_0123456789',
      'live-key-0123456789',
      'acc_0123456789abcdefghij',
    ])
      expect(record).not.toContain(secret)

    expect(await served.stop('SIGINT')).toEqual([0])
    await expect(fetch(`${base![1]}/cards`)).rejects.toThrow()
  })

  it('says what it does not record and masks, and warns of an upstream without /v1 and of an address others reach', async () => {
    const upstreamUrl = await upstream()
    const served = await proxy([
      '--upstream',
      upstreamUrl,
      '--port',
      '0',
      '--host',
      '0.0.0.0',
      '--mask-personal',
    ])
    expect(served.code).toBe(0)
    expect(served.live.stdout).toMatch(
      new RegExp(
        `^card-sandbox proxy: http://127\\.0\\.0\\.1:\\d+/v1 → ${upstreamUrl}, not recording ` +
          `\\(--record <file>\\), personal fields masked\\. Ctrl-C stops\\.\\n$`,
      ),
    )
    expect(served.live.stderr).toBe(
      `card-sandbox proxy: --upstream ${upstreamUrl} does not end in /v1: /v1/cards goes to ${upstreamUrl}/cards\n` +
        'card-sandbox proxy: listening on 0.0.0.0, not loopback: anyone who can reach this machine ' +
        `can send requests to ${upstreamUrl} with whatever key the proxy is given\n`,
    )
    expect(await served.stop('SIGTERM')).toEqual([0])
  })

  it('exits 2 on a usage mistake, naming the flag', async () => {
    const upstreamUrl = 'http://127.0.0.1:1/v1'
    for (const [args, message] of [
      [[], "needs --upstream <url>, the real service's base URL with /v1"],
      [
        ['--upstream', upstreamUrl, '--timout', '5'],
        'unknown flag --timout; did you mean --timeout?',
      ],
      [
        ['--upstream', upstreamUrl, '--port', 'x'],
        '--port must be a whole number from 0 to 65535 (got "x")',
      ],
      [
        ['--upstream', upstreamUrl, '--timeout', '0'],
        '--timeout must be a whole number from 1 to 3600000 (got "0")',
      ],
      [
        ['--upstream', 'ftp://example.com/v1'],
        '--upstream must be an http(s) URL (got "ftp://example.com/v1")',
      ],
      [['--upstream', upstreamUrl, 'now'], 'unexpected argument now'],
      [
        ['--upstream', upstreamUrl, '--port', '65536'],
        '--port must be a whole number from 0 to 65535 (got "65536")',
      ],
      [
        ['--upstream', upstreamUrl, '--port', '80x'],
        '--port must be a whole number from 0 to 65535 (got "80x")',
      ],
      [
        ['--upstream', upstreamUrl, '--port', 'x80'],
        '--port must be a whole number from 0 to 65535 (got "x80")',
      ],
      [
        ['--upstream', upstreamUrl, '--timeout', '3600001'],
        '--timeout must be a whole number from 1 to 3600000 (got "3600001")',
      ],
      [
        ['--upstream', 'xhttp://example.com/v1'],
        '--upstream must be an http(s) URL (got "xhttp://example.com/v1")',
      ],
      [
        ['--upstream', 'http://example.com/v1 x'],
        '--upstream must be an http(s) URL (got "http://example.com/v1 x")',
      ],
    ] as const) {
      expect(await run([...args]), args.join(' ')).toEqual({
        code: 2,
        stdout: '',
        stderr: `card-sandbox proxy: ${message}\nRun 'npx card-sandbox help proxy'.\n`,
      })
    }
    const host = await run(['--upstream', upstreamUrl, '--allowed-host', 'http://a.test/'])
    expect(host.code).toBe(2)
    expect(host.stderr).toMatch(/^card-sandbox proxy: --allowed-host: /)
  })

  it('takes the longest timeout, 3,600,000 ms (an hour)', async () => {
    const served = await proxy([
      '--upstream',
      `${await upstream()}/v1`,
      '--port',
      '0',
      '--timeout',
      '3600000',
    ])
    expect(served.code).toBe(0)
    expect(served.live.stderr).toBe('')
    expect(await served.stop('SIGTERM')).toEqual([0])
  })

  it('exits 1 when it cannot start: a port in use, a record file it cannot write', async () => {
    const taken = createServer()
    await new Promise<void>((resolve) => taken.listen(0, '127.0.0.1', resolve))
    cleanups.push(() => new Promise((resolve) => taken.close(resolve)))
    const port = (taken.address() as AddressInfo).port
    const upstreamUrl = 'http://127.0.0.1:1/v1'
    expect(await run(['--upstream', upstreamUrl, '--port', String(port)])).toEqual({
      code: 1,
      stdout: '',
      stderr: `card-sandbox proxy: could not start: port ${port} is already in use (try --port 0)\n`,
    })
    const unwritable = join(tempDir(), 'no', 'such', 'dir', 'run.jsonl')
    const record = await run(['--upstream', upstreamUrl, '--port', '0', '--record', unwritable])
    expect(record.code).toBe(1)
    expect(record.stderr).toMatch(/^card-sandbox proxy: could not start: ENOENT/)
  })
})
