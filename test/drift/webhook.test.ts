/**
 * compareWebhook: a delivery saved by a handler as `{headers, body}` compared with the sandbox's
 * event of its name. The clean cases are deliveries the sandbox really sent to a receiver that
 * saved them; the planted ones change one thing each and expect exactly that finding.
 */
import { readFileSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { afterEach, describe, expect, it } from 'vitest'
import { compareWebhook, type SavedDelivery } from '../../src/drift/webhook.js'
import { signPayload } from '../../src/webhooks/sign.js'
import { fullIdentity, newSandbox } from '../helpers.js'
import { startReceiver, until } from '../webhooks/receiver.js'
import { tempDir } from '../temp-dir.js'
import { createHmac } from 'node:crypto'

const SECRET = 'whsec_drift_test'
const cleanups: (() => unknown)[] = []
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup()
})

/**
 * The sandbox's real deliveries of card_user_verification.successful and
 * card_creation.successful, as a handler saves them: the headers and the raw body, written to a
 * JSON file and read back.
 */
async function capturedDeliveries(): Promise<Record<string, SavedDelivery>> {
  const receiver = await startReceiver()
  const s = newSandbox({ webhookTimeoutMs: 1000 })
  cleanups.push(
    () => receiver.close(),
    () => s.close(),
  )
  await s.call('PUT', '/__sandbox/webhook', { url: receiver.url, secret: SECRET })
  const user = (await s.call('POST', '/v1/card-users/create', fullIdentity())).body.data.userCard
    .reference
  await s.call('POST', '/__sandbox/clock/advance', { by: '3s' })
  const card = (
    await s.call('POST', '/v1/cards/create', {
      card_user_reference: user,
      card_brand: 'visa',
      card_type: 'virtual',
    })
  ).body.data.card.reference
  await s.call('POST', `/__sandbox/cards/${card}/transition`, { to: 'issued' })
  await until(() => receiver.requests.length === 2, 5_000, 'two deliveries')
  const dir = tempDir()
  const saved: Record<string, SavedDelivery> = {}
  for (const { headers, body } of receiver.requests) {
    const file = join(dir, 'delivery.json')
    writeFileSync(file, JSON.stringify({ headers, body }))
    const delivery = JSON.parse(readFileSync(file, 'utf8')) as SavedDelivery
    saved[(JSON.parse(delivery.body) as { event: string }).event] = delivery
  }
  return saved
}

/** A delivery with its body changed and signed again with the secret (one change at a time). */
function replanted(delivery: SavedDelivery, change: (body: any) => void): SavedDelivery {
  const body = JSON.parse(delivery.body)
  change(body)
  const signed = signPayload(body, SECRET)
  return { headers: { ...delivery.headers, ...signed.headers }, body: signed.body }
}

