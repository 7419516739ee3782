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
const SCHEME = 'hex HMAC-SHA512 of the raw body (128 hex digits)'
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

    it('an event named like an object’s inherited property (constructor, toString, __proto__) is unknown, not a sample', async () => {
      const saved = await load()
      for (const name of ['constructor', 'toString', '__proto__']) {
        const named = replanted(saved[creation], (b) => (b.event = name))
        expect(compareWebhook(named, SECRET)).toEqual([
          expect.objectContaining({ route: `webhook ${name}`, kind: 'unknown-event' }),
        ])
      }
    })

    it('a body that is not JSON is a finding, not an error', async () => {
      const { headers } = (await load())[verification]
      expect(compareWebhook({ headers, body: 'event=x' }, SECRET)).toEqual([
        { route: 'webhook ?', path: '$', kind: 'type', upstream: 'not JSON', sandbox: 'object' },
        {
          route: 'webhook ?',
          path: 'header:x-alal-signature',
          kind: 'signature',
          upstream: 'does not verify with the secret given',
          sandbox: SCHEME,
        },
      ])
    })

    it('a body without an event name, null, or one whose event is not a string', async () => {
      const missing = {
        route: 'webhook ?',
        path: '$.event',
        kind: 'missing-key',
        upstream: 'absent',
        sandbox: 'string',
      }
      const nameless = replanted((await load())[verification], (b) => delete b.event)
      expect(compareWebhook(nameless, SECRET)).toEqual([missing])
      const numbered = replanted(saved[verification], (b) => (b.event = 5))
      expect(compareWebhook(numbered, SECRET)).toEqual([missing])
      const { headers } = saved[verification]
      const empty = signPayload('null', SECRET)
      expect(compareWebhook({ headers: { ...headers, ...empty.headers }, body: 'null' })).toEqual([
        missing,
      ])
    })

    it('an unknown event: its name, and the names the sandbox sends', async () => {
      const unknown = replanted((await load())[creation], (b) => (b.event = 'card.frozen'))
      expect(compareWebhook(unknown, SECRET)).toEqual([
        {
          route: 'webhook card.frozen',
          path: '$.event',
          kind: 'unknown-event',
          upstream: 'card.frozen',
          sandbox: [
            'card_user_verification.successful',
            'card_user_verification.failed',
            'card_creation.successful',
            'card_creation.failed',
            'transaction.success',
            'transaction.failed',
            'payment.success',
            'payment.failed',
            'payment.expired',
            'disburse.success',
            'disburse.failed',
          ],
        },
      ])
    })

    it('a null where the sandbox sends a string is said null; a list where it sends an object, a type', async () => {
      const nulled = replanted((await load())[verification], (b) => (b.data.email = null))
      expect(compareWebhook(nulled, SECRET)).toEqual([
        {
          route: route(verification),
          path: '$.data.email',
          kind: 'null',
          upstream: 'null',
          sandbox: 'string',
        },
      ])
      const listed = replanted(saved[verification], (b) => (b.data = [b.data]))
      expect(compareWebhook(listed, SECRET)).toEqual([
        {
          route: route(verification),
          path: '$.data',
          kind: 'type',
          upstream: 'array',
          sandbox: 'object',
        },
      ])
    })

    it('keys in another order than the sandbox’s: both orders of the keys both sides have', async () => {
      const moved = replanted((await load())[verification], (b) => {
        const { status, ...rest } = b.data
        b.data = { status, ...rest, nickname: 'Awa D.' }
      })
      const shared = ['reference', 'first_name', 'last_name', 'address', 'id_no', 'phone', 'email']
      expect(compareWebhook(moved, SECRET)).toEqual([
        {
          route: route(verification),
          path: '$.data.nickname',
          kind: 'extra-key',
          upstream: 'string',
          sandbox: 'absent',
        },
        {
          route: route(verification),
          path: '$.data',
          kind: 'key-order',
          upstream: ['status', ...shared],
          sandbox: [...shared, 'status'],
        },
      ])
    })

    it('an expiry not in YYYY-MM, by its shape; anything around a YYYY-MM is not one', async () => {
      const expiry = (value: string) =>
        compareWebhook(
          replanted(saved[creation], (b) => (b.data.expiry = value)),
          SECRET,
        )
      await load()
      expect(expiry('2031-07')).toEqual([])
      const format = (upstream: string) => ({
        route: route(creation),
        path: '$.data.expiry',
        kind: 'format',
        upstream,
        sandbox: 'YYYY-MM',
      })
      expect(expiry('07/31')).toEqual([format('5 base64 characters')])
      expect(expiry('07.31')).toEqual([format('5 characters')])
      expect(expiry('2031-07-01')).toEqual([format('10 characters')])
      expect(expiry('12031-07')).toEqual([format('8 characters')])
    })

    it('the content type: absent, another type, or JSON written another way', async () => {
      const delivery = (await load())[verification]
      const typed = (type: string | string[] | undefined) =>
        compareWebhook(
          { ...delivery, headers: { ...delivery.headers, 'content-type': type } },
          SECRET,
        )
      const header = (upstream: string) => ({
        route: route(verification),
        path: 'header:content-type',
        kind: 'header',
        upstream,
        sandbox: 'application/json',
      })
      expect(typed(undefined)).toEqual([header('absent')])
      expect(typed('text/plain; charset=utf-8')).toEqual([header('text/plain; charset=utf-8')])
      expect(typed(['application/json', 'text/plain'])).toEqual([
        header('application/json, text/plain'),
      ])
      expect(typed(' Application/JSON ; charset=UTF-8')).toEqual([])
      const { 'content-type': _type, ...rest } = delivery.headers
      expect(compareWebhook({ ...delivery, headers: rest }, SECRET)).toEqual([header('absent')])
    })

    it('an x-alal- header the sandbox does not send, unless it names a signature', async () => {
      const delivery = (await load())[verification]
      const extra = (headers: Record<string, string>) =>
        compareWebhook({ ...delivery, headers: { ...delivery.headers, ...headers } }, SECRET)
      expect(extra({ 'X-Alal-Region': 'eu', 'x-other-signed-at': '1' })).toEqual([
        {
          route: route(verification),
          path: 'header:x-alal-region',
          kind: 'header',
          upstream: 'present',
          sandbox: 'absent',
        },
      ])
      expect(extra({ 'x-alal-signed-at': '1' }).map((f) => f.path)).toEqual([
        'header:x-alal-signed-at',
      ])
      expect(extra({ 'x-alal-hmac': 'a', 'x-alal-v2-signature': 'b', 'x-alal-sign': 'c' })).toEqual(
        [],
      )
    })

    it('a signature header missing, or renamed and not verifying', async () => {
      const { headers, body } = (await load())[verification]
      const { 'x-alal-signature': signature, ...rest } = headers
      expect(compareWebhook({ headers: rest, body }, SECRET)).toEqual([
        {
          route: route(verification),
          path: 'header:x-alal-signature',
          kind: 'header',
          upstream: 'absent',
          sandbox: SCHEME,
        },
      ])
      const renamed = { headers: { ...rest, 'x-hub-signature': signature }, body }
      expect(compareWebhook(renamed, 'not-the-secret')).toEqual([
        {
          route: route(verification),
          path: 'header:x-alal-signature',
          kind: 'header',
          upstream: 'absent; a signature is in x-hub-signature',
          sandbox: SCHEME,
        },
        {
          route: route(verification),
          path: 'header:x-hub-signature',
          kind: 'signature',
          upstream: 'does not verify with the secret given',
          sandbox: SCHEME,
        },
      ])
    })

    it('a signature’s shape: hex, base64 or neither, judged on the whole value', async () => {
      const { headers, body } = (await load())[verification]
      const hex = headers['x-alal-signature'] as string
      const shape = (value: string, secret?: string) =>
        compareWebhook({ headers: { ...headers, 'x-alal-signature': value }, body }, secret).map(
          (f) => [f.path, f.kind, f.upstream, f.sandbox],
        )
      const unknown = (upstream: string) => [
        ['header:x-alal-signature', 'signature', `unknown scheme: ${upstream}`, SCHEME],
      ]
      expect(shape(`zz${hex}`)).toEqual(unknown('130 base64 characters'))
      expect(shape(`${hex}zz`)).toEqual(unknown('130 base64 characters'))
      expect(shape(`-${hex}`)).toEqual(unknown('129 characters'))
      expect(shape(`${hex}-`)).toEqual(unknown('129 characters'))
      expect(shape(`v1,sha256=${hex.slice(0, 64)}`)).toEqual(unknown('74 characters'))
      expect(shape('c2lnbmF0dXJl/w==')).toEqual(unknown('16 base64 characters'))
      // with a secret it does not verify under any usual scheme
      expect(shape(`zz${hex}`, SECRET)).toEqual(unknown('130 base64 characters; does not verify'))
      expect(shape(`${hex}zz`, SECRET)).toEqual(unknown('130 base64 characters; does not verify'))
    })

    it('other schemes named whatever the case of their hex or base64 letters', async () => {
      const { headers, body } = (await load())[verification]
      const scheme = (value: string) =>
        compareWebhook({ headers: { ...headers, 'x-alal-signature': value }, body }, SECRET).map(
          (f) => f.upstream,
        )
      const mac = (algorithm: string) => createHmac(algorithm, SECRET).update(body).digest()
      expect(scheme(mac('sha256').toString('hex').toUpperCase())).toEqual([
        'verifies as hex HMAC-SHA256 of the raw body',
      ])
      expect(scheme(mac('sha512').toString('base64'))).toEqual([
        'verifies as base64 HMAC-SHA512 of the raw body',
      ])
    })

    it('an unprefixed base64 signature with a / or + is not read as prefixed by what ends it', async () => {
      const { headers, body } = (await load())[verification]
      // a secret whose base64 SHA-256 has a "/" or "+" before its trailing "=" (most do)
      const [secret, signature] = ['a', 'b', 'c', 'd', 'e', 'f', 'g', 'h']
        .map((s) => [s, createHmac('sha256', s).update(body).digest('base64')])
        .find(([, sig]) => /[+/]/.test(sig))!
      expect(signature).toMatch(/[a-z0-9]=$/i)
      expect(
        compareWebhook({ headers: { ...headers, 'x-alal-signature': signature }, body }, secret),
      ).toEqual([
        {
          route: route(verification),
          path: 'header:x-alal-signature',
          kind: 'signature',
          upstream: 'verifies as base64 HMAC-SHA256 of the raw body',
          sandbox: SCHEME,
        },
      ])
    })
  })

  describe('an extension event (sent with --webhook-extensions on)', () => {
    const data = {
      slug: '0b5e0d0e-1111-4222-8333-444455556666',
      reference: 'order-9',
      card_reference: '8e5e90eb-f22e-4b1c-bceb-10003d88d149',
      kind: 'card_to_wallet',
      amount: 2500,
      status: 'success',
    }
    const delivered = (headers: Record<string, string>) => {
      const signed = signPayload({ event: 'transaction.success', data }, SECRET)
      const sent = { 'x-alal-event-id': 'evt_1', 'x-alal-delivery-attempt': '1', ...headers }
      return compareWebhook({ headers: { ...signed.headers, ...sent }, body: signed.body }, SECRET)
    }

    it('compares clean with its header, and says when the header is absent', () => {
      expect(delivered({ 'x-card-sandbox-extension': 'true' })).toEqual([])
      expect(delivered({})).toEqual([
        {
          route: 'webhook transaction.success',
          path: 'header:x-card-sandbox-extension',
          kind: 'header',
          upstream: 'absent',
          sandbox: 'true',
        },
      ])
    })
  })
})
