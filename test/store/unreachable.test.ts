/**
 * Which failures mean the database could not be reached (store/open.ts storeUnreachable: the HTTP
 * layer answers those 503, the ticker waits for them), judged on the errors node-postgres and
 * drizzle really raise when PostgreSQL ends a connection (pg_terminate_backend, as a restart, a
 * failover or an operator does) at each point of a store transaction (store/statements.ts
 * atomically), and when nothing listens. PostgreSQL only.
 */
import pg from 'pg'
import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import type { Db } from '../../src/store/driver.js'
import { openPgStore, type PgStore } from '../../src/store/postgres/open.js'
import { SandboxError } from '../../src/domain/errors.js'
import { describeCause, retriedWhileUnreachable, storeUnreachable } from '../../src/store/open.js'
import { pgDb } from '../../src/store/postgres/driver.js'
import { atomically } from '../../src/store/statements.js'
import { insertTenant, tenantByToken } from '../../src/store/tenants.js'
import { freshSchema, TEST_PG } from '../pg.js'

const pgOf = (db: Db) => (db as Db & { pg?: PgStore }).pg

const cleanups: (() => Promise<void>)[] = []
let admin: pg.Client
beforeEach(async () => {
  if (!TEST_PG) return
  admin = new pg.Client({ connectionString: TEST_PG })
  await admin.connect()
  cleanups.push(() => admin.end())
})
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup()
})

async function database(): Promise<Db> {
  const schema = await freshSchema()
  const store = openPgStore(schema.url)
  cleanups.push(schema.drop, () => store.close())
  return pgDb(store)
}

const tenant = (token: string) => ({
  id: `ten_${token}`,
  token,
  businessName: 'Diop SARL',
  clockMode: 'manual' as const,
  clockAnchorMs: 1_000,
  clockWallMs: 2_000,
  createdAt: 1_000,
})

/** What `running` rejects with. */
async function failure(running: Promise<unknown>): Promise<unknown> {
  try {
    await running
  } catch (error) {
    return error
  }
  throw new Error('it did not fail')
}

/** The connection a transaction's handle runs on. */
const clientOf = (tx: Db) => pgOf(tx)!.queryable as unknown as pg.PoolClient

async function backendPid(client: pg.PoolClient): Promise<number> {
  const { rows } = await client.query<{ pid: number }>('SELECT pg_backend_pid() AS pid')
  return rows[0].pid
}

/** Ends the transaction's backend, and waits until its client has heard (it is idle meanwhile). */
async function endBackend(tx: Db): Promise<void> {
  const client = clientOf(tx)
  const pid = await backendPid(client)
  const heard = new Promise((resolve) => client.once('error', resolve))
  await admin.query('SELECT pg_terminate_backend($1)', [pid])
  await heard
}

