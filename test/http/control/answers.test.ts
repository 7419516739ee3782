/**
 * What the control plane answers, route by route: each call's `message`, word for word (a client
 * logs it, and docs/control-plane.md quotes them), and the `data` of the calls whose answer is
 * the state they leave (the scenarios in force, an emptied journal, a replayed event).
 */
import { describe, expect, it } from 'vitest'
import { fullIdentity, newSandbox } from '../../helpers.js'

type Sandbox = ReturnType<typeof newSandbox>

async function messageOf(
  s: Sandbox,
  method: string,
  path: string,
  body?: unknown,
): Promise<string> {
  const res = await s.call(method, path, body)
  expect(res.status, `${method} ${path}: ${JSON.stringify(res.body)}`).toBe(200)
  expect(res.body.statusCode).toBe(200)
  return res.body.message
}

const TEAPOT = {
  name: 'teapot',
  rules: [{ match: { method: 'GET', path: '/v1/cards' }, respond: { status: 418 } }],
}

describe('the control plane’s messages', () => {
  it('names what each clock call did', async () => {
    const s = newSandbox()
    expect(await messageOf(s, 'GET', '/__sandbox/clock')).toBe('Sandbox clock')
    expect(await messageOf(s, 'POST', '/__sandbox/clock/advance', { by: '1s' })).toBe(
      'Sandbox clock advanced',
    )
    expect(await messageOf(s, 'POST', '/__sandbox/clock/run-due', {})).toBe(
      'Sandbox clock ran until idle',
    )
    expect(await messageOf(s, 'PUT', '/__sandbox/clock', { now: '2026-02-01T00:00:00Z' })).toBe(
      'Sandbox clock set',
    )
    expect(await messageOf(s, 'PUT', '/__sandbox/clock', { mode: 'manual' })).toBe(
      'Sandbox clock updated',
    )
  })

  it('names what each money call did', async () => {
    const s = newSandbox()
    const { reference } = await s.issuedCard()
    expect(await messageOf(s, 'POST', `/__sandbox/cards/${reference}/fund`, { amount: 500 })).toBe(
      'Card funded',
    )
    expect(
      await messageOf(s, 'POST', `/__sandbox/cards/${reference}/withdraw`, { amount: 200 }),
    ).toBe('Card withdrawn')
    expect(await messageOf(s, 'GET', '/__sandbox/business')).toBe('Business account')
    expect(await messageOf(s, 'POST', '/__sandbox/business/fund', { amount: 500 })).toBe(
      'Float funded',
    )
  })

  it('names what each delays, jobs, wallet-code and transition call did', async () => {
    const s = newSandbox()
    expect(await messageOf(s, 'GET', '/__sandbox/delays')).toBe('Delays')
    expect(await messageOf(s, 'PUT', '/__sandbox/delays', { card_issuing: '1s' })).toBe(
      'Delays updated',
    )
    expect(await messageOf(s, 'GET', '/__sandbox/jobs')).toBe('Scheduled jobs')
    expect(
      await messageOf(s, 'POST', '/__sandbox/wallet-codes', {
        phone: '+2250700000001',
        network: 'orange-money-sn',
      }),
    ).toBe('Wallet code issued')
    const user = (await s.call('POST', '/v1/card-users/create', fullIdentity())).body.data.userCard
      .reference
    expect(
      await messageOf(s, 'POST', `/__sandbox/card-users/${user}/transition`, { to: 'passed' }),
    ).toBe('Moved card user to passed')
  })

  it('names what each snapshot, fixture and reset call did', async () => {
    const s = newSandbox()
    expect(await messageOf(s, 'GET', '/__sandbox/fixtures')).toBe('Fixtures')
    expect(
      await messageOf(s, 'POST', '/__sandbox/fixtures', { name: 'verified-user-funded-card' }),
    ).toBe('Fixture applied')
    expect(await messageOf(s, 'POST', '/__sandbox/snapshots', { name: 'funded' })).toBe(
      'Snapshot taken',
    )
    expect(await messageOf(s, 'GET', '/__sandbox/snapshots')).toBe('Snapshots')
    expect(await messageOf(s, 'POST', '/__sandbox/snapshots/funded/restore')).toBe(
      'Snapshot restored',
    )
    expect(await messageOf(s, 'DELETE', '/__sandbox/snapshots/funded')).toBe('Snapshot deleted')
    expect(await messageOf(s, 'POST', '/__sandbox/reset')).toBe('Sandbox reset')
  })

  it('names what each scenario and webhook call did', async () => {
    const s = newSandbox()
    expect(await messageOf(s, 'GET', '/__sandbox/scenarios')).toBe('Scenarios in force')
    expect(await messageOf(s, 'POST', '/__sandbox/scenarios', TEAPOT)).toBe('Scenario added')
    expect(await messageOf(s, 'DELETE', '/__sandbox/scenarios/teapot')).toBe('Scenario removed')
    expect(await messageOf(s, 'GET', '/__sandbox/webhook')).toBe('Webhook endpoint')
    expect(
      await messageOf(s, 'PUT', '/__sandbox/webhook', { url: 'http://127.0.0.1:9/hooks' }),
    ).toBe('Webhook endpoint updated')
    expect(await messageOf(s, 'GET', '/__sandbox/webhooks')).toBe('Webhook events')
  })
})

describe('the control plane’s answers that are the state they leave', () => {
  it('answers a posted scenario with the scenarios now in force', async () => {
    const s = newSandbox()
    const posted = await s.call('POST', '/__sandbox/scenarios', TEAPOT)
    expect(posted.body.data).toEqual([
      { name: 'teapot', source: 'tenant', description: null, delays: {}, rules: 1 },
    ])
  })

  it('answers an emptied journal with an empty list', async () => {
    const s = newSandbox()
    await s.call('GET', '/v1/cards')
    const cleared = await s.call('DELETE', '/__sandbox/requests')
    expect(cleared.body).toEqual({
      message: 'Request journal cleared',
      statusCode: 200,
      data: [],
    })
  })

  it('answers a replay with the event’s id and its status again', async () => {
    const s = newSandbox()
    await s.call('POST', '/v1/card-users/create', fullIdentity())
    await s.call('POST', '/__sandbox/clock/run-due', {})
    const [event] = (await s.call('GET', '/__sandbox/webhooks')).body.data
    const replay = await s.call('POST', `/__sandbox/webhooks/${event.id}/replay`)
    expect(replay.body).toEqual({
      message: 'Webhook event queued again',
      statusCode: 200,
      data: { id: event.id, status: 'pending' },
    })
  })
})
