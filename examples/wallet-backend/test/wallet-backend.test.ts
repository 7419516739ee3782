/**
 * The wallet backend against card-sandbox, as a client team would test it: one sandbox for the
 * run (the `card-sandbox/vitest` globalSetup), a reset before each test, time moved instead of
 * waited for, webhooks received for real, and the request journal to check what was sent.
 */
import { createHmac } from 'node:crypto'
import { afterAll, beforeAll, beforeEach, describe, expect, inject, it, vi } from 'vitest'
import { createSandboxClient } from 'card-sandbox/client'
import type {} from 'card-sandbox/vitest' // types inject('cardSandboxUrl')
import { createWalletBackend, type WalletBackend } from '../src/backend.js'

/** One token per test file: files run in parallel against the one sandbox, one tenant each. */
const API_KEY = 'wallet-backend-suite'
const sandbox = createSandboxClient({ baseUrl: inject('cardSandboxUrl'), token: API_KEY })

let backend: WalletBackend
let server: Awaited<ReturnType<WalletBackend['listen']>>

beforeAll(async () => {
  backend = createWalletBackend({ apiUrl: sandbox.baseUrl, apiKey: API_KEY })
  server = await backend.listen(0)
})
afterAll(() => server.close())
beforeEach(async () => {
  // manual: the kit's own sandbox starts tenants so, one CARD_SANDBOX_URL names may not
  await sandbox.reset({ clock: 'manual' })
  await sandbox.setWebhook({ url: server.webhookUrl })
})

/** Retries an assertion until it holds (webhooks arrive just after the call that causes them). */
const eventually = (assertion: () => unknown) => vi.waitFor(assertion, { timeout: 5_000 })

/** A registered card user whom the sandbox has verified. */
async function verifiedUser(phone: string): Promise<string> {
  const user = await backend.registerCardUser({ phone })
  await sandbox.transition('card-users', user, 'passed')
  return user
}

describe('wallet backend', () => {
  it('records a card user’s verification from the signed webhook', async () => {
    const user = await backend.registerCardUser({ phone: '+221770000001', email: 'awa@x.test' })
    expect(backend.cardUser(user)).toEqual({ reference: user, status: 'pending' })

    // the widget would verify the user; in tests the control plane does
    await sandbox.transition('card-users', user, 'passed')

    await eventually(() => expect(backend.cardUser(user)?.status).toBe('passed'))
    // the backend keeps the status before it answers; the sandbox logs the delivery once answered
    await eventually(async () =>
      expect((await sandbox.webhooks()).data[0]).toMatchObject({
        type: 'card_user_verification.successful',
        status: 'delivered',
        attempts: [{ attempt: 1, status_code: 200, url: server.webhookUrl }],
      }),
    )
  })

  it('records a failed verification', async () => {
    const user = await backend.registerCardUser({ phone: '+221770000002' })
    await sandbox.transition('card-users', user, 'failed')
    await eventually(() => expect(backend.cardUser(user)?.status).toBe('failed'))
  })

  it('refuses a webhook that is not signed with its key, and the sandbox retries it', async () => {
    const forged = JSON.stringify({ event: 'card_user_verification.successful', data: {} })
    const res = await fetch(server.webhookUrl, {
      method: 'POST',
      headers: { 'x-alal-signature': createHmac('sha512', 'wrong').update(forged).digest('hex') },
      body: forged,
    })
    expect(res.status).toBe(401)

    // the sandbox signing with another secret: the backend refuses, the event waits for a retry
    await sandbox.setWebhook({ url: server.webhookUrl, secret: 'not-the-api-key' })
    // a manual clock starts at the real time (2026-01-01 with a seed): read it, not a constant
    const retryAt = new Date((await sandbox.clock()).now_ms + 10_000).toISOString()
    const user = await verifiedUser('+221770000003')
    await eventually(async () => {
      const [event] = (await sandbox.webhooks()).data
      expect(event.attempts[0]?.status_code).toBe(401)
    })
    expect(backend.cardUser(user)?.status).toBe('pending')
    const [refused] = (await sandbox.webhooks()).data
    expect(refused).toMatchObject({
      status: 'pending',
      next_attempt_at: retryAt,
    })

    // signed with the API key again (the token, by default): the retry 10 s later gets through
    await sandbox.setWebhook({ url: server.webhookUrl, secret: null })
    await sandbox.advanceClock('10s')
    await eventually(() => expect(backend.cardUser(user)?.status).toBe('passed'))
    await eventually(async () => {
      const [retried] = (await sandbox.webhooks()).data
      expect(retried).toMatchObject({
        id: refused.id,
        status: 'delivered',
        attempts: [
          { attempt: 1, status_code: 401 },
          { attempt: 2, status_code: 200, at: retryAt },
        ],
      })
    })
  })

  it('issues a card that becomes issued once the clock moves', async () => {
    const user = await verifiedUser('+221770000004')
    const card = await backend.issueCard(user)
    expect(card.status).toBe('issuing')

    await sandbox.advanceClock('5s') // card_issuing: 5 s on the sandbox clock

    await eventually(() => expect(backend.card(card.reference)?.status).toBe('issued'))
    expect(backend.card(card.reference)?.cardNumber).toMatch(/^4\d{15}$/)
    const cards = await sandbox.v1('GET', '/cards')
    expect(cards.data).toEqual([
      expect.objectContaining({ reference: card.reference, status: 'issued' }),
    ])
  })

  it('sends the card order the API expects (request journal)', async () => {
    const user = await verifiedUser('+221770000005')
    await backend.issueCard(user)

    const { data: sent, meta } = await sandbox.requests({
      method: 'POST',
      path: '/v1/cards/create',
    })
    expect(meta.total).toBe(1)
    expect(sent[0]).toMatchObject({
      status: 200,
      request: {
        headers: { 'content-type': 'application/json', accept: 'application/json' },
        body: { card_user_reference: user, card_brand: 'visa', card_type: 'virtual' },
      },
    })
    // the token is masked in the journal
    expect(sent[0].request.headers.authorization).not.toContain(API_KEY)
  })
})