describe.skipIf(!TEST_PG)('a database that goes away, on PostgreSQL', () => {
  it('a statement running when its backend is ended is unreachable (57P01, administrator command)', async () => {
    const db = await database()
    const error = await failure(
      atomically(db, async (tx) => {
        const client = clientOf(tx)
        const pid = await backendPid(client)
        const sleeping = client.query('SELECT pg_sleep(30)')
        // its error is awaited below: not unhandled while the backend is being ended
        sleeping.catch(() => {})
        await admin.query('SELECT pg_terminate_backend($1)', [pid])
        await sleeping
      }),
    )
    expect(error).toMatchObject({ code: '57P01' })
    expect(storeUnreachable(error)).toBe(true)
  })

  it('the next statement of a transaction whose backend was ended between two statements is unreachable, and nothing was written', async () => {
    const db = await database()
    const error = await failure(
      atomically(db, async (tx) => {
        await insertTenant(tx, tenant('first'))
        await endBackend(tx)
        await insertTenant(tx, tenant('second'))
      }),
    )
    // drizzle's error, node-postgres's as its cause
    expect(describeCause(error)).toBe(
      'Client has encountered a connection error and is not queryable',
    )
    expect((error as Error).cause).toBeInstanceOf(Error)
    expect(storeUnreachable(error)).toBe(true)
    expect(await tenantByToken(db, 'first')).toBeUndefined()
  })

  it('a COMMIT whose backend was ended before it is unreachable, and nothing was written', async () => {
    const db = await database()
    const error = await failure(
      atomically(db, async (tx) => {
        await insertTenant(tx, tenant('first'))
        await endBackend(tx)
      }),
    )
    expect(describeCause(error)).toBe(
      'Client has encountered a connection error and is not queryable',
    )
    expect(storeUnreachable(error)).toBe(true)
    expect(await tenantByToken(db, 'first')).toBeUndefined()
  })

  it('a transaction that failed for its own reason keeps that reason when its ROLLBACK finds the connection gone', async () => {
    const db = await database()
    const refused = new SandboxError('business_rule', 'The card has no funds.')
    const error = await failure(
      atomically(db, async (tx) => {
        await insertTenant(tx, tenant('first'))
        await endBackend(tx)
        throw refused
      }),
    )
    expect(error).toBe(refused)
    expect(await tenantByToken(db, 'first')).toBeUndefined()
  })

  it('the store serves again on new connections once its backends were ended', async () => {
    const db = await database()
    await failure(atomically(db, (tx) => endBackend(tx)))
    await atomically(db, (tx) => insertTenant(tx, tenant('after')))
    expect(await tenantByToken(db, 'after')).toMatchObject({ token: 'after' })
  })

  it('a server that nothing listens for is unreachable (connection refused)', async () => {
    const url = new URL(TEST_PG!)
    url.port = '1'
    const store = openPgStore(url.toString())
    cleanups.push(() => store.close())
    const error = await failure(atomically(pgDb(store), (tx) => tenantByToken(tx, 'any')))
    expect(error).toMatchObject({ code: 'ECONNREFUSED' })
    expect(storeUnreachable(error)).toBe(true)
  })

  it('a server that takes no more connections is unreachable (53300, too many connections)', async () => {
    // a role of its own with no connection allowed: the limit is reached without crowding the server
    const role = `card_sandbox_test_full_${process.pid}`
    await admin.query(`CREATE ROLE ${role} LOGIN CONNECTION LIMIT 0`)
    cleanups.push(async () => void (await admin.query(`DROP ROLE ${role}`)))
    const url = new URL(TEST_PG!)
    url.username = role
    const store = openPgStore(url.toString())
    cleanups.push(() => store.close())
    const error = await failure(atomically(pgDb(store), (tx) => tenantByToken(tx, 'any')))
    expect(error).toMatchObject({ code: '53300' })
    expect(storeUnreachable(error)).toBe(true)
  })

  it('a statement refused for what it asks is not unreachable: a duplicate key, a syntax error', async () => {
    const db = await database()
    await insertTenant(db, tenant('twice'))
    const duplicate = await failure(insertTenant(db, tenant('twice')))
    expect(duplicate).toMatchObject({ cause: { code: '23505' } })
    expect(storeUnreachable(duplicate)).toBe(false)
    const syntax = await failure(pgOf(db)!.queryable.query('SELEC 1'))
    expect(syntax).toMatchObject({ code: '42601' })
    expect(storeUnreachable(syntax)).toBe(false)
  })
})

describe('a database whose name does not resolve', () => {
  /** What node-postgres fails with when getaddrinfo does, wrapped by drizzle as its cause. */
  const lookupFailed = (code: string) => {
    const cause = Object.assign(new Error(`getaddrinfo ${code} postgres`), {
      errno: code === 'EAI_AGAIN' ? -3001 : -3008,
      code,
      syscall: 'getaddrinfo',
      hostname: 'postgres',
    })
    return new Error('Failed query: select 1', { cause })
  }

  it('is unreachable while the DNS server does not answer (EAI_AGAIN), as when the name is unknown (ENOTFOUND)', () => {
    expect(storeUnreachable(lookupFailed('EAI_AGAIN'))).toBe(true)
    expect(storeUnreachable(lookupFailed('ENOTFOUND'))).toBe(true)
    expect(describeCause(lookupFailed('EAI_AGAIN'))).toBe('getaddrinfo EAI_AGAIN postgres')
  })

  it('is not unreachable for a lookup error of another kind (EAI_FAIL: the answer was bad)', () => {
    expect(storeUnreachable(lookupFailed('EAI_FAIL'))).toBe(false)
  })
})

describe('an action cut off from the store', () => {
  const cut = (n: number) =>
    Object.assign(new Error(`Connection terminated ${n}`), { code: '57P01' })

  /** An action failing with `failures` in turn, then answering 'done'; and its calls. */
  function failing(failures: Error[]) {
    const action = async () => {
      action.calls++
      const failure = failures.shift()
      if (failure) throw failure
      return 'done'
    }
    action.calls = 0
    return action
  }

  it('is tried again while the store cannot be reached, and answers once it can', async () => {
    const action = failing([cut(1), cut(2)])
    expect(await retriedWhileUnreachable(action)).toBe('done')
    expect(action.calls).toBe(3)
  })

  it('gives up after 3 tries in all, with the last try’s error', async () => {
    const action = failing([cut(1), cut(2), cut(3), cut(4)])
    await expect(retriedWhileUnreachable(action)).rejects.toThrow('Connection terminated 3')
    expect(action.calls).toBe(3)
  })

  it('is not tried again when it fails for another reason', async () => {
    const refused = new SandboxError('business_rule', 'The card has no funds.')
    const action = failing([refused])
    await expect(retriedWhileUnreachable(action)).rejects.toBe(refused)
    expect(action.calls).toBe(1)
  })
})
