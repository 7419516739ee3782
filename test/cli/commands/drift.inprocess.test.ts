/**
 * `card-sandbox drift` in this process (src/cli/commands/drift.ts's run(), its output captured), on
 * the stand-in's recording (test/drift/stand-in.ts): a terminal report grouped by route, --json,
 * --check's exit codes, a clear exit 2 for a missing or malformed file, --scenario's file, and
 * --webhook on a delivery the sandbox really sent. The built command: drift.test.ts.
 */
import { existsSync, readFileSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { afterEach, beforeAll, describe, expect, it } from 'vitest'
import {
  driftCommand,
  formatReport,
  formatWebhook,
  parseDriftArgs,
  readDelivery,
  readRecording,
} from '../../../src/cli/commands/drift.js'
import type { RecordLine, Report } from '../../../src/drift/report.js'
import { parseScenario } from '../../../src/engine/scenarios/load.js'
import { signPayload } from '../../../src/webhooks/sign.js'
import { fullIdentity, newSandbox } from '../../helpers.js'
import { tempDir } from '../../temp-dir.js'
import { startReceiver, until } from '../../webhooks/receiver.js'
import { recordFile, recordings } from '../../drift/stand-in.js'
import { startRun } from './in-process.js'

const cleanups: (() => unknown)[] = []
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup()
})

const drift = (...args: string[]) => driftWith({}, ...args)

/** `card-sandbox drift <args>` with CARD_SANDBOX_WEBHOOK_SECRET empty unless `env` sets it. */
const driftWith = (env: Record<string, string>, ...args: string[]) =>
  startRun((a, e) => driftCommand.run(a, e), args, { CARD_SANDBOX_WEBHOOK_SECRET: '', ...env }).done

let drifted: RecordLine[]
let clean: RecordLine[]
beforeAll(async () => {
  ;({ drifted, clean } = await recordings())
})

