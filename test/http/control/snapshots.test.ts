/**
 * /__sandbox/snapshots: a tenant's whole state taken under a name and put
 * back in place — rows, clock, pending jobs, scenarios, webhook endpoint — across resets and a
 * restart with a file database; other tenants untouched; 100 kept a token at most.
 */
import { join } from 'node:path'
import { afterEach, describe, expect, it } from 'vitest'
import { fullIdentity, newSandbox } from '../../helpers.js'
import { tempDir } from '../../temp-dir.js'

const cleanups: (() => void)[] = []
afterEach(() => {
  for (const cleanup of cleanups.splice(0)) cleanup()
})

const teapot = {
  name: 'teapot',
  rules: [{ match: { method: 'GET', path: '/v1/payments' }, respond: { status: 418 } }],
}

describe('snapshots', () => {
  it('restores rows, balances, the clock, pending jobs, scenarios and the webhook endpoint', async () => {
    const s = newSandbox()
    const card = await s.fundedCard()
    // a user still pending: its verification job is due at 3 s after now
    const pending = (
      await s.call('POST', '/v1/card-users/create', fullIdentity({ phone: '+221770000009' }))
    ).body.data.userCard.reference
    await s.call('POST', '/__sandbox/scenarios', teapot)
    await s.call('PUT', '/__sandbox/webhook', { url: 'http://127.0.0.1:9/hooks', secret: 'abc' })
    const before = {
      cards: (await s.call('GET', '/v1/cards')).body,
      business: (await s.call('GET', '/v1/business')).body,
      clock: (await s.call('GET', '/__sandbox/clock')).body.data.now,
      jobs: (await s.call('GET', '/__sandbox/jobs')).body.data,
    }
    const taken = await s.call('POST', '/__sandbox/snapshots', { name: 'funded' })
    expect(taken.status).toBe(200)
    expect(taken.body.data).toMatchObject({ name: 'funded', taken_at: before.clock })
    expect(taken.body.data.rows).toBeGreaterThan(5)

    // everything moves on: the job runs, money moves, the scenario and endpoint go, a reset
    await s.call('POST', '/__sandbox/clock/advance', { by: '1h' })
    await s.call('POST', '/v1/transactions/create/card-to-bank', {
      amount: 1_000,
      card_reference: card.reference,
      bank_id: 'SN01',
      bank_name: 'BICICI',
    })
    await s.call('DELETE', '/__sandbox/scenarios/teapot')
    await s.call('PUT', '/__sandbox/webhook', { url: 'http://127.0.0.1:9/newer', secret: 'xyz' })
    await s.call('POST', '/__sandbox/reset')
    expect((await s.call('GET', '/v1/cards')).body.data).toEqual([])

    const restored = await s.call('POST', '/__sandbox/snapshots/funded/restore')
    expect(restored.status).toBe(200)
    expect(restored.body.data).toEqual({
      name: 'funded',
      clock: { mode: 'manual', now: before.clock },
    })
    expect((await s.call('GET', '/v1/cards')).body).toEqual(before.cards)
    expect((await s.call('GET', '/v1/business')).body).toEqual(before.business)
    expect((await s.call('GET', '/__sandbox/jobs')).body.data).toEqual(before.jobs)
    expect((await s.call('GET', '/v1/payments')).status).toBe(418)
    expect((await s.call('GET', '/__sandbox/webhook')).body.data).toEqual({
      url: 'http://127.0.0.1:9/hooks',
      secret: 'abc',
      url_source: 'tenant',
      secret_source: 'tenant',
    })
    // the restored job still runs when its time comes
    await s.call('POST', '/__sandbox/clock/advance', { by: '3s' })
    const user = await s.call('GET', `/v1/card-users/${pending}`)
    expect(user.body.data.cardUser.status).toBe('passed')
  })

  it('restores again and again: each test of a suite starts from the same state', async () => {
    const s = newSandbox()
    const card = await s.fundedCard()
    await s.call('POST', '/__sandbox/snapshots', { name: 'base' })
    const balances: unknown[] = []
    for (let round = 0; round < 3; round++) {
      await s.call('POST', '/__sandbox/snapshots/base/restore')
      await s.call(`POST`, '/v1/transactions/create/card-to-bank', {
        amount: 1_000,
        card_reference: card.reference,
        bank_id: 'SN01',
        bank_name: 'BICICI',
      })
      balances.push((await s.call('GET', `/v1/cards/${card.reference}`)).body.data.card.balance)
    }
    expect(new Set(balances).size).toBe(1)
  })

  it('lists, replaces and deletes, and names the known ones for an unknown name', async () => {
    const s = newSandbox()
    const none = await s.call('POST', '/__sandbox/snapshots/a/restore')
    expect(none.body.message).toBe('No snapshot named a (none yet).')
    await s.call('POST', '/__sandbox/snapshots', { name: 'a' })
    await s.call('POST', '/v1/card-users/create', { phone: '+221770000001' })
    await s.call('POST', '/__sandbox/snapshots', { name: 'b' })
    await s.call('POST', '/__sandbox/snapshots', { name: 'a' })
    const listed = (await s.call('GET', '/__sandbox/snapshots')).body.data
    expect(listed.map((x: any) => x.name)).toEqual(['b', 'a'])
    expect(listed[0].rows).toBe(listed[1].rows)
    const unknown = await s.call('POST', '/__sandbox/snapshots/c/restore')
    expect(unknown.status).toBe(404)
    expect(unknown.body.message).toBe('No snapshot named c (snapshots: b, a).')
    expect(
      (await s.call('DELETE', '/__sandbox/snapshots/a')).body.data.map((x: any) => x.name),
    ).toEqual(['b'])
    expect((await s.call('DELETE', '/__sandbox/snapshots/a')).status).toBe(404)
    const bad = await s.call('POST', '/__sandbox/snapshots', { name: 'a b', extra: 1 })
    expect(Object.keys(bad.body.errors).sort()).toEqual(['extra', 'name'])
  })

  it('keeps 100 snapshots a token at most: a new name past them is refused, a known one replaced', async () => {
    const s = newSandbox()
    for (let n = 1; n <= 100; n++) {
      const taken = await s.call('POST', '/__sandbox/snapshots', { name: `s${n}` })
      expect(taken.status, JSON.stringify(taken.body)).toBe(200)
    }
    const past = await s.call('POST', '/__sandbox/snapshots', { name: 's101' })
    expect(past.status).toBe(422)
    expect(past.body.errors).toEqual({
      name: ['This tenant keeps 100 snapshots at most: delete one first.'],
    })
    expect((await s.call('POST', '/__sandbox/snapshots', { name: 's100' })).status).toBe(200)
    await s.call('DELETE', '/__sandbox/snapshots/s1')
    expect((await s.call('POST', '/__sandbox/snapshots', { name: 's101' })).status).toBe(200)
  })

  it("keeps each token's snapshots its own", async () => {
    const s = newSandbox()
    await s.call('POST', '/v1/card-users/create', { phone: '+221770000001' })
    await s.call('POST', '/__sandbox/snapshots', { name: 'mine' })
    expect(
      (await s.call('GET', '/__sandbox/snapshots', undefined, { token: 'other' })).body.data,
    ).toEqual([])
    const theirs = await s.call('POST', '/__sandbox/snapshots/mine/restore', undefined, {
      token: 'other',
    })
    expect(theirs.status).toBe(404)
    await s.call('POST', '/v1/card-users/create', { phone: '+221770000002' }, { token: 'other' })
    await s.call('POST', '/__sandbox/snapshots/mine/restore')
    const others = (await s.call('GET', '/v1/card-users', undefined, { token: 'other' })).body
      .data[0].data
    expect(others.map((u: any) => u.phone)).toEqual(['+221770000002'])
  })

  it('persists with a file database across a restart', async () => {
    const dir = tempDir()
    const db = join(dir, 'sandbox.sqlite')
    const first = newSandbox({ db })
    const user = (await first.call('POST', '/v1/card-users/create', { phone: '+221770000001' }))
      .body.userCard.reference
    await first.call('POST', '/__sandbox/snapshots', { name: 'kept' })
    first.close()
    const second = newSandbox({ db })
    cleanups.push(() => second.close())
    await second.call('POST', '/__sandbox/reset')
    await second.call('POST', '/__sandbox/snapshots/kept/restore')
    const users = (await second.call('GET', '/v1/card-users')).body.data[0].data
    expect(users.map((u: any) => u.reference)).toEqual([user])
  })
})
