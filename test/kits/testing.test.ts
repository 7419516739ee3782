/**
 * `card-sandbox/testing` (src/testing.ts): signatures made and checked as the sandbox makes them,
 * and a receiver that a test points the tenant's webhooks at, against a sandbox on a real port.
 * The last test is the kit's journey: from nothing to a settled card-to-wallet with a
 * verified webhook, knowing no delay.
 */
import { createHmac } from 'node:crypto'
import { afterAll, beforeAll, beforeEach, describe, expect, expectTypeOf, it } from 'vitest'
import { createSandboxClient, type SandboxClient } from '../../src/clients/client.js'
import { startSandbox, type RunningSandbox } from '../../src/server/sandbox.js'
import {
  signPayload,
  verifySignature,
  webhookReceiver,
  type Delivery,
} from '../../src/kits/testing.js'
import { fullIdentity } from '../helpers.js'

const IDENTITY = fullIdentity()

describe('verifySignature and signPayload', () => {
  const body = '{"event":"card_creation.successful","data":{"reference":"r"}}'
  const hmac = createHmac('sha512', 'key').update(body).digest('hex')

  it('signs as the sandbox signs (hex HMAC-SHA512 of the exact bytes), and verifies that', () => {
    const signed = signPayload(body, 'key')
    expect(signed).toEqual({
      body,
      signature: hmac,
      headers: { 'content-type': 'application/json', 'x-alal-signature': hmac },
    })
    expect(verifySignature(body, hmac, 'key')).toBe(true)
    expect(verifySignature(Buffer.from(body), hmac.toUpperCase(), 'key')).toBe(true)
    const fromObject = signPayload(JSON.parse(body), 'key')
    expect(fromObject.body).toBe(body)
  })

  it('refuses another body, another secret, and a missing or malformed header', () => {
    expect(verifySignature(body.replace('r"', 's"'), hmac, 'key')).toBe(false)
    expect(verifySignature(body, hmac, 'other')).toBe(false)
    for (const header of [undefined, null, '', hmac.slice(2), [hmac], `${hmac.slice(1)}g`])
      expect(verifySignature(body, header, 'key')).toBe(false)
  })
})

