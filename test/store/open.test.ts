/**
 * What src/store/open.ts decides before and after a store opens: which locations are a shared
 * (PostgreSQL) store, and which failures mean the store could not be reached, looked for through
 * at most four causes (drizzle wraps node-postgres's error, which may wrap a socket's).
 */
import { describe, expect, it } from 'vitest'
import { describeCause, storeLocationIsShared, storeUnreachable } from '../../src/store/open.js'

/** `inner` wrapped in `depth` errors, each the cause of the next. */
function wrapped(inner: unknown, depth: number): unknown {
  let error = inner
  for (let n = 0; n < depth; n++) error = new Error(`wrapper ${n}`, { cause: error })
  return error
}

describe('a store location', () => {
  it('is shared when it is a postgres:// or postgresql:// URL, in any case, and nothing else', () => {
    for (const url of ['postgres://root@db/test', 'postgresql://db/test', 'POSTGRES://db/x'])
      expect(storeLocationIsShared(url), url).toBe(true)
    for (const location of [undefined, ':memory:', 'sandbox.db', './postgres://x', 'postgres:db'])
      expect(storeLocationIsShared(location), String(location)).toBe(false)
  })
})

describe('a failure', () => {
  const refused = Object.assign(new Error('connect ECONNREFUSED 127.0.0.1:5432'), {
    code: 'ECONNREFUSED',
  })

  it('is unreachable when a cause within four of it says so, and not past them', () => {
    expect(storeUnreachable(wrapped(refused, 3))).toBe(true)
    expect(storeUnreachable(wrapped(refused, 4))).toBe(false)
    expect(storeUnreachable(wrapped(new Error('Connection terminated unexpectedly'), 3))).toBe(true)
  })

  it('is not unreachable for a message alone on something that is not an Error', () => {
    expect(storeUnreachable({ message: 'Connection terminated unexpectedly' })).toBe(false)
    expect(storeUnreachable(undefined)).toBe(false)
  })

  it('is described by its innermost cause within four, or by itself', () => {
    expect(describeCause(wrapped(refused, 4))).toBe('connect ECONNREFUSED 127.0.0.1:5432')
    expect(describeCause(wrapped(refused, 5))).toBe('wrapper 0')
    expect(describeCause('a text')).toBe('a text')
  })
})