describe('compareWebhook', () => {
  it("compares the sandbox's own deliveries clean, and they verify with the secret", async () => {
    const saved = await capturedDeliveries()
    expect(Object.keys(saved).sort()).toEqual([
      'card_creation.successful',
      'card_user_verification.successful',
    ])
    for (const delivery of Object.values(saved)) {
      expect(delivery.headers['x-alal-signature']).toMatch(/^[0-9a-f]{128}$/)
      expect(compareWebhook(delivery)).toEqual([])
      expect(compareWebhook(delivery, SECRET)).toEqual([])
    }
  })

  describe('planted differences, each reported once', () => {
    let saved: Record<string, SavedDelivery>
    const load = async () => (saved ??= await capturedDeliveries())
    const verification = 'card_user_verification.successful'
    const creation = 'card_creation.successful'
    const route = (event: string) => `webhook ${event}`

    it('an extra key', async () => {
      const delivery = replanted((await load())[verification], (b) => (b.data.nickname = 'Awa D.'))
      expect(compareWebhook(delivery, SECRET)).toEqual([
        {
          route: route(verification),
          path: '$.data.nickname',
          kind: 'extra-key',
          upstream: 'string',
          sandbox: 'absent',
        },
      ])
    })

    it('a missing key', async () => {
      const delivery = replanted((await load())[verification], (b) => delete b.data.email)
      expect(compareWebhook(delivery, SECRET)).toEqual([
        {
          route: route(verification),
          path: '$.data.email',
          kind: 'missing-key',
          upstream: 'absent',
          sandbox: 'string',
        },
      ])
    })

    it('a type change (the balance as a number); no value of the delivery in a finding', async () => {
      const delivery = replanted((await load())[creation], (b) => (b.data.balance = 0))
      expect(compareWebhook(delivery, SECRET)).toEqual([
        {
          route: route(creation),
          path: '$.data.balance',
          kind: 'type',
          upstream: 'number',
          sandbox: 'string',
        },
      ])
      // a delivery's values (a card number here) stay out of the findings
      const card = JSON.parse(saved[creation].body).data
      const leaked = replanted(saved[creation], (b) => {
        b.data.pan = card.card_number
        b.data.card_number = Number(card.card_number)
      })
      const findings = compareWebhook(leaked, SECRET)
      expect(findings.map((f) => [f.path, f.kind])).toEqual([
        ['$.data.pan', 'extra-key'],
        ['$.data.card_number', 'type'],
      ])
      expect(JSON.stringify(findings)).not.toContain(card.card_number)
    })

    it('a renamed signature header (still verifying under its new name)', async () => {
      const { headers, body } = (await load())[verification]
      const { 'x-alal-signature': signature, ...rest } = headers
      const delivery = { headers: { ...rest, 'x-signature': signature }, body }
      expect(compareWebhook(delivery, SECRET)).toEqual([
        {
          route: route(verification),
          path: 'header:x-alal-signature',
          kind: 'header',
          upstream: 'absent; a signature is in x-signature',
          sandbox: 'hex HMAC-SHA512 of the raw body (128 hex digits)',
        },
      ])
    })

    it('a wrong secret', async () => {
      expect(compareWebhook((await load())[verification], 'not-the-secret')).toEqual([
        {
          route: route(verification),
          path: 'header:x-alal-signature',
          kind: 'signature',
          upstream: 'does not verify with the secret given',
          sandbox: 'hex HMAC-SHA512 of the raw body (128 hex digits)',
        },
      ])
    })

    it('another scheme: named when the secret verifies it, its shape otherwise', async () => {
      const { headers, body } = (await load())[verification]
      const sha256 = createHmac('sha256', SECRET).update(body).digest('hex')
      const delivery = { headers: { ...headers, 'x-alal-signature': `sha256=${sha256}` }, body }
      expect(compareWebhook(delivery, SECRET).map((f) => [f.kind, f.upstream])).toEqual([
        ['signature', 'verifies as hex HMAC-SHA256 of the raw body, prefixed sha256='],
      ])
      expect(compareWebhook(delivery).map((f) => [f.kind, f.upstream])).toEqual([
        ['signature', 'unknown scheme: sha256=<64 hex digits>'],
      ])
    })

    it('an unprefixed hex SHA-256 signature: not the scheme, with a secret or without', async () => {
      const { headers, body } = (await load())[verification]
      const sha256 = createHmac('sha256', SECRET).update(body).digest('hex')
      const delivery = { headers: { ...headers, 'x-alal-signature': sha256 }, body }
      expect(compareWebhook(delivery).map((f) => [f.kind, f.upstream])).toEqual([
        ['signature', 'unknown scheme: 64 hex digits'],
      ])
      expect(compareWebhook(delivery, SECRET).map((f) => [f.kind, f.upstream])).toEqual([
        ['signature', 'verifies as hex HMAC-SHA256 of the raw body'],
      ])
    })

    it('a status outside the event, headers the sandbox sends missing, an unknown event', async () => {
      const delivery = replanted((await load())[creation], (b) => (b.data.status = 'active'))
      const { 'x-alal-event-id': _id, ...headers } = delivery.headers
      expect(compareWebhook({ headers, body: delivery.body }, SECRET)).toEqual([
        {
          route: route(creation),
          path: '$.data.status',
          kind: 'enum',
          upstream: 'active',
          sandbox: ['issued'],
        },
        {
          route: route(creation),
          path: 'header:x-alal-event-id',
          kind: 'header',
          upstream: 'absent',
          sandbox: 'sent on every delivery',
        },
      ])
      const unknown = replanted(saved[creation], (b) => (b.event = 'card.frozen'))
      expect(compareWebhook(unknown, SECRET)).toEqual([
        expect.objectContaining({ route: 'webhook card.frozen', kind: 'unknown-event' }),
      ])
    })

    it('a body that is not JSON is a finding, not an error', async () => {
      const { headers } = (await load())[verification]
      expect(compareWebhook({ headers, body: 'event=x' }).map((f) => f.kind)).toEqual(['type'])
    })
  })
})
