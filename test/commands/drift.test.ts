/**
 * `card-sandbox drift <file>` as the built command runs it, on the stand-in's recording
 * (test/drift/stand-in.ts): a terminal report grouped by route, --json, --check's exit codes,
 * a clear exit 2 for a missing or malformed file, --scenario's file loaded by a sandbox, and
 * --webhook on a delivery the sandbox really sent.
 */
import { spawnSync } from 'node:child_process'
import { existsSync, readFileSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { afterEach, beforeAll, describe, expect, it } from 'vitest'
import type { RecordLine } from '../../src/drift/report.js'
import { startSandbox } from '../../src/index.js'
import { signPayload } from '../../src/kits/testing.js'
import { fullIdentity, newSandbox, UUID } from '../helpers.js'
import { tempDir } from '../temp-dir.js'
import { startReceiver, until } from '../webhooks/receiver.js'
import { record } from '../drift/stand-in.js'

const cleanups: (() => unknown)[] = []
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup()
})

const CLI = new URL('../../dist/bin/card-sandbox.js', import.meta.url).pathname

function drift(...args: string[]) {
  return driftWith({}, ...args)
}

function driftWith(env: Record<string, string>, ...args: string[]) {
  const run = spawnSync(process.execPath, [CLI, 'drift', ...args], {
    encoding: 'utf8',
    env: { ...process.env, CARD_SANDBOX_WEBHOOK_SECRET: '', ...env },
  })
  return { code: run.status, stdout: run.stdout, stderr: run.stderr }
}

function recordFile(lines: RecordLine[]): string {
  const file = join(tempDir(), 'drift.jsonl')
  writeFileSync(file, lines.map((line) => JSON.stringify(line) + '\n').join(''))
  return file
}

let drifted: RecordLine[]
let clean: RecordLine[]
beforeAll(async () => {
  const recorded = await record()
  drifted = recorded.lines
  // the same exchanges, as the sandbox itself answered them: the findings of the unedited answers
  clean = recorded.lines.map((line, i) => ({ ...line, findings: recorded.unedited[i] }))
})

