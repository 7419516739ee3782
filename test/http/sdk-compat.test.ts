/**
 * --sdk-compat: off by default, no answer carries the SDK-only keys; on, every card answered
 * carries last_four and last4, card_user_reference and created_at, card-user list records carry
 * created_at, a card-user create carries cardUser, shown and listed disputes their reference and
 * transaction_reference, a shown transaction data.transaction; and it only adds (an answer with
 * it on, less those keys, is the answer with it off, byte for byte).
 */
import { describe, expect, it } from 'vitest'
import type { Dispute } from '../../src/db/schema.js'
import { parseFlags } from '../../src/cli/flags.js'
import { sdkDisputeKeys, sdkTransactionKeys } from '../../src/http/sdk-compat.js'
import { optionsFromEnv } from '../../src/kits/vitest-setup.js'
import { createApp } from '../../src/server/app.js'
import { MICROS_TIMESTAMP, TOKEN, fullIdentity, newSandbox } from '../helpers.js'

const ON = { quirks: true, sdkCompat: true, origin: 'http://localhost' }
const OFF = { ...ON, sdkCompat: false }
const SDK_CARD_KEYS = ['last_four', 'last4', 'card_user_reference', 'created_at']

async function cardAnswers(sb: ReturnType<typeof newSandbox>) {
  const { user, reference } = await sb.issuedCard()
  const frozen = await sb.call('POST', '/v1/cards/freeze', { reference })
  const list = await sb.call('GET', '/v1/cards')
  const linked = await sb.call('POST', '/v1/cards/link', {
    identifier: 4242,
    card_user_reference: user,
  })
  const card = frozen.body.data?.card ?? frozen.body.card
  return { user, reference, frozen: card, listed: list.body.data[0], linked }
}

