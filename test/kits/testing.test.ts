/**
 * `card-sandbox/testing` (src/testing.ts) as a test suite uses it, against a sandbox on a real
 * port: the kit's journey, from nothing to a settled card-to-wallet with a verified webhook,
 * knowing no delay. The receiver's own tests are test/clients/receiver.test.ts, the signature's
 * test/webhooks/sign.test.ts.
 */
import { afterAll, beforeAll, beforeEach, describe, expect, expectTypeOf, it } from 'vitest'
import { createSandboxClient, type SandboxClient } from '../../src/clients/client.js'
import { startSandbox, type RunningSandbox } from '../../src/server/sandbox.js'
import { signPayload, verifySignature, webhookReceiver } from '../../src/kits/testing.js'
import { fullIdentity } from '../helpers.js'

const IDENTITY = fullIdentity()

describe('card-sandbox/testing', () => {
  let sandbox: RunningSandbox
  let client: SandboxClient

  beforeAll(async () => {
    sandbox = await startSandbox({ port: 0, clock: 'manual', seed: 5 })
    client = createSandboxClient({ baseUrl: sandbox.url, token: 'testing-suite' })
  })
  afterAll(() => sandbox.close())
  beforeEach(() => client.reset())

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
      // a handler's own check with the kit's helpers: the bytes received, the tenant's secret
      const signature = issued.headers['x-alal-signature']
      expect(verifySignature(issued.rawBody, signature, client.token)).toBe(true)
      expect(signPayload(issued.rawBody, client.token).signature).toBe(signature)
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
