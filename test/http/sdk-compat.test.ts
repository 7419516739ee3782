/**
 * --sdk-compat: off by default, no answer carries the SDK-only keys; on, every card
 * answered carries last_four, card_user_reference and created_at, card-user list records carry
 * created_at, and the dispute and transaction presenters add what the SDKs read.
 */
import { describe, expect, it } from 'vitest'
import type { Dispute } from '../../src/db/schema.js'
import { parseFlags } from '../../src/cli/flags.js'
import { sdkDisputeKeys, sdkTransactionKeys } from '../../src/http/sdk-compat.js'
import { optionsFromEnv } from '../../src/kits/vitest-setup.js'
import { createApp } from '../../src/server/app.js'
import { MICROS_TIMESTAMP, TOKEN, newSandbox } from '../helpers.js'

const ON = { quirks: true, sdkCompat: true, origin: 'http://localhost' }
const OFF = { ...ON, sdkCompat: false }
const SDK_CARD_KEYS = ['last_four', 'card_user_reference', 'created_at']

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
    // the list record has last_four of its own (SPEC §2.4), never the other two
    expect(listed).not.toHaveProperty('card_user_reference')
    expect(listed).not.toHaveProperty('created_at')
    const users = await sb.call('GET', '/v1/card-users')
    expect(users.body.data[0].data[0]).not.toHaveProperty('created_at')
  })

  it('on, every card answered carries last_four, card_user_reference and created_at', async () => {
    const sb = newSandbox({ sdkCompat: true })
    const { user, frozen, listed, linked } = await cardAnswers(sb)
    expect(frozen.card_number).toMatch(/^\d{16}$/)
    expect(frozen.last_four).toBe(frozen.card_number.slice(-4))
    expect(frozen.card_user_reference).toBe(user)
    expect(frozen.created_at).toBe('2026-01-01T00:00:00.000000Z')
    const shown = await sb.call('GET', `/v1/cards/${frozen.reference}`)
    expect(shown.body.data.card).toEqual(frozen)
    expect(listed).toMatchObject({
      last_four: frozen.last_four,
      card_user_reference: user,
      created_at: '2026-01-01T00:00:00.000000Z',
    })
    // a linked card has no number yet
    expect(linked.body.data.card).toMatchObject({ last_four: null, card_user_reference: user })
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
