/**
 * /__sandbox/clock: a manual clock set to any instant, never backwards;
 * where a new manual clock starts; run until idle; control-plane bodies refuse unknown fields.
 */
import { describe, expect, it } from 'vitest'
import { createSandbox } from '../../../src/server/sandbox.js'
import { fullIdentity, newSandbox } from '../../helpers.js'

/** The refusal of an instant before the clock's time, word for word. */
function pastMessage(field: string, clockTime: string): string {
  return (
    `The ${field} field must not be before the clock's time, ${clockTime}: a clock only moves ` +
    'forward (a reset, or a snapshot restored, takes it back).'
  )
}

describe('PUT /__sandbox/clock {"now"}', () => {
  it('sets a manual clock to an instant and runs what fell due on the way', async () => {
    const s = newSandbox()
    const user = (await s.call('POST', '/v1/card-users/create', fullIdentity())).body.data.userCard
      .reference
    const set = await s.call('PUT', '/__sandbox/clock', { now: '2026-03-01T09:00:00+01:00' })
    expect(set.status).toBe(200)
    expect(set.body.data).toMatchObject({
      mode: 'manual',
      now: '2026-03-01T08:00:00.000Z',
      transitions_run: 1,
    })
    const read = await s.call('GET', `/v1/card-users/${user}`)
    expect(read.body.data.cardUser.status).toBe('passed')
    expect((await s.call('GET', '/__sandbox/clock')).body.data.now).toBe('2026-03-01T08:00:00.000Z')
  })

  it('refuses to set it backwards, naming now, and leaves it where it was', async () => {
    const s = newSandbox()
    await s.call('PUT', '/__sandbox/clock', { now: '2026-03-01T09:00:00Z' })
    const back = await s.call('PUT', '/__sandbox/clock', { now: '2026-02-28T09:00:00Z' })
    expect(back.status).toBe(422)
    const message = pastMessage('now', '2026-03-01T09:00:00.000Z')
    expect(back.body).toEqual({ message, statusCode: 422, errors: { now: [message] } })
    // the same instant is not backwards
    expect((await s.call('PUT', '/__sandbox/clock', { now: '2026-03-01T09:00:00Z' })).status).toBe(
      200,
    )
    expect((await s.call('GET', '/__sandbox/clock')).body.data.now).toBe('2026-03-01T09:00:00.000Z')
  })

  it('refuses now on a real clock unless the same body switches it to manual', async () => {
    const s = newSandbox({ clock: 'real' })
    const refused = await s.call('PUT', '/__sandbox/clock', { now: '2099-01-01T00:00:00Z' })
    expect(refused.status).toBe(422)
    const message =
      'The now field sets a manual clock: send "mode": "manual" with it, or switch the clock ' +
      'to manual first.'
    expect(refused.body).toEqual({ message, statusCode: 422, errors: { now: [message] } })
    expect((await s.call('GET', '/__sandbox/clock')).body.data.mode).toBe('real')
    const switched = await s.call('PUT', '/__sandbox/clock', {
      mode: 'manual',
      now: '2099-01-01T00:00:00Z',
    })
    expect(switched.status).toBe(200)
    expect(switched.body.data).toMatchObject({ mode: 'manual', now: '2099-01-01T00:00:00.000Z' })
  })

  it('refuses an unknown field, a bad instant and an empty body, naming each field', async () => {
    const s = newSandbox()
    const unknown = await s.call('PUT', '/__sandbox/clock', { mode: 'manual', nwo: 'x' })
    expect(unknown.status).toBe(422)
    expect(Object.keys(unknown.body.errors)).toEqual(['nwo'])
    const bad = await s.call('PUT', '/__sandbox/clock', { now: '1 March 2026' })
    expect(Object.keys(bad.body.errors)).toEqual(['now'])
    const empty = await s.call('PUT', '/__sandbox/clock', {})
    expect(empty.status).toBe(422)
    const advance = await s.call('POST', '/__sandbox/clock/advance', { by: '1s', until: 'x' })
    expect(Object.keys(advance.body.errors)).toEqual(['until'])
    const transition = await s.call('POST', '/__sandbox/wallet-codes', {
      phone: '+2250700000001',
      network: 'orange-money-ci',
      amount: 1,
    })
    expect(Object.keys(transition.body.errors)).toEqual(['amount'])
  })
})

describe('where a new manual clock starts', () => {
  async function clockOf(options: Parameters<typeof createSandbox>[0]) {
    const { app, close } = createSandbox(options)
    const res = await app.request('/__sandbox/clock', { headers: { Authorization: 'Bearer t' } })
    close()
    return ((await res.json()) as any).data.now as string
  }

  it('at the real time without a seed, at 2026-01-01 with one, at clockStart when given', async () => {
    const before = Date.now()
    const unseeded = Date.parse(await clockOf({ clock: 'manual' }))
    expect(unseeded).toBeGreaterThanOrEqual(before)
    expect(unseeded).toBeLessThanOrEqual(Date.now())
    expect(await clockOf({ clock: 'manual', seed: 3 })).toBe('2026-01-01T00:00:00.000Z')
    expect(await clockOf({ clock: 'manual', seed: 3, clockStart: '2026-06-15T12:00:00Z' })).toBe(
      '2026-06-15T12:00:00.000Z',
    )
  })

  it('starts over there after a reset', async () => {
    const s = newSandbox({ clockStart: '2026-06-15T12:00:00Z' })
    await s.call('POST', '/__sandbox/clock/advance', { by: '2h' })
    await s.call('POST', '/__sandbox/reset')
    expect((await s.call('GET', '/__sandbox/clock')).body.data.now).toBe('2026-06-15T12:00:00.000Z')
  })

  it('refuses a clockStart that is not an ISO instant', () => {
    expect(() => createSandbox({ clockStart: '2026-06-15' })).toThrow(/ISO 8601 instant/)
  })
})