describe('--sdk-compat', () => {
  it('is off by default: no card or card-user record carries the SDK-only keys', async () => {
    const sb = newSandbox()
    expect(sb.deps.options.sdkCompat).toBe(false)
    const { frozen, listed } = await cardAnswers(sb)
    for (const key of SDK_CARD_KEYS) expect(frozen).not.toHaveProperty(key)
    // the list record has last_four of its own (SPEC §2.4), never the others
    expect(listed.last_four).toBe(frozen.card_number.slice(-4))
    for (const key of SDK_CARD_KEYS.slice(1)) expect(listed).not.toHaveProperty(key)
    const users = await sb.call('GET', '/v1/card-users')
    expect(users.body.data[0].data[0]).not.toHaveProperty('created_at')
  })

  it('on, every card answered carries last_four, last4, card_user_reference and created_at', async () => {
    const sb = newSandbox({ sdkCompat: true })
    const { user, frozen, listed, linked } = await cardAnswers(sb)
    expect(frozen.card_number).toMatch(/^\d{16}$/)
    expect(frozen.last_four).toBe(frozen.card_number.slice(-4))
    // alal-node reads last4, alal-python last_four
    expect(frozen.last4).toBe(frozen.last_four)
    expect(frozen.card_user_reference).toBe(user)
    expect(frozen.created_at).toBe('2026-01-01T00:00:00.000000Z')
    const shown = await sb.call('GET', `/v1/cards/${frozen.reference}`)
    expect(shown.body.data.card).toEqual(frozen)
    expect(listed).toMatchObject({
      last_four: frozen.last_four,
      last4: frozen.last_four,
      card_user_reference: user,
      created_at: '2026-01-01T00:00:00.000000Z',
    })
    // a linked card has no number yet
    expect(linked.body.data.card).toMatchObject({
      last_four: null,
      last4: null,
      card_user_reference: user,
    })
    expect(linked.body.data.card.created_at).toMatch(MICROS_TIMESTAMP)
  })

  it('on, created_at is plain ISO 8601 with quirks off, and card-user records carry it', async () => {
    const sb = newSandbox({ sdkCompat: true, quirks: false })
    const { frozen, listed } = await cardAnswers(sb)
    expect(frozen.created_at).toBe('2026-01-01T00:00:00.000Z')
    expect(listed.created_at).toBe('2026-01-01T00:00:00.000Z')
    const users = await sb.call('GET', '/v1/card-users')
    expect(users.body.data[0].created_at).toBe('2026-01-01T00:00:00.000Z')
  })

  it('never answers a list page cached by an app without it over the same database', async () => {
    const sb = newSandbox()
    await sb.issuedCard()
    const plain = (await sb.call('GET', '/v1/card-users')).body
    const compat = createApp({ ...sb.deps, options: { ...sb.deps.options, sdkCompat: true } })
    const res = await compat.request('/v1/card-users', {
      headers: { Authorization: `Bearer ${TOKEN}` },
    })
    const body: any = await res.json()
    expect(plain.data[0].data[0]).not.toHaveProperty('created_at')
    expect(body.data[0].data[0].created_at).toBe('2026-01-01T00:00:00.000000Z')
  })

  it('on, a card-user create carries the new user as cardUser, the record show answers', async () => {
    for (const quirks of [true, false]) {
      const sb = newSandbox({ sdkCompat: true, quirks })
      const created = await sb.call('POST', '/v1/card-users/create', fullIdentity())
      const { userCard, cardUser, message } = created.body.data
      expect(message).toBe('User verification in progress')
      const shown = await sb.call('GET', `/v1/card-users/${userCard.reference}`)
      expect(cardUser).toEqual(shown.body.data.cardUser)
      expect(cardUser).toMatchObject({ reference: userCard.reference, address: userCard.address })
      expect(Object.keys(cardUser)).toEqual([
        'reference',
        'first_name',
        'last_name',
        'address',
        'id_no',
        'phone',
        'email',
        'status',
        'created_at',
      ])
      // resubmit answers as before: no SDK reads it
      const again = await sb.call('POST', '/v1/card-users/resubmit', {
        card_user_reference: userCard.reference,
      })
      expect(again.body.data ?? again.body).not.toHaveProperty('cardUser')
    }
    // the widget flow with quirks on answers userCard at the top level: cardUser goes beside it
    const widget = await newSandbox({ sdkCompat: true }).call('POST', '/v1/card-users/create', {
      phone: '+221770000001',
    })
    expect(widget.body.cardUser.reference).toBe(widget.body.userCard.reference)
    expect(widget.body).not.toHaveProperty('data')
  })

  it('on, each dispute listed carries its reference and its transaction’s client reference', async () => {
    const sb = newSandbox({ sdkCompat: true })
    const { reference: card } = await sb.fundedCard('visa')
    const references = []
    for (const reference of ['order-1', undefined]) {
      const sent = await sb.call('POST', '/v1/transactions/create/card-to-wallet', {
        amount: 100,
        card_reference: card,
        phone: '+221770000001',
        network: 'wave-sn',
        ...(reference && { reference }),
      })
      const opened = await sb.call('POST', '/v1/disputes/create', {
        transaction_slug: sent.body.data.transaction.slug,
        reason: 'duplicate',
        explanation: 'Charged twice',
      })
      references.push({
        reference: opened.body.data[0].slug,
        transaction_reference: sent.body.data.transaction.reference,
      })
    }
    const list = await sb.call('GET', '/v1/disputes')
    // newest first; the second transaction's reference is the one the sandbox made
    expect(references[1]!.transaction_reference).toMatch(/^[0-9a-f-]{36}$/)
    expect(list.body.data.map((d: any) => [d.reference, d.transaction_reference])).toEqual(
      references.reverse().map((d) => [d.reference, d.transaction_reference]),
    )
  })

  it('only adds: each answer with it on, less the keys it adds, is the answer with it off byte for byte', async () => {
    const texts = async (sdkCompat: boolean) => {
      const sb = newSandbox({ sdkCompat })
      const raw = async (method: string, path: string, body?: unknown) => {
        const res = await sb.app.request(path, {
          method,
          headers: { Authorization: `Bearer ${TOKEN}`, 'Content-Type': 'application/json' },
          body: body === undefined ? undefined : JSON.stringify(body),
        })
        expect(res.status, path).toBe(200)
        return res.text()
      }
      const { user, reference: card } = await sb.fundedCard('visa')
      const sent = JSON.parse(
        await raw('POST', '/v1/transactions/create/card-to-wallet', {
          amount: 100,
          card_reference: card,
          phone: '+221770000001',
          network: 'wave-sn',
          reference: 'order-1',
        }),
      )
      const slug = sent.data.transaction.slug
      const dispute = JSON.parse(
        await raw('POST', '/v1/disputes/create', {
          transaction_slug: slug,
          reason: 'duplicate',
          explanation: 'x',
        }),
      ).data[0].slug
      return {
        createUser: await raw('POST', '/v1/card-users/create', fullIdentity()),
        listUsers: await raw('GET', '/v1/card-users'),
        createCard: await raw('POST', '/v1/cards/create', {
          card_user_reference: user,
          card_brand: 'mastercard',
          card_type: 'virtual',
        }),
        freeze: await raw('POST', '/v1/cards/freeze', { reference: card }),
        unfreeze: await raw('POST', '/v1/cards/unfreeze', { reference: card }),
        link: await raw('POST', '/v1/cards/link', { identifier: 4242, card_user_reference: user }),
        showCard: await raw('GET', `/v1/cards/${card}`),
        listCards: await raw('GET', '/v1/cards'),
        showTransaction: await raw('GET', `/v1/transactions/${slug}`),
        showDispute: await raw('GET', `/v1/disputes/${dispute}`),
        listDisputes: await raw('GET', '/v1/disputes'),
      }
    }
    const off = await texts(false)
    const on = await texts(true)
    const drop = (object: any, keys: string[]) => {
      for (const key of keys) {
        expect(object, key).toHaveProperty(key)
        delete object[key]
      }
    }
    const cardKeys = ['last_four', 'last4', 'card_user_reference', 'created_at']
    const less: Record<keyof typeof on, (body: any) => void> = {
      createUser: (b) => drop(b.data, ['cardUser']),
      listUsers: (b) => b.data[0].data.forEach((u: any) => drop(u, ['created_at'])),
      createCard: (b) => drop(b.data.card, cardKeys),
      freeze: (b) => drop(b.data.card, cardKeys),
      unfreeze: (b) => drop(b.data.card, cardKeys),
      link: (b) => drop(b.data.card, cardKeys),
      showCard: (b) => drop(b.data.card, cardKeys),
      // the list record's last_four is documented (SPEC §2.4): it stays
      listCards: (b) => b.data.forEach((c: any) => drop(c, cardKeys.slice(1))),
      showTransaction: (b) => drop(b, ['data']),
      showDispute: (b) => drop(b.data.dispute, ['reference', 'transaction_reference']),
      listDisputes: (b) =>
        b.data.forEach((d: any) => drop(d, ['reference', 'transaction_reference'])),
    }
    for (const name of Object.keys(on) as (keyof typeof on)[]) {
      const body = JSON.parse(on[name])
      less[name](body)
      expect(JSON.stringify(body), name).toBe(off[name])
      expect(on[name], name).not.toBe(off[name])
    }
  })

  it('adds a dispute its reference and transaction reference, a transaction data.transaction', () => {
    const dispute = { reference: 'd-1', transactionSlug: 's-1' } as Dispute
    expect(sdkDisputeKeys(dispute, 'client-ref', ON)).toEqual({
      reference: 'd-1',
      transaction_reference: 'client-ref',
    })
    expect(sdkDisputeKeys(dispute, 'client-ref', OFF)).toEqual({})
    expect(sdkTransactionKeys({ slug: 's-1' }, ON)).toEqual({
      data: { transaction: { slug: 's-1' } },
    })
    expect(sdkTransactionKeys({ slug: 's-1' }, OFF)).toEqual({})
  })

  it('is set by --sdk-compat, CARD_SANDBOX_SDK_COMPAT and the vitest kit, and checked', () => {
    const run = (argv: string[], env = {}) => parseFlags(argv, env) as { options: any }
    expect(run([]).options.sdkCompat).toBe(false)
    expect(run(['--sdk-compat', 'on']).options.sdkCompat).toBe(true)
    expect(run([], { CARD_SANDBOX_SDK_COMPAT: 'on' }).options.sdkCompat).toBe(true)
    expect(() => run(['--sdk-compat', 'yes'])).toThrow(/--sdk-compat must be one of on, off/)
    expect(optionsFromEnv({ CARD_SANDBOX_SDK_COMPAT: 'on' })).toEqual({ sdkCompat: true })
  })
})
