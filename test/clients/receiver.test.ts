/**
 * The webhook receiver (src/clients/receiver.ts) against a sandbox on a real port: it points the
 * tenant's webhooks at itself, checks each delivery's signature, waits for an event and answers
 * as told.
 */
import { afterAll, beforeAll, beforeEach, describe, expect, expectTypeOf, it } from 'vitest'
import { createSandboxClient, type SandboxClient } from '../../src/clients/client.js'
import { webhookReceiver, type Delivery } from '../../src/clients/receiver.js'
import { startSandbox, type RunningSandbox } from '../../src/server/sandbox.js'
import { fullIdentity } from '../helpers.js'

const IDENTITY = fullIdentity()

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
})