describe('POST /__sandbox/clock/advance', () => {
  it('refuses a duration it cannot read, in its words, and leaves the clock', async () => {
    const s = newSandbox()
    const message =
      'The by field must be a duration such as "15m", "2h", "1h30m" or a number of milliseconds.'
    const res = await s.call('POST', '/__sandbox/clock/advance', { by: 'soon' })
    expect(res.status, JSON.stringify(res.body)).toBe(422)
    expect(res.body).toEqual({ message, statusCode: 422, errors: { by: [message] } })
    expect((await s.call('GET', '/__sandbox/clock')).body.data.now).toBe('2026-01-01T00:00:00.000Z')
  })
})

describe('POST /__sandbox/clock/run-due', () => {
  it('runs every job in order until the tenant is idle, answering what fired', async () => {
    const s = newSandbox()
    const user = (await s.call('POST', '/v1/card-users/create', fullIdentity())).body.data.userCard
      .reference
    const first = await s.call('POST', '/__sandbox/clock/run-due', {})
    expect(first.body.data).toMatchObject({
      now: '2026-01-01T00:00:03.000Z',
      transitions_run: 1,
      fired: [
        {
          at: '2026-01-01T00:00:03.000Z',
          resource: 'card_user',
          reference: user,
          from: 'pending',
          to: 'passed',
        },
      ],
    })
    const card = (
      await s.call('POST', '/v1/cards/create', {
        card_user_reference: user,
        card_brand: 'visa',
        card_type: 'virtual',
      })
    ).body.data.card.reference
    const second = await s.call('POST', '/__sandbox/clock/run-due', {})
    expect(second.body.data.fired).toEqual([
      expect.objectContaining({ resource: 'card', reference: card, to: 'issued' }),
    ])
    expect((await s.call('GET', `/v1/cards/${card}`)).body.data.card.status).toBe('issued')
    // idle: nothing more, and the clock stays
    const idle = await s.call('POST', '/__sandbox/clock/run-due', {})
    expect(idle.body.data).toMatchObject({ now: second.body.data.now, fired: [] })
  })

  it('stops before until, and leaves the clock at until', async () => {
    const s = newSandbox()
    await s.call('POST', '/v1/card-users/create', fullIdentity())
    const run = await s.call('POST', '/__sandbox/clock/run-due', {
      until: '2026-01-01T00:00:02.000Z',
    })
    expect(run.body.data).toMatchObject({ now: '2026-01-01T00:00:02.000Z', fired: [] })
    const past = await s.call('POST', '/__sandbox/clock/run-due', {
      until: '2026-01-01T00:00:01.000Z',
    })
    expect(past.status).toBe(422)
    const message = pastMessage('until', '2026-01-01T00:00:02.000Z')
    expect(past.body).toEqual({ message, statusCode: 422, errors: { until: [message] } })
    // the clock's own time is not before it: nothing due by then, and the clock stays
    const now = await s.call('POST', '/__sandbox/clock/run-due', {
      until: '2026-01-01T00:00:02.000Z',
    })
    expect(now.status, JSON.stringify(now.body)).toBe(200)
    expect(now.body.data).toMatchObject({ now: '2026-01-01T00:00:02.000Z', fired: [] })
  })

  it('runs a job due at until itself, and only those due by then', async () => {
    const s = newSandbox()
    await s.call('POST', '/v1/card-users/create', fullIdentity()) // verified at 3 s
    await s.call('POST', '/__sandbox/clock/advance', { by: '1s' })
    await s.call('POST', '/v1/card-users/create', fullIdentity()) // at 4 s
    const run = await s.call('POST', '/__sandbox/clock/run-due', {
      until: '2026-01-01T00:00:03.000Z',
    })
    expect(run.body.data.now).toBe('2026-01-01T00:00:03.000Z')
    expect(run.body.data.fired.map((fired: { at: string }) => fired.at)).toEqual([
      '2026-01-01T00:00:03.000Z',
    ])
  })

  it('counts an expiry: a wallet code left unused expires in the run', async () => {
    const s = newSandbox()
    await s.call('POST', '/__sandbox/wallet-codes', {
      phone: '+2250700000001',
      network: 'orange-money-sn',
    })
    const run = await s.call('POST', '/__sandbox/clock/run-due', {})
    expect(run.body.data.fired).toEqual([
      expect.objectContaining({ resource: 'wallet_code', what: 'expired unused' }),
    ])
    expect(run.body.data.now).toBe('2026-01-01T00:15:00.001Z')
  })

  it('runs on a real clock too, moving it forward', async () => {
    const s = newSandbox({ clock: 'real' })
    await s.call('POST', '/v1/card-users/create', fullIdentity())
    const run = await s.call('POST', '/__sandbox/clock/run-due', {})
    expect(run.body.data.mode).toBe('real')
    expect(run.body.data.fired).toHaveLength(1)
  })
})
