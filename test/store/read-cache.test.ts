/**
 * Repeated reads are answered from memory until something is written (store/read-cache.ts
 * readThrough): whoever writes, the next read sees it.
 */
import Database from 'better-sqlite3'
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterEach, describe, expect, it } from 'vitest'
import { newSandbox } from '../helpers.js'

const dirs: string[] = []
afterEach(() => {
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true })
})

describe('cached reads', () => {
  it('see the writes of the sandbox itself: a new card, a balance', async () => {
    const { call, issuedCard } = newSandbox()
    const card = (await issuedCard()).reference
    const before = await call('GET', '/v1/cards')
    expect(before.body.data).toHaveLength(1)
    expect(before.body.data[0].balance).toBe(0)
    await call('POST', `/__sandbox/cards/${card}/fund`, { amount: 500 })
    await issuedCard()
    const after = await call('GET', '/v1/cards')
    expect(after.body.meta.total).toBe(2)
    expect(after.body.data.find((c: { reference: string }) => c.reference === card).balance).toBe(
      500,
    )
  })

  it('see rows another connection committed to a file database', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'card-sandbox-cache-'))
    dirs.push(dir)
    const file = join(dir, 'db.sqlite')
    const { call, close } = newSandbox({ db: file })
    try {
      expect((await call('GET', '/v1/transactions')).body.meta.total).toBe(0)
      expect((await call('GET', '/v1/transactions')).body.meta.total).toBe(0)
      const other = new Database(file)
      const tenant = (other.prepare('SELECT id FROM tenants').get() as { id: string }).id
      other
        .prepare(
          `INSERT INTO transactions (slug, tenant_id, card_reference, reference, kind, status,
            amount, created_at, updated_at) VALUES ('s', ?, 'c', 'r', 'recharge', 'success', 1, 0, 0)`,
        )
        .run(tenant)
      other.close()
      expect((await call('GET', '/v1/transactions')).body.meta.total).toBe(1)
    } finally {
      close()
    }
  })
})
