/**
 * `card-sandbox proxy` as the built command runs it (`npm test` builds dist/ first): its first
 * line names where it listens, each exchange prints one masked line, the record file fills,
 * Ctrl-C stops it with 0; an HTTPS upstream whose CA NODE_EXTRA_CA_CERTS names. The usage
 * mistakes and the rest, in this process: test/cli/commands/proxy.inprocess.test.ts.
 */
import { spawn, spawnSync } from 'node:child_process'
import { mkdtempSync, readFileSync } from 'node:fs'
import { createServer } from 'node:http'
import { createServer as createHttpsServer } from 'node:https'
import type { AddressInfo } from 'node:net'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { createInterface } from 'node:readline'
import { describe, expect, it } from 'vitest'

const CLI = new URL('../../dist/bin/card-sandbox.js', import.meta.url).pathname

describe('card-sandbox proxy', () => {
  it('relays to --upstream, prints one masked line per exchange, records it, and stops on SIGINT', async () => {
    const upstream = createServer((req, res) => {
      res.writeHead(200, { 'Content-Type': 'application/json' })
      res.end(JSON.stringify({ url: req.url, data: { access_token: 'acc_0123456789abcdefghij' } }))
    })
    await new Promise<void>((resolve) => upstream.listen(0, '127.0.0.1', resolve))
    const upstreamUrl = `http://127.0.0.1:${(upstream.address() as AddressInfo).port}/v1`
    const file = join(mkdtempSync(join(tmpdir(), 'card-sandbox-proxy-cli-')), 'run.jsonl')
    const child = spawn(
      process.execPath,
      [CLI, 'proxy', '--upstream', upstreamUrl, '--port', '0', '--record', file],
      { stdio: ['ignore', 'pipe', 'pipe'] },
    )
    try {
      const lines = createInterface({ input: child.stdout })[Symbol.asyncIterator]()
      const first = (await lines.next()).value as string
      expect(first).toContain(`→ ${upstreamUrl}, recording to ${file}`)
      const base = /(http:\/\/127\.0\.0\.1:\d+\/v1)/.exec(first)![1]
      const res = await fetch(`${base}/cards?token=tok_secret_0123456789`, {
        headers: { Authorization: 'Bearer live-key-0123456789' },
      })
      expect(res.status).toBe(200)
      expect(((await res.json()) as { url: string }).url).toBe(
        '/v1/cards?token=tok_secret_0123456789',
      )
      const exchange = (await lines.next()).value as string
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
      const exited = new Promise<number | null>((resolve) => child.once('exit', resolve))
      child.kill('SIGINT')
      expect(await exited).toBe(0)
    } finally {
      child.kill()
      upstream.close()
    }
  })

  it('reaches an HTTPS upstream whose CA NODE_EXTRA_CA_CERTS names', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'card-sandbox-proxy-tls-'))
    const key = join(dir, 'key.pem')
    const cert = join(dir, 'cert.pem')
    // a CA of its own, for localhost: not among the system's, so only NODE_EXTRA_CA_CERTS makes it trusted
    const made = spawnSync(
      'openssl',
      [
        ...['req', '-x509', '-newkey', 'rsa:2048', '-nodes', '-days', '1'],
        ...['-keyout', key, '-out', cert, '-subj', '/CN=localhost'],
        ...['-addext', 'subjectAltName=DNS:localhost,IP:127.0.0.1'],
      ],
      { encoding: 'utf8' },
    )
    expect(made.status, made.stderr).toBe(0)
    const upstream = createHttpsServer(
      { key: readFileSync(key), cert: readFileSync(cert) },
      (req, res) => {
        res.writeHead(200, { 'Content-Type': 'application/json' })
        res.end(JSON.stringify({ url: req.url }))
      },
    )
    await new Promise<void>((resolve) => upstream.listen(0, '127.0.0.1', resolve))
    const port = (upstream.address() as AddressInfo).port
    const child = spawn(
      process.execPath,
      [CLI, 'proxy', '--upstream', `https://localhost:${port}/v1`, '--port', '0'],
      { stdio: ['ignore', 'pipe', 'pipe'], env: { ...process.env, NODE_EXTRA_CA_CERTS: cert } },
    )
    try {
      const lines = createInterface({ input: child.stdout })[Symbol.asyncIterator]()
      const base = /(http:\/\/127\.0\.0\.1:\d+\/v1)/.exec((await lines.next()).value as string)![1]
      const res = await fetch(`${base}/cards?page=2`)
      expect(res.status).toBe(200)
      expect(await res.json()).toEqual({ url: '/v1/cards?page=2' })
    } finally {
      child.kill()
      upstream.close()
    }
  })
})