describe('card-sandbox drift', () => {
  it('--check exits 1 on a recording with a finding, 0 on a clean one', () => {
    const found = drift(recordFile(drifted), '--check')
    expect(found.code, found.stderr).toBe(1)
    const none = drift(recordFile(clean), '--check')
    expect(none.code, none.stderr).toBe(0)
    expect(none.stdout).toMatch(/^16 exchanges, 0 findings on 0 of 10 routes\n/)
  })

  it('exits 0 without --check, whatever it found', () => {
    expect(drift(recordFile(drifted)).code).toBe(0)
  })

  it('--json prints the report as JSON', () => {
    const run = drift(recordFile(drifted), '--json')
    expect(run.code, run.stderr).toBe(0)
    const report = JSON.parse(run.stdout)
    expect(report.exchanges).toBe(drifted.length)
    expect(report.findings).toBe(14)
    expect(report.routes[0].route).toBe('GET /v1/card-users/{reference}')
    expect(report.timing.find((t: any) => t.delay === 'card_issuing')).toMatchObject({
      lastOldMs: 6000,
      firstNewMs: 9000,
      sandboxMs: 5000,
    })
  })

  it('groups the terminal report by route, each finding under its route with its count', () => {
    const run = drift(recordFile(drifted))
    const text = run.stdout
    expect(text).toMatch(/^16 exchanges, 14 findings on 5 of 10 routes\n/)
    const block = (route: string) => {
      const start = text.indexOf(`\n${route}  (`)
      expect(start, `no block for ${route}`).toBeGreaterThan(0)
      return text.slice(start + 1, text.indexOf('\n\n', start + 1))
    }
    expect(block('GET /v1/cards').split('\n')).toEqual([
      'GET /v1/cards  (2 exchanges, 3 findings)',
      '  type        $.data[*].balance   2×  upstream "0", sandbox integer',
      '  enum        $.data[*].status    1×',
      '              upstream "active", sandbox ["issuing","issued","frozen","failed"]',
    ])
    expect(block('GET /v1/cards/{reference}')).toContain(
      '  missing-key $.data.card.cvv2   2×  upstream absent, sandbox string or null',
    )
    expect(block('POST /v1/cards/freeze')).toBe(
      'POST /v1/cards/freeze  (2 exchanges, no difference)',
    )
    expect(text).toContain(
      '  card_issuing            old at 6.0 s, new at 9.0 s, sandbox 5.0 s (1 of 1 moved: active, issued)',
    )
    for (const line of text.split('\n')) expect(line.length).toBeLessThanOrEqual(100)
  })

  it('says what is wrong with a missing or malformed file, and exits 2', () => {
    const dir = tempDir()
    const missing = drift(join(dir, 'nothing.jsonl'))
    expect(missing.code).toBe(2)
    expect(missing.stderr).toBe(
      `card-sandbox drift: ${join(dir, 'nothing.jsonl')} does not exist\n`,
    )

    const broken = join(dir, 'broken.jsonl')
    writeFileSync(broken, JSON.stringify(drifted[0]) + '\n{"at": \n')
    const run = drift(broken, '--check')
    expect(run.code).toBe(2)
    expect(run.stderr).toMatch(/^card-sandbox drift: .*broken\.jsonl line 2 is not JSON \(/)

    const wrong = join(dir, 'wrong.jsonl')
    writeFileSync(wrong, JSON.stringify({ ...drifted[0], status: '200' }) + '\n')
    expect(drift(wrong).stderr).toBe(
      `card-sandbox drift: ${wrong} line 1 is not a record line: "status" must be a number\n`,
    )
  })

  it('needs exactly one file and knows its flags', () => {
    expect(drift().stderr).toMatch(/drift needs the record file: card-sandbox drift <file>/)
    const typo = drift('x.jsonl', '--chek')
    expect(typo.code).toBe(2)
    expect(typo.stderr).toMatch(/unknown flag --chek; did you mean --check\?/)
  })

  it('--scenario writes a scenario file that a sandbox loads, whose pinned routes edit the answers', async () => {
    const out = join(tempDir(), 'pinned.yaml')
    const run = drift(recordFile(drifted), '--scenario', out, '--check')
    expect(run.code, run.stderr).toBe(1)
    expect(run.stdout).toMatch(/^16 exchanges, 14 findings/)
    expect(run.stdout).toMatch(
      new RegExp(
        `\\nWrote ${out}: \\d+ rules pinning what drifted .*\\n` +
          `Load it with: npx card-sandbox --scenario ${out}\\n$`,
      ),
    )
    expect(readFileSync(out, 'utf8')).toContain('# POST /v1/cards/create: extra-key')

    const sandbox = await startSandbox({
      port: 0,
      log: 'silent',
      clock: 'manual',
      clockStart: '2026-11-28T17:00:00.000Z',
      scenarios: [out],
    })
    cleanups.push(() => sandbox.close())
    const call = async (method: string, path: string, body?: unknown) => {
      const res = await fetch(sandbox.url + path, {
        method,
        headers: {
          Authorization: 'Bearer drift-pinned',
          ...(body !== undefined && { 'Content-Type': 'application/json' }),
        },
        body: body === undefined ? undefined : JSON.stringify(body),
      })
      return { status: res.status, headers: res.headers, body: (await res.json()) as any }
    }
    const user = (await call('POST', '/v1/card-users/create', fullIdentity())).body.data.userCard
      .reference
    await call('POST', '/__sandbox/clock/advance', { by: 4_000 })
    const created = await call('POST', '/v1/cards/create', {
      card_user_reference: user,
      card_brand: 'visa',
      card_type: 'virtual',
    })
    expect(created.status).toBe(200)
    expect(created.headers.get('x-card-sandbox-scenario')).toMatch(/^pinned-drift\/rule \d+$/)
    const card = created.body.data.card
    expect(card.reference).toMatch(UUID)
    // the stand-in's extra key, pinned with the value it sent
    expect(card.nickname).toBe('travel')

    // read back: the sandbox's card, with the show route's pin (the stand-in sends no cvv2)
    await call('POST', '/__sandbox/clock/advance', { by: 10_000 })
    const shown = await call('GET', `/v1/cards/${card.reference}`)
    expect(shown.status).toBe(200)
    expect(shown.body.data.card.reference).toBe(card.reference)
    expect(shown.body.data.card.status).toBe('issued')
    expect('cvv2' in shown.body.data.card).toBe(false)
    const listed = await call('GET', '/v1/cards')
    expect(listed.body.data.map((c: any) => [c.reference, typeof c.balance])).toEqual([
      [card.reference, 'string'],
    ])
    // the stand-in's slower issuing, pinned from the recording's bounds
    expect((await call('GET', '/__sandbox/delays')).body.data.card_issuing).toBe(9000)
  })

  it('--scenario under --json keeps stdout one JSON document', () => {
    const out = join(tempDir(), 'pinned.yaml')
    const run = drift(recordFile(drifted), '--json', '--scenario', out)
    expect(run.code, run.stderr).toBe(0)
    expect(JSON.parse(run.stdout).findings).toBe(14)
    expect(run.stderr).toContain(`Load it with: npx card-sandbox --scenario ${out}`)
    expect(existsSync(out)).toBe(true)
  })

  it('--webhook compares a saved delivery clean with the right secret and reports a wrong one', async () => {
    const secret = 'whsec_drift_cli'
    const receiver = await startReceiver()
    const s = newSandbox({ webhookTimeoutMs: 1000 })
    cleanups.push(
      () => receiver.close(),
      () => s.close(),
    )
    await s.call('PUT', '/__sandbox/webhook', { url: receiver.url, secret })
    await s.call('POST', '/v1/card-users/create', fullIdentity())
    await s.call('POST', '/__sandbox/clock/advance', { by: '3s' })
    await until(() => receiver.requests.length === 1, 5_000, 'one delivery')
    const { headers, body } = receiver.requests[0]
    const file = join(tempDir(), 'delivery.json')
    writeFileSync(file, JSON.stringify({ headers, body }))

    const clean = drift('--webhook', file, '--secret', secret, '--check')
    expect(clean.code, clean.stderr).toBe(0)
    expect(clean.stdout).toBe(
      "webhook card_user_verification.successful: no difference from the sandbox's event\n" +
        'signature: verifies with the secret given\n',
    )
    // the secret from the environment, as a CI job passes it
    expect(driftWith({ CARD_SANDBOX_WEBHOOK_SECRET: secret }, '--webhook', file).stdout).toContain(
      '\nsignature: verifies with the secret given\n',
    )
    expect(drift('--webhook', file).stdout).toContain(
      '\nsignature: not verified (no --secret nor CARD_SANDBOX_WEBHOOK_SECRET)\n',
    )

    const wrong = drift('--webhook', file, '--secret', 'not-the-secret', '--check')
    expect(wrong.code).toBe(1)
    expect(wrong.stdout.split('\n')).toEqual([
      'webhook card_user_verification.successful: 1 finding',
      'signature: does not verify with the secret given',
      '  signature   header:x-alal-signature',
      '              delivery does not verify with the secret given',
      '              sandbox  hex HMAC-SHA512 of the raw body (128 hex digits)',
      '',
    ])
    const json = driftWith(
      { CARD_SANDBOX_WEBHOOK_SECRET: 'not-the-secret' },
      '--webhook',
      file,
      '--json',
    )
    expect(json.code).toBe(0)
    expect(JSON.parse(json.stdout)).toEqual([
      {
        route: 'webhook card_user_verification.successful',
        path: 'header:x-alal-signature',
        kind: 'signature',
        upstream: 'does not verify with the secret given',
        sandbox: 'hex HMAC-SHA512 of the raw body (128 hex digits)',
      },
    ])

    // a delivery that drifted: a renamed status and an extra key, signed again with the secret
    const changed = JSON.parse(body)
    changed.data.status = 'verified'
    changed.data.kyc_level = 2
    const signed = signPayload(changed, secret)
    const driftedFile = join(tempDir(), 'drifted.json')
    writeFileSync(
      driftedFile,
      JSON.stringify({ headers: { ...headers, ...signed.headers }, body: signed.body }),
    )
    const drifted = drift('--webhook', driftedFile, '--secret', secret, '--check')
    expect(drifted.code).toBe(1)
    expect(drifted.stdout.split('\n')).toEqual([
      'webhook card_user_verification.successful: 2 findings',
      'signature: verifies with the secret given',
      '  extra-key   $.data.kyc_level  delivery number, sandbox absent',
      '  enum        $.data.status     delivery verified, sandbox ["passed"]',
      '',
    ])
  })

  it('--webhook says what is wrong with the delivery file or the flags', () => {
    const dir = tempDir()
    const notSaved = join(dir, 'delivery.json')
    writeFileSync(notSaved, JSON.stringify({ headers: {}, body: { event: 'x' } }))
    const run = drift('--webhook', notSaved)
    expect(run.code).toBe(2)
    expect(run.stderr).toBe(
      `card-sandbox drift: ${notSaved} is not a saved delivery: "body" must be the raw body as a string, as received\n`,
    )
    expect(drift('x.jsonl', '--webhook', notSaved).stderr).toMatch(
      /--webhook reads the delivery file alone/,
    )
    expect(drift('x.jsonl', '--secret', 's').stderr).toMatch(/--secret goes with --webhook/)
  })
})
