/** The kit test of README.md and docs/testing.md, as written there (test/docs.test.ts compares). */
import { beforeEach, expect, inject, it } from 'vitest'
import { createSandboxClient, SandboxClientError } from 'card-sandbox/client'
import type {} from 'card-sandbox/vitest' // gives inject('cardSandboxUrl') its type

// one token per test file: files run in parallel against one sandbox, one tenant each
const sandbox = createSandboxClient({ baseUrl: inject('cardSandboxUrl'), token: 'cards-suite' })
beforeEach(() => sandbox.reset())

it('issues a card to a verified user', async () => {
  // your backend under test would make these /v1 calls, against sandbox.baseUrl
  const created = await sandbox.v1('POST', '/card-users/create', { phone: '+221770000001' })
  const user = created.userCard.reference
  await sandbox.transition('card-users', user, 'passed') // what the widget would do
  const order = await sandbox.v1('POST', '/cards/create', {
    card_user_reference: user,
    card_brand: 'visa',
    card_type: 'virtual',
  })
  await sandbox.advanceClock('5s') // card_issuing
  const cards = await sandbox.v1('GET', '/cards')
  expect(cards.data[0]).toMatchObject({ reference: order.data.card.reference, status: 'issued' })

  const { data: sent } = await sandbox.requests({ method: 'POST', path: '/v1/cards/create' })
  expect(sent[0].request.body).toMatchObject({ card_user_reference: user })

  const error = await sandbox.transition('card-users', user, 'pending').catch((e) => e)
  expect(error).toBeInstanceOf(SandboxClientError)
  expect(error.status).toBe(409)
})
