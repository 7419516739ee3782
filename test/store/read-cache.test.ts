/**
 * Repeated reads are answered from memory until something is written (store/read-cache.ts
 * readThrough, and cachedNow when an answer can go out at once): whoever writes, the next read
 * sees it. A list's answer is kept as the text sent (http/envelope.ts okList): it changes with
 * what was asked and how answers are presented.
 */
import Database from 'better-sqlite3'
import { join } from 'node:path'
import { describe, expect, it } from 'vitest'
import { createApp } from '../../src/server/app.js'
import { closeSqlite as closeDb, openSqlite as openDb } from '../../src/store/sqlite/driver.js'
import { cardPages, insertCard } from '../../src/store/cards.js'
import { cachedNow, readThrough } from '../../src/store/read-cache.js'
import { atomically } from '../../src/store/statements.js'
import { newSandbox, TOKEN } from '../helpers.js'
import { tempDir } from '../temp-dir.js'

/** A card row of tenant ten_1, as the store inserts one. */
const A_CARD = {
  reference: 'card-1',
  tenantId: 'ten_1',
  cardUserReference: 'user-1',
  identifier: null,
  brand: 'visa',
  type: 'virtual',
  status: 'issuing',
  createdAt: 0,
  updatedAt: 0,
} as const

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
    const dir = tempDir('card-sandbox-cache-')
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

  it('are not kept from inside a transaction, whose writes may yet roll back', async () => {
    const db = openDb()
    const page = { page: 1, perPage: 20 }
    await expect(
      atomically(db, async (db) => {
        await insertCard(db, A_CARD)
        expect((await cardPages(db, 'ten_1', page)).total).toBe(1)
        throw new Error('refused')
      }),
    ).rejects.toThrow('refused')
    expect((await cardPages(db, 'ten_1', page)).total).toBe(0)
    closeDb(db)
  })

  it('are had at once while nothing is written; not while a transaction is open, nor after a write', async () => {
    const db = openDb()
    expect(cachedNow(db, 'key')).toBeUndefined()
    expect(await readThrough(db, 'key', () => 'kept')).toBe('kept')
    expect(cachedNow(db, 'key')).toBe('kept')
    await atomically(db, async (inside) => {
      expect(cachedNow(db, 'key')).toBeUndefined()
      await insertCard(inside, A_CARD)
    })
    expect(cachedNow(db, 'key')).toBeUndefined()
    closeDb(db)
  })

  it('are kept for the last 256 keys read: a 257th puts out the oldest, not another', async () => {
    const db = openDb()
    const reads: string[] = []
    const read = (key: string) =>
      readThrough(db, key, () => {
        reads.push(key)
        return key
      })
    for (let n = 0; n < 256; n++) await read(`key-${n}`)
    await read('key-0')
    expect(reads).toHaveLength(256) // all 256 kept
    await read('key-256')
    expect(cachedNow(db, 'key-0')).toBeUndefined()
    for (const kept of ['key-1', 'key-255', 'key-256']) expect(cachedNow(db, kept)).toBe(kept)
    closeDb(db)
  })
})

describe('cached list answers', () => {
  it('are sent again byte for byte while nothing is written, and the journal still has them', async () => {
    const { call, issuedCard } = newSandbox()
    await issuedCard()
    const first = await call('GET', '/v1/cards')
    const second = await call('GET', '/v1/cards')
    expect(second.body).toEqual(first.body)
    const journal = await call('GET', '/__sandbox/requests?path=/v1/cards')
    expect(journal.body.data.map((e: any) => e.response.body)).toEqual([second.body, first.body])
  })

  it('change with a write: a card frozen, a transaction made on a filtered list', async () => {
    const { call, fundedCard, issuedCard } = newSandbox()
    const { reference } = await fundedCard()
    const other = (await issuedCard()).reference
    expect((await call('GET', '/v1/cards')).body.data[1].status).toBe('issued')
    const filtered = `/v1/transactions?card_reference=${reference}`
    const before = (await call('GET', filtered)).body.meta.total
    await call('POST', '/v1/cards/freeze', { reference })
    expect((await call('GET', '/v1/cards')).body.data[1].status).toBe('frozen')
    await call('POST', `/__sandbox/cards/${reference}/fund`, { amount: 5 })
    expect((await call('GET', filtered)).body.meta.total).toBe(before + 1)
    expect((await call('GET', `/v1/transactions?card_reference=${other}`)).body.meta.total).toBe(0)
  })

  it('change with the page asked for: page, per_page', async () => {
    const { call, issuedCard } = newSandbox()
    await issuedCard()
    await issuedCard()
    const all = (await call('GET', '/v1/cards')).body.data.map((c: any) => c.reference)
    const page = async (query: string) =>
      (await call('GET', `/v1/cards?${query}`)).body.data.map((c: any) => c.reference)
    expect(await page('per_page=1')).toEqual([all[0]])
    expect(await page('per_page=1&page=2')).toEqual([all[1]])
    expect(await page('per_page=2')).toEqual(all)
  })

  it('are kept per tenant', async () => {
    const { call, issuedCard } = newSandbox()
    await call('GET', '/v1/cards', undefined, { token: 'another-tenant' })
    await issuedCard()
    expect((await call('GET', '/v1/cards')).body.meta.total).toBe(1)
    const other = await call('GET', '/v1/cards', undefined, { token: 'another-tenant' })
    expect(other.body.meta.total).toBe(0)
  })

  it('change with the quirks of the app answering over the same database', async () => {
    const sandbox = newSandbox()
    await sandbox.issuedCard()
    const quirky = (await sandbox.call('GET', '/v1/cards')).body
    const clean = createApp({
      ...sandbox.deps,
      options: { ...sandbox.deps.options, quirks: false },
    })
    const res = await clean.request('/v1/cards', { headers: { Authorization: `Bearer ${TOKEN}` } })
    const body: any = await res.json()
    expect(quirky.data[0].card_type).toBe('Visa')
    expect(body.data[0].card_type).toBe('virtual')
  })

  it('change with the route and the origin that card-user paginator links name', async () => {
    const sandbox = newSandbox()
    await sandbox.verifiedUser()
    const path = async (route: string) => (await sandbox.call('GET', route)).body.data[0].meta.path
    expect(await path('/v1/card-users')).toBe('http://localhost/v1/card-users')
    expect(await path('/v1/v1/card-users')).toBe('http://localhost/v1/v1/card-users')
    sandbox.deps.publicUrl = 'https://sandbox.example'
    expect(await path('/v1/card-users')).toBe('https://sandbox.example/v1/card-users')
  })
})
