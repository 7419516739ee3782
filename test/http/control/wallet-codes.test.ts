import { describe, expect, it } from 'vitest'
import { newSandbox } from '../../helpers.js'

const PAYER = '+2250700000001'

async function pull(
  s: ReturnType<typeof newSandbox>,
  card: string,
  network: string,
  code?: string,
) {
  return s.call('POST', '/v1/transactions/create/wallet-to-card', {
    amount: 2500,
    card_reference: card,
    phone: PAYER,
    network,
    ...(code !== undefined && { code }),
  })
}

describe('POST /__sandbox/wallet-codes', () => {
  it('issues a 6-digit code valid 15 minutes for orange-money-sn and 2 minutes for orange-money-ci', async () => {
    const s = newSandbox()
    const sn = await s.call('POST', '/__sandbox/wallet-codes', {
      phone: PAYER,
      network: 'orange-money-sn',
    })
    expect(sn.status, JSON.stringify(sn.body)).toBe(200)
    expect(sn.body.data).toEqual({
      code: expect.stringMatching(/^\d{6}$/),
      phone: PAYER,
      network: 'orange-money-sn',
      expires_at: '2026-01-01T00:15:00.000Z',
    })
    const ci = await s.call('POST', '/__sandbox/wallet-codes', {
      phone: PAYER,
      network: 'orange-money-ci',
    })
    expect(ci.body.data.expires_at).toBe('2026-01-01T00:02:00.000Z')
  })

  it('refuses networks that take no code', async () => {
    const s = newSandbox()
    const res = await s.call('POST', '/__sandbox/wallet-codes', {
      phone: PAYER,
      network: 'wave-sn',
    })
    expect(res.status).toBe(422)
    expect(Object.keys(res.body.errors)).toEqual(['network'])
  })
})

describe('wallet-to-card with a wallet code', () => {
  it('accepts an issued code once, then refuses it as used', async () => {
    const s = newSandbox()
    const card = await s.issuedCard()
    const { code } = (
      await s.call('POST', '/__sandbox/wallet-codes', { phone: PAYER, network: 'orange-money-ci' })
    ).body.data
    const first = await pull(s, card.reference, 'orange-money-ci', code)
    expect(first.status, JSON.stringify(first.body)).toBe(200)
    const again = await pull(s, card.reference, 'orange-money-ci', code)
    expect(again.status).toBe(422)
    expect(again.body.errors).toEqual({ code: ['The code has already been used.'] })
  })

  it('refuses a code after its validity on the sandbox clock, and accepts it just before', async () => {
    const s = newSandbox()
    const card = await s.issuedCard()
    const early = (
      await s.call('POST', '/__sandbox/wallet-codes', { phone: PAYER, network: 'orange-money-ci' })
    ).body.data.code
    const late = (
      await s.call('POST', '/__sandbox/wallet-codes', { phone: PAYER, network: 'orange-money-ci' })
    ).body.data.code
    await s.call('POST', '/__sandbox/clock/advance', { by: '2m' })
    expect((await pull(s, card.reference, 'orange-money-ci', early)).status).toBe(200)
    await s.call('POST', '/__sandbox/clock/advance', { by: 1 })
    const expired = await pull(s, card.reference, 'orange-money-ci', late)
    expect(expired.status).toBe(422)
    expect(expired.body.errors).toEqual({ code: ['The code has expired.'] })
  })

  it('says on the console when a code expires unused, and nothing of a used one', async () => {
    const lines: string[] = []
    const s = newSandbox({ log: 'json', logWrite: (line) => lines.push(line) })
    const card = await s.issuedCard()
    const issue = async (phone: string) =>
      (await s.call('POST', '/__sandbox/wallet-codes', { phone, network: 'orange-money-ci' })).body
        .data.code
    await issue(PAYER)
    const used = await issue('+2250700000002')
    const paid = await s.call('POST', '/v1/transactions/create/wallet-to-card', {
      amount: 2500,
      card_reference: card.reference,
      phone: '+2250700000002',
      network: 'orange-money-ci',
      code: used,
    })
    expect(paid.status).toBe(200)
    await s.call('POST', '/__sandbox/clock/advance', { by: '3m' })
    const expired = lines.filter((line) => line.includes('expired unused'))
    expect(expired).toHaveLength(1)
    expect(expired[0]).toContain(`orange-money-ci ${PAYER}`)
  })

  it('refuses a code issued for another phone, network or tenant', async () => {
    const s = newSandbox()
    const card = await s.issuedCard()
    const { code } = (
      await s.call('POST', '/__sandbox/wallet-codes', {
        phone: '+221770000099',
        network: 'orange-money-sn',
      })
    ).body.data
    const otherPhone = await pull(s, card.reference, 'orange-money-sn', code)
    expect(otherPhone.status).toBe(422)
    expect(otherPhone.body.errors).toEqual({
      code: ['The code is invalid for this phone and network.'],
    })
    const other = (
      await s.call(
        'POST',
        '/__sandbox/wallet-codes',
        { phone: PAYER, network: 'orange-money-sn' },
        { token: 'other' },
      )
    ).body.data.code
    expect((await pull(s, card.reference, 'orange-money-sn', other)).status).toBe(422)
    const { code: sn } = (
      await s.call('POST', '/__sandbox/wallet-codes', { phone: PAYER, network: 'orange-money-sn' })
    ).body.data
    expect((await pull(s, card.reference, 'orange-money-ci', sn)).status).toBe(422)
  })

  it('creates no transaction when the code is refused', async () => {
    const s = newSandbox()
    const card = await s.issuedCard()
    await pull(s, card.reference, 'orange-money-sn', '000000')
    const list = await s.call('GET', `/v1/transactions?card_reference=${card.reference}`)
    expect(list.body.data.transaction).toEqual([])
  })
})
