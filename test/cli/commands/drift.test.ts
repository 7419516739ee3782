/**
 * `card-sandbox drift <file>` as the built command runs it (`npm test` builds dist/ first), on
 * the stand-in's recording (test/drift/stand-in.ts): --check's exit codes, and --scenario's file
 * (written by the bundle's YAML) loaded by a sandbox. The rest of the command, in this process:
 * drift.inprocess.test.ts.
 */
import { spawnSync } from 'node:child_process'
import { readFileSync } from 'node:fs'
import { join } from 'node:path'
import { afterEach, beforeAll, describe, expect, it } from 'vitest'
import type { RecordLine } from '../../../src/drift/report.js'
import { startSandbox } from '../../../src/index.js'
import { fullIdentity, UUID } from '../../helpers.js'
import { tempDir } from '../../temp-dir.js'
import { recordFile, recordings } from '../../drift/stand-in.js'

const cleanups: (() => unknown)[] = []
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup()
})

const CLI = new URL('../../../dist/bin/card-sandbox.js', import.meta.url).pathname

function drift(...args: string[]) {
  const run = spawnSync(process.execPath, [CLI, 'drift', ...args], {
    encoding: 'utf8',
    env: { ...process.env, CARD_SANDBOX_WEBHOOK_SECRET: '' },
  })
  return { code: run.status, stdout: run.stdout, stderr: run.stderr }
}

let drifted: RecordLine[]
let clean: RecordLine[]
beforeAll(async () => {
  ;({ drifted, clean } = await recordings())
})

describe('card-sandbox drift', () => {
  it('--check exits 1 on a recording with a finding, 0 on a clean one', () => {
    const found = drift(recordFile(drifted), '--check')
    expect(found.code, found.stderr).toBe(1)
    const none = drift(recordFile(clean), '--check')
    expect(none.code, none.stderr).toBe(0)
    expect(none.stdout).toMatch(/^16 exchanges, 0 findings on 0 of 10 routes\n/)
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
})
