/**
 * ms per due job of a clock advance over N due card issuings or N due card-to-bank transfers
 * (default 2,000), on SQLite (a file) and, with CARD_SANDBOX_TEST_PG, on PostgreSQL (a schema of
 * its own, dropped after): `npx tsx test/engine/measure-due-jobs.ts [N] [cards|transfers]`. The
 * cards or transfers are created first (not timed), then one advance runs them all.
 */
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { performance } from 'node:perf_hooks'
import pg from 'pg'
import { createSandbox } from '../../src/server/sandbox.js'

const N = Number(process.argv[2] ?? 2000)
const KIND = process.argv[3] === 'transfers' ? 'transfers' : 'cards'
const WHAT = KIND === 'cards' ? 'due card issuings' : 'due card-to-bank transfers'
const TOKEN = 'due-jobs-bench'

async function measure(db: string): Promise<number> {
  const sandbox = createSandbox({ db, clock: 'manual', seed: 1, tokens: [TOKEN], ticking: false })
  const call = async (method: string, path: string, body?: unknown) => {
    const res = await sandbox.app.request(path, {
      method,
      headers: { Authorization: `Bearer ${TOKEN}`, 'Content-Type': 'application/json' },
      body: body === undefined ? undefined : JSON.stringify(body),
    })
    const json = (await res.json()) as any
    if (res.status !== 200) throw new Error(`${path}: ${res.status} ${JSON.stringify(json)}`)
    return json.data ?? json
  }
  try {
    const user = (await call('POST', '/v1/card-users/create', { phone: '+221770000001' })).userCard
      .reference
    await call('POST', `/__sandbox/card-users/${user}/transition`, { to: 'passed' })
    const card = (
      await call('POST', '/v1/cards/create', {
        card_user_reference: user,
        card_brand: 'visa',
        card_type: 'virtual',
      })
    ).card.reference
    await call('POST', `/__sandbox/cards/${card}/transition`, { to: 'issued' })
    await call('POST', `/__sandbox/cards/${card}/fund`, { amount: 100 * N })
    const create =
      KIND === 'cards'
        ? () =>
            call('POST', '/v1/cards/create', {
              card_user_reference: user,
              card_brand: 'visa',
              card_type: 'virtual',
            })
        : () =>
            call('POST', '/v1/transactions/create/card-to-bank', {
              amount: 100,
              card_reference: card,
              bank_id: 'SN012-01001-000123456789-12',
              bank_name: 'BICICI',
            })
    for (let made = 0; made < N; made += 50)
      await Promise.all(Array.from({ length: Math.min(50, N - made) }, create))
    const started = performance.now()
    const advanced = await call('POST', '/__sandbox/clock/advance', { by: '1h' })
    const ms = performance.now() - started
    if (advanced.transitions_run !== N) throw new Error(`ran ${advanced.transitions_run}, not ${N}`)
    return ms
  } finally {
    sandbox.close()
  }
}

const dir = mkdtempSync(join(tmpdir(), 'due-jobs-'))
try {
  const ms = await measure(join(dir, 'sandbox.sqlite'))
  console.log(`sqlite: ${N} ${WHAT} in ${ms.toFixed(0)} ms, ${(ms / N).toFixed(3)} ms a job`)
} finally {
  rmSync(dir, { recursive: true, force: true })
}

const server = process.env.CARD_SANDBOX_TEST_PG
if (server) {
  const schema = `due_jobs_bench_${process.pid}`
  const url = new URL(server)
  url.searchParams.set('options', `-c search_path=${schema}`)
  const admin = new pg.Client({ connectionString: server })
  await admin.connect()
  await admin.query(`CREATE SCHEMA ${schema}`)
  try {
    const ms = await measure(url.toString())
    console.log(`postgres: ${N} ${WHAT} in ${ms.toFixed(0)} ms, ${(ms / N).toFixed(3)} ms a job`)
  } finally {
    await new Promise((resolve) => setTimeout(resolve, 200))
    await admin.query(`DROP SCHEMA ${schema} CASCADE`)
    await admin.end()
  }
}
