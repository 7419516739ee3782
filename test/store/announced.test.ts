/**
 * What the store announces of other processes' writes (store/announced.ts), as the listener
 * (store/postgres/listener.ts) hands on each payload of the database's triggers, kept until the
 * tick looks. announce() reads no table: a store's handle stands for its connection here.
 */
import { afterEach, describe, expect, it } from 'vitest'
import { announce, announcedOf, announceEverything } from '../../src/store/announced.js'
import type { Db } from '../../src/store/driver.js'
import { closeStore, openStore } from '../../src/store/open.js'

const opened: Db[] = []
afterEach(async () => {
  for (const db of opened.splice(0)) await closeStore(db)
})

/** A connection whose start announcement the tick has taken: nothing is announced on it yet. */
function lookedAt(): Db {
  const db = openStore(':memory:')
  opened.push(db)
  const announced = announcedOf(db)
  announced.everything = announced.webhooks = announced.retired = false
  return db
}

describe('a connection before its first tick', () => {
  it('has everything announced: the tables, the webhooks’ wake-ups and the retired tenants are read at the first tick', () => {
    const db = openStore(':memory:')
    opened.push(db)
    expect(announcedOf(db)).toEqual({
      everything: true,
      jobs: new Map(),
      tenants: new Set(),
      webhooks: true,
      retired: true,
    })
  })
})

describe('announcements between two ticks', () => {
  it('keeps the earlier of two jobs announced for one tenant, whichever was announced first', () => {
    const db = lookedAt()
    announce(db, 'j ten_later_first 3600000')
    announce(db, 'j ten_later_first 1000')
    announce(db, 'j ten_earlier_first 1000')
    announce(db, 'j ten_earlier_first 3600000')
    expect(Object.fromEntries(announcedOf(db).jobs)).toEqual({
      ten_later_first: 1000,
      ten_earlier_first: 1000,
    })
  })

  it('reads a tenant again, and the webhooks’ wake-ups, when its clock is announced; sweeps on a retirement; ignores anything else', () => {
    const db = lookedAt()
    for (const payload of ['j ten_a soon', 'j', 't', 'x ten_a', '']) announce(db, payload)
    expect(announcedOf(db)).toEqual({
      everything: false,
      jobs: new Map(),
      tenants: new Set(),
      webhooks: false,
      retired: false,
    })
    // an instant after a tenant is no job unless the kind says so
    announce(db, 'x ten_b 1000')
    announce(db, 't ten_a 1000')
    announce(db, 'r')
    expect(announcedOf(db)).toEqual({
      everything: false,
      jobs: new Map(),
      tenants: new Set(['ten_a']),
      webhooks: true,
      retired: true,
    })
    announceEverything(db)
    expect(announcedOf(db)).toMatchObject({ everything: true, webhooks: true, retired: true })
  })
})