describe('card-sandbox drift', () => {
  it('--check exits 1 on a recording with a finding, 0 on a clean one', async () => {
    const found = await drift(recordFile(drifted), '--check')
    expect(found.code, found.stderr).toBe(1)
    const none = await drift(recordFile(clean), '--check')
    expect(none.code, none.stderr).toBe(0)
    expect(none.stdout).toMatch(/^16 exchanges, 0 findings on 0 of 10 routes\n/)
  })

  it('exits 0 without --check, whatever it found', async () => {
    expect((await drift(recordFile(drifted))).code).toBe(0)
  })

  it('--json prints the report as JSON', async () => {
    const run = await drift(recordFile(drifted), '--json')
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

  it('groups the terminal report by route, each finding under its route with its count', async () => {
    const run = await drift(recordFile(drifted))
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

  it('says what is wrong with a missing or malformed file, and exits 2', async () => {
    const dir = tempDir()
    const missing = await drift(join(dir, 'nothing.jsonl'))
    expect(missing.code).toBe(2)
    expect(missing.stderr).toBe(
      `card-sandbox drift: ${join(dir, 'nothing.jsonl')} does not exist\n`,
    )

    const broken = join(dir, 'broken.jsonl')
    writeFileSync(broken, JSON.stringify(drifted[0]) + '\n{"at": \n')
    const run = await drift(broken, '--check')
    expect(run.code).toBe(2)
    expect(run.stderr).toMatch(/^card-sandbox drift: .*broken\.jsonl line 2 is not JSON \(/)

    const wrong = join(dir, 'wrong.jsonl')
    writeFileSync(wrong, JSON.stringify({ ...drifted[0], status: '200' }) + '\n')
    expect((await drift(wrong)).stderr).toBe(
      `card-sandbox drift: ${wrong} line 1 is not a record line: "status" must be a number\n`,
    )
  })

  it('needs exactly one file and knows its flags', async () => {
    expect((await drift()).stderr).toMatch(/drift needs the record file: card-sandbox drift <file>/)
    const typo = await drift('x.jsonl', '--chek')
    expect(typo.code).toBe(2)
    expect(typo.stderr).toMatch(/unknown flag --chek; did you mean --check\?/)
  })

  it('--scenario writes what drifted as a scenario file, and says how many rules and how to load it', async () => {
    const out = join(tempDir(), 'pinned.yaml')
    const run = await drift(recordFile(drifted), '--scenario', out, '--check')
    expect(run.code, run.stderr).toBe(1)
    expect(run.stdout).toMatch(/^16 exchanges, 14 findings/)
    const rules = parseScenario(readFileSync(out, 'utf8'), out).rules
    expect(run.stdout).toMatch(
      new RegExp(
        `\\n\\nWrote ${out}: ${rules.length} rules pinning what drifted \\(each says where it comes from\\)\\.\\n` +
          `Load it with: npx card-sandbox --scenario ${out}\\n$`,
      ),
    )
    expect(rules.map((rule) => `${rule.match.method} ${rule.match.path}`)).toContain(
      'POST /v1/cards/create',
    )
    const unwritable = join(tempDir(), 'no', 'such', 'dir', 'pinned.yaml')
    const refused = await drift(recordFile(drifted), '--scenario', unwritable)
    expect(refused.code).toBe(2)
    expect(refused.stderr).toMatch(
      new RegExp(`^card-sandbox drift: cannot write ${unwritable}: ENOENT`),
    )
  })

  it('--scenario under --json keeps stdout one JSON document', async () => {
    const out = join(tempDir(), 'pinned.yaml')
    const run = await drift(recordFile(drifted), '--json', '--scenario', out)
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

    const clean = await drift('--webhook', file, '--secret', secret, '--check')
    expect(clean.code, clean.stderr).toBe(0)
    expect(clean.stdout).toBe(
      "webhook card_user_verification.successful: no difference from the sandbox's event\n" +
        'signature: verifies with the secret given\n',
    )
    // the secret from the environment, as a CI job passes it
    expect(
      (await driftWith({ CARD_SANDBOX_WEBHOOK_SECRET: secret }, '--webhook', file)).stdout,
    ).toContain('\nsignature: verifies with the secret given\n')
    expect((await drift('--webhook', file)).stdout).toContain(
      '\nsignature: not verified (no --secret nor CARD_SANDBOX_WEBHOOK_SECRET)\n',
    )

    const wrong = await drift('--webhook', file, '--secret', 'not-the-secret', '--check')
    expect(wrong.code).toBe(1)
    expect(wrong.stdout.split('\n')).toEqual([
      'webhook card_user_verification.successful: 1 finding',
      'signature: does not verify with the secret given',
      '  signature   header:x-alal-signature',
      '              delivery does not verify with the secret given',
      '              sandbox  hex HMAC-SHA512 of the raw body (128 hex digits)',
      '',
    ])
    const json = await driftWith(
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
    const drifted = await drift('--webhook', driftedFile, '--secret', secret, '--check')
    expect(drifted.code).toBe(1)
    expect(drifted.stdout.split('\n')).toEqual([
      'webhook card_user_verification.successful: 2 findings',
      'signature: verifies with the secret given',
      '  extra-key   $.data.kyc_level  delivery number, sandbox absent',
      '  enum        $.data.status     delivery verified, sandbox ["passed"]',
      '',
    ])
  })

  it('--webhook says what is wrong with the delivery file or the flags', async () => {
    const dir = tempDir()
    const notSaved = join(dir, 'delivery.json')
    writeFileSync(notSaved, JSON.stringify({ headers: {}, body: { event: 'x' } }))
    const run = await drift('--webhook', notSaved)
    expect(run.code).toBe(2)
    expect(run.stderr).toBe(
      `card-sandbox drift: ${notSaved} is not a saved delivery: "body" must be the raw body as a string, as received\n`,
    )
    expect((await drift('x.jsonl', '--webhook', notSaved)).stderr).toMatch(
      /--webhook reads the delivery file alone/,
    )
    expect((await drift('x.jsonl', '--secret', 's')).stderr).toMatch(/--secret goes with --webhook/)
  })
})

describe('card-sandbox drift: its arguments and files, each refusal in words', () => {
  it('takes one record file, or a delivery with --webhook alone', () => {
    expect(parseDriftArgs(['rec.jsonl'])).toEqual({
      file: 'rec.jsonl',
      json: false,
      check: false,
      scenario: undefined,
    })
    expect(parseDriftArgs([])).toBe('drift needs the record file: card-sandbox drift <file>')
    expect(parseDriftArgs(['a.jsonl', 'b.jsonl'])).toBe(
      'drift reads one record file (got 2: a.jsonl, b.jsonl)',
    )
    expect(parseDriftArgs(['--webhook', 'd.json', 'a.jsonl'])).toBe(
      '--webhook reads the delivery file alone (a record file was given too: a.jsonl)',
    )
    expect(parseDriftArgs(['--webhook', 'd.json', '--scenario', 's.yaml'])).toBe(
      '--scenario pins a record file, not a webhook delivery',
    )
    expect(parseDriftArgs(['--secret', 'x', 'a.jsonl'])).toBe(
      '--secret goes with --webhook <delivery.json>',
    )
  })

  it('names the line of a record file that is not a record line, and what is wrong with it', () => {
    const dir = tempDir()
    const good = { at: '2026-12-01T10:00:00.000Z', method: 'GET', path: '/v1/cards', status: 200 }
    const fileWith = (line: unknown) => {
      const file = join(dir, `r${Math.random()}.jsonl`)
      writeFileSync(file, `${JSON.stringify(good)}\n\n${JSON.stringify(line)}\n`)
      return file
    }
    const problem = (line: unknown) => {
      const file = fileWith(line)
      const read = readRecording(file)
      expect(typeof read).toBe('string')
      return (read as string).replace(`${file} line 3 is not a record line: `, '')
    }
    expect(problem([good])).toBe('expected an object')
    expect(problem(null)).toBe('expected an object')
    expect(problem('text')).toBe('expected an object')
    expect(problem({ ...good, at: 'yesterday' })).toBe('"at" must be an ISO instant')
    expect(problem({ ...good, at: 5 })).toBe('"at" must be an ISO instant')
    expect(problem({ ...good, method: 1 })).toBe('"method" must be a string')
    expect(problem({ ...good, path: null })).toBe('"path" must be a string')
    expect(problem({ ...good, status: '200' })).toBe('"status" must be a number')
    expect(problem({ ...good, findings: {} })).toBe('"findings" must be an array')
    expect(readRecording(fileWith({ ...good, findings: [] }))).toEqual([
      good,
      { ...good, findings: [] },
    ])
    expect(readRecording(join(dir, 'none.jsonl'))).toBe(`${join(dir, 'none.jsonl')} does not exist`)
    expect(readRecording(dir)).toBe(`${dir} is a directory, not a record file`)
  })

  it('says what a saved delivery lacks', () => {
    const dir = tempDir()
    const saved = (text: string) => {
      const file = join(dir, `d${Math.random()}.json`)
      writeFileSync(file, text)
      const read = readDelivery(file)
      return typeof read === 'string' ? read.replace(`${file} `, '') : read
    }
    expect(saved('{"headers": {"a": "1"}, "body": "{}"}')).toEqual({
      headers: { a: '1' },
      body: '{}',
    })
    expect(saved('[1]')).toBe(
      'is not a saved delivery: expected an object {"headers": {...}, "body": "..."}',
    )
    expect(saved('null')).toMatch(/^is not a saved delivery: expected an object/)
    expect(saved('{"headers": [], "body": ""}')).toBe(
      'is not a saved delivery: "headers" must be an object of the headers received',
    )
    expect(saved('{"headers": null, "body": ""}')).toMatch(/"headers" must be an object/)
    expect(saved('{"body": ""}')).toMatch(/"headers" must be an object/)
    expect(saved('{"headers": {}, "body": {}}')).toBe(
      'is not a saved delivery: "body" must be the raw body as a string, as received',
    )
    expect(saved('{nope')).toMatch(/^is not JSON \(.+\); a saved delivery is \{"headers"/)
    expect(readDelivery(dir)).toBe(`${dir} is a directory, not a saved delivery`)
  })
})

describe('card-sandbox drift: the terminal report, line by line', () => {
  const at = '2026-12-01T10:00:00.000Z'
  const delay = { sandboxMs: 5000, resources: 0, moved: 0, lastOldMs: null, firstNewMs: null }

  it('says when no resource that moves by itself was read again, and leaves out the delays none shows', () => {
    const report: Report = {
      exchanges: 1,
      findings: 0,
      routes: [{ route: 'GET /v1/cards', exchanges: 1, findings: 0, counts: [] }],
      timing: [{ delay: 'card_issuing', ...delay, newStates: [] }],
    }
    expect(formatReport(report)).toBe(
      [
        '1 exchange, 0 findings on 0 of 1 route',
        '',
        'GET /v1/cards  (1 exchange, no difference)',
        '',
        'Delays (from each create: the last read in the old state, the first in the new)',
        '  no resource that moves by itself was created and read again',
        '',
      ].join('\n'),
    )
  })

  it('writes delays in seconds, one decimal under 10 s, a dash for none, the new states after', () => {
    const report: Report = {
      exchanges: 2,
      findings: 1,
      routes: [
        {
          route: 'GET /v1/cards/{reference}',
          exchanges: 2,
          findings: 1,
          counts: [
            {
              kind: 'missing-key',
              path: '$.data.card.cvv2',
              count: 1,
              examples: [{ at, upstream: 'absent', sandbox: 'string or null' }],
            },
          ],
        },
      ],
      timing: [
        {
          delay: 'card_issuing',
          ...delay,
          resources: 2,
          moved: 1,
          lastOldMs: 9999,
          firstNewMs: 10_000,
          newStates: ['failed', 'issued'],
        },
        { delay: 'payment_outcome', ...delay, resources: 0 },
        { delay: 'disburse_settlement', ...delay, resources: 1, newStates: [] },
      ] as Report['timing'],
    }
    const lines = formatReport(report).split('\n')
    expect(lines.slice(0, 4)).toEqual([
      '2 exchanges, 1 finding on 1 of 1 route',
      '',
      'GET /v1/cards/{reference}  (2 exchanges, 1 finding)',
      '  missing-key $.data.card.cvv2   1×  upstream absent, sandbox string or null',
    ])
    expect(lines.slice(-4)).toEqual([
      'Delays (from each create: the last read in the old state, the first in the new)',
      '  card_issuing         old at 10.0 s, new at 10 s, sandbox 5.0 s (1 of 2 moved: failed, issued)',
      '  disburse_settlement  old at -, new at -, sandbox 5.0 s (0 of 1 moved)',
      '',
    ])
  })

  it('shows a value of 48 characters whole, a header the upstream sent as JSON, absent as a word', () => {
    const count = (kind: string, upstream: unknown) => ({
      kind,
      path: '$.a',
      count: 1,
      examples: [{ at, upstream, sandbox: 'string' }],
    })
    const report = {
      exchanges: 1,
      findings: 3,
      routes: [
        {
          route: 'GET /v1/cards',
          exchanges: 1,
          findings: 3,
          counts: [
            count('type', 'y'.repeat(46)),
            count('header', 'text/html'),
            count('header', 'absent'),
          ],
        },
      ],
      timing: [],
    } as unknown as Report
    const lines = formatReport(report).split('\n')
    expect(lines.slice(3, 6)).toEqual([
      `  type        $.a   1×  upstream "${'y'.repeat(46)}", sandbox string`,
      '  header      $.a   1×  upstream "text/html", sandbox string',
      '  header      $.a   1×  upstream absent, sandbox string',
    ])
  })

  it('puts an example past the width under its path, and cuts a long value', () => {
    const long = 'x'.repeat(60)
    const report: Report = {
      exchanges: 1,
      findings: 1,
      routes: [
        {
          route: 'GET /v1/cards',
          exchanges: 1,
          findings: 1,
          counts: [
            {
              kind: 'type',
              path: '$.data[*].balance',
              count: 1,
              examples: [
                { at, upstream: long, sandbox: 'integer, as the sandbox always answers it' },
              ],
            },
          ],
        },
      ],
      timing: [],
    }
    const lines = formatReport(report).split('\n')
    expect(lines[3]).toBe('  type        $.data[*].balance   1×')
    expect(lines[4]).toBe(
      `${' '.repeat(14)}upstream "${'x'.repeat(46)}…, sandbox integer, as the sandbox always answers it`,
    )
  })

  it('says how a delivery was signed: no secret, a bad signature, none sent, or verified', () => {
    const header = 'header:x-alal-signature'
    const unsigned = [
      {
        route: 'webhook card.created',
        path: header,
        kind: 'header',
        upstream: 'absent',
        sandbox: 'hex',
      },
    ] as Parameters<typeof formatWebhook>[0]
    expect(formatWebhook([], 'card.created', undefined)).toBe(
      "webhook card.created: no difference from the sandbox's event\n" +
        'signature: not verified (no --secret nor CARD_SANDBOX_WEBHOOK_SECRET)\n',
    )
    expect(formatWebhook([], 'card.created', 's')).toContain(
      'signature: verifies with the secret given',
    )
    const lines = formatWebhook(unsigned, 'card.created', 's').split('\n')
    expect(lines.slice(0, 2)).toEqual([
      'webhook card.created: 1 finding',
      'signature: none to verify',
    ])
    const signature = [
      {
        route: 'webhook card.created',
        path: header,
        kind: 'signature',
        upstream: 'does not verify',
        sandbox: 'hex',
      },
    ] as Parameters<typeof formatWebhook>[0]
    expect(formatWebhook(signature, 'card.created', 's')).toContain('signature: does not verify')
    // the signature header sent, but not as the sandbox sends it: there is one to verify
    const other = [{ ...unsigned[0], upstream: 'sha1=abc' }]
    expect(formatWebhook(other, 'card.created', 's')).toContain(
      'signature: verifies with the secret given',
    )
  })
})