describe('webhookReceiver', () => {
  let sandbox: RunningSandbox
  let client: SandboxClient

  beforeAll(async () => {
    sandbox = await startSandbox({ port: 0, clock: 'manual', seed: 5 })
    client = createSandboxClient({ baseUrl: sandbox.url, token: 'testing-suite' })
  })
  afterAll(() => sandbox.close())
  beforeEach(() => client.reset())

  it('points the tenant at itself, verifies each delivery and waits for an event', async () => {
    const receiver = await webhookReceiver(client)
    try {
      expect((await client.webhook()).url).toBe(receiver.url)
      const user = (await client.v1.cardUsers.create(IDENTITY)).data.userCard.reference
      await client.runUntilIdle()
      const delivery = await receiver.waitFor('card_user_verification.successful')
      expect(delivery).toMatchObject({ verified: true, data: { reference: user } })
      // typed by the event's name: its data read without a cast
      expectTypeOf(delivery).toEqualTypeOf<Delivery<'card_user_verification.successful'>>()
      const status: 'passed' = delivery.data.status
      const email: string = delivery.data.email
      expect([status, email]).toEqual(['passed', IDENTITY.email])
      // @ts-expect-error an event the sandbox does not send is refused
      const unknownEvent = () => receiver.waitFor('card.issued')
      void unknownEvent
      expect(delivery.headers['x-alal-delivery-attempt']).toBe('1')
      expect(JSON.parse(delivery.rawBody)).toEqual(delivery.body)
      // the webhook log keeps the headers sent, the signature among them
      await sandbox.deps.deliverer.idle()
      const [event] = (await client.webhooks()).data
      expect(event.attempts[0].request_headers).toMatchObject({
        'x-alal-signature': delivery.headers['x-alal-signature'],
        'x-alal-event-id': event.id,
      })
      expect(event.attempts[0]).toMatchObject({ status_code: 200, response: '{}' })
    } finally {
      await receiver.close()
    }
    expect((await client.webhook()).url).toBeNull()
  })

  it('answers 401 to a delivery signed with another secret, and waits only for verified ones', async () => {
    const receiver = await webhookReceiver(client, { secret: 'what-my-backend-expects' })
    try {
      // the sandbox signs with another secret than the receiver checks
      await client.setWebhook({ url: receiver.url, secret: 'something-else' })
      await client.v1.cardUsers.create(IDENTITY)
      await client.runUntilIdle()
      await expect(
        receiver.waitFor('card_user_verification.successful', undefined, { timeout: 300 }),
      ).rejects.toThrow(
        'no verified card_user_verification.successful delivery within 300 ms (received: card_user_verification.successful (bad signature))',
      )
      expect(receiver.deliveries).toHaveLength(1)
      await sandbox.deps.deliverer.idle()
      const [event] = (await client.webhooks()).data
      expect(event).toMatchObject({ status: 'pending', attempts: [{ status_code: 401 }] })
    } finally {
      await receiver.close()
    }
  })

  it('answers what respond says, so a test can watch the sandbox retry', async () => {
    let calls = 0
    const receiver = await webhookReceiver(client, { respond: () => (++calls === 1 ? 503 : 200) })
    try {
      await client.v1.cardUsers.create(IDENTITY)
      await client.runUntilIdle()
      await receiver.waitFor('card_user_verification.successful')
      await sandbox.deps.deliverer.idle()
      expect((await client.webhooks()).data[0].status).toBe('pending')
      await client.advanceClock('10s')
      const retried = await receiver.waitFor(
        'card_user_verification.successful',
        (d) => d.headers['x-alal-delivery-attempt'] === '2',
      )
      expect(retried.verified).toBe(true)
      expect(receiver.deliveries).toHaveLength(2)
      // `verified` and `event` narrow a delivery of the list to that event's type
      const verifications = receiver.deliveries.filter(
        (d) => d.verified && d.event === 'card_user_verification.successful',
      )
      const references: string[] = verifications.map((d) => d.data.reference)
      expect(new Set(references).size).toBe(1)
      // @ts-expect-error not narrowed: an unverified delivery's data is unknown
      const unchecked = () => receiver.deliveries[0].data.reference
      void unchecked
    } finally {
      await receiver.close()
    }
  })

  it('takes a user, a funded card and a card-to-wallet to the end without a delay constant', async () => {
    const receiver = await webhookReceiver(client)
    try {
      const user = (await client.v1.cardUsers.create(IDENTITY)).data.userCard.reference
      await client.runUntilIdle()
      expect((await client.v1.cardUsers.show(user)).data.cardUser.status).toBe('passed')

      const card = (
        await client.v1.cards.create({
          card_user_reference: user,
          card_brand: 'visa',
          card_type: 'virtual',
        })
      ).data.card.reference
      await client.runUntilIdle()
      const issued = await receiver.waitFor(
        'card_creation.successful',
        (d) => d.data.reference === card,
      )
      expect(issued.verified).toBe(true)
      // the brand as the API names it with quirks on (the default), as it was asked for off
      expectTypeOf(issued.data.card_brand).toEqualTypeOf<
        'Visa' | 'Mastercard' | 'Gim' | 'visa' | 'mastercard' | 'gim'
      >()
      expect(issued.data).toMatchObject({ card_brand: 'Visa', balance: '0', status: 'issued' })
      await client.fundCard(card, 50_000)

      const transfer = (
        await client.v1.transactions.cardToWallet({
          amount: 20_000,
          card_reference: card,
          phone: '+221770000002',
          network: 'wave-sn',
        })
      ).data.transaction
      expect(transfer.status).toBe('pending')
      const run = await client.runUntilIdle()
      expect(run.fired).toEqual([
        expect.objectContaining({
          resource: 'transaction',
          reference: transfer.slug,
          to: 'success',
        }),
      ])
      expect((await client.v1.transactions.show(transfer.slug)).transaction.status).toBe('success')
      expect(receiver.deliveries.every((d) => d.verified)).toBe(true)
    } finally {
      await receiver.close()
    }
  })
})
