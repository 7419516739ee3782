/**
 * Test helpers: a fresh in-memory sandbox per test (manual clock, fixed seed) and `call()`,
 * which sends a real HTTP request through the app with a bearer token.
 */
import { afterAll, afterEach, expect } from 'vitest'
import { MAX_AMOUNT } from '../src/http/v1/schemas.js'
import { createSandbox, type SandboxOptions } from '../src/server/sandbox.js'
import type { Db } from '../src/store/driver.js'
import type { PgStore } from '../src/store/postgres/open.js'
import type { SqliteDb } from '../src/store/sqlite/driver.js'
import { pgSchemaUrl } from './pg.js'

export const TOKEN = 'test-token'
export const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/
/** Quirks-on `created_at`: ISO 8601 with microseconds. */
export const MICROS_TIMESTAMP = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{6}Z$/
export const MILLIS_TIMESTAMP = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/

/** What `fundedCard()` loads: enough for any transfer a test makes, up to the 10^12 bound. */
export const FUNDED_AMOUNT = 2_000_000_000_000

export type CallOptions = { token?: string | null; headers?: Record<string, string>; raw?: string }

/**
 * With CARD_SANDBOX_TEST_STORE=postgres (and CARD_SANDBOX_TEST_PG), each sandbox is on a
 * PostgreSQL schema of its own (test/pg.ts); else in SQLite's memory.
 */
export function storeOfTest(): string | undefined {
  return ON_POSTGRES ? pgSchemaUrl() : undefined
}

/** Whether this run puts the sandboxes on PostgreSQL (CARD_SANDBOX_TEST_STORE=postgres). */
export const ON_POSTGRES = process.env.CARD_SANDBOX_TEST_STORE === 'postgres'

/**
 * Sandboxes on PostgreSQL, each holding a pool of connections and a ticker: one made in a test
 * is closed after it, one made beside the tests (shared by a file's tests) after the file.
 */
const onPostgres: { close(): void }[] = []
const onPostgresForFile: { close(): void }[] = []
if (ON_POSTGRES) {
  afterEach(() => {
    for (const sandbox of onPostgres.splice(0)) sandbox.close()
  })
  afterAll(() => {
    for (const sandbox of onPostgresForFile.splice(0)) sandbox.close()
  })
}

export function newSandbox(options: SandboxOptions = {}) {
  const db = storeOfTest()
  const sandbox = createSandbox({ clock: 'manual', seed: 42, db, ...options })
  if (db && !options.db)
    (expect.getState().currentTestName === undefined ? onPostgresForFile : onPostgres).push(sandbox)

  async function call(method: string, path: string, body?: unknown, opts: CallOptions = {}) {
    const headers: Record<string, string> = { ...opts.headers }
    const token = opts.token === undefined ? TOKEN : opts.token
    if (token !== null) headers.Authorization = `Bearer ${token}`
    let payload: string | undefined = opts.raw
    if (body !== undefined) {
      payload = JSON.stringify(body)
      headers['Content-Type'] ??= 'application/json'
    }
    const res = await sandbox.app.request(path, { method, headers, body: payload })
    const text = await res.text()
    let json: any
    try {
      json = JSON.parse(text)
    } catch {
      throw new Error(
        `${method} ${path} answered ${res.status} with non-JSON: ${text.slice(0, 200)}`,
      )
    }
    return { status: res.status, body: json, headers: res.headers }
  }

  /** Registers a card user and passes their verification through the control plane. */
  async function verifiedUser(token?: string) {
    const created = await call('POST', '/v1/card-users/create', fullIdentity(), { token })
    const reference: string = created.body.data.userCard.reference
    await call('POST', `/__sandbox/card-users/${reference}/transition`, { to: 'passed' }, { token })
    return reference
  }

  /** An issued card of a verified user. */
  async function issuedCard(brand = 'visa', token?: string) {
    const user = await verifiedUser(token)
    const created = await call(
      'POST',
      '/v1/cards/create',
      { card_user_reference: user, card_brand: brand, card_type: 'virtual' },
      { token },
    )
    const reference: string = (created.body.data?.card ?? created.body.card).reference
    await call('POST', `/__sandbox/cards/${reference}/transition`, { to: 'issued' }, { token })
    return { user, reference }
  }

  /** An issued card funded through the control plane (a `recharge`), ready to transfer from. */
  async function fundedCard(brand = 'visa', token?: string, amount = FUNDED_AMOUNT) {
    const card = await issuedCard(brand, token)
    for (let left = amount; left > 0; left -= MAX_AMOUNT) {
      const chunk = Math.min(left, MAX_AMOUNT)
      const funded = await call(
        'POST',
        `/__sandbox/cards/${card.reference}/fund`,
        { amount: chunk },
        { token },
      )
      if (funded.status !== 200) throw new Error(`funding failed: ${JSON.stringify(funded.body)}`)
    }
    return card
  }

  return { ...sandbox, call, verifiedUser, issuedCard, fundedCard }
}

export function fullIdentity(overrides: Record<string, unknown> = {}) {
  return {
    first_name: 'Awa',
    last_name: 'Diop',
    address: '12 Rue Carnot, Dakar',
    phone: '+221770000001',
    email: 'awa.diop@example.com',
    id_no: '1234567890123',
    selfie_image: 'https://img.example.com/selfie.jpg',
    id_image: 'https://img.example.com/id-front.jpg',
    back_id_image: 'https://img.example.com/id-back.jpg',
    ...overrides,
  }
}

/**
 * The rows a query gives, straight from the database under the sandbox (SQLite's or
 * PostgreSQL's): for invariants a test checks beneath the API. `?` placeholders; the SQL must
 * be the two dialects' common ground (no alias in HAVING, say).
 */
export async function sqlRows(db: Db, text: string, ...values: unknown[]): Promise<unknown[]> {
  const pg = (db as { pg?: PgStore }).pg
  if (!pg) {
    const statement = (db as SqliteDb).$client.prepare(text)
    return statement.reader ? statement.all(...values) : (statement.run(...values), [])
  }
  await pg.ready
  let n = 0
  return (
    await pg.queryable.query(
      text.replace(/\?/g, () => `$${++n}`),
      values,
    )
  ).rows
}
