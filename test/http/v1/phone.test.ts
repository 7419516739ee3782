/**
 * POST /v1/phone/verify (the docs' "Miscellaneous" section, alal-php's and alal-node's
 * phoneVerification): `phone` and `country_code` checked, the answer echoes them under `data`;
 * a phone ending in 0422 is refused (docs/scenarios.md).
 */
import { describe, expect, it } from 'vitest'
import { newSandbox } from '../../helpers.js'

const VERIFY = '/v1/phone/verify'

describe('POST /v1/phone/verify', () => {
  it('answers the phone and its country under data, in the envelope', async () => {
    const { call } = newSandbox()
    for (const body of [
      { phone: '770000001', country_code: 'sn' },
      { phone: '+2250700000001', country_code: 'ci' },
    ]) {
      const res = await call('POST', VERIFY, body)
      expect(res.status, JSON.stringify(res.body)).toBe(200)
      expect(res.body).toEqual({
        message: 'Phone verified successfully',
        statusCode: 200,
        data: body,
      })
    }
  })

  it('takes each of the five countries: sn, ci, tg, bj, bf', async () => {
    const { call } = newSandbox()
    for (const country of ['sn', 'ci', 'tg', 'bj', 'bf']) {
      const res = await call('POST', VERIFY, { phone: '90000001', country_code: country })
      expect(res.status, `${country}: ${JSON.stringify(res.body)}`).toBe(200)
      expect(res.body.data.country_code).toBe(country)
    }
  })

  it('names both missing fields in one 422', async () => {
    const { call } = newSandbox()
    const res = await call('POST', VERIFY, {})
    expect(res.status).toBe(422)
    expect(res.body).toEqual({
      message: 'The phone field is required. (and 1 more error)',
      statusCode: 422,
      errors: {
        phone: ['The phone field is required.'],
        country_code: ['The country code field is required.'],
      },
    })
  })

  it('refuses a country outside the five with a 422 naming country_code and the five', async () => {
    const { call } = newSandbox()
    for (const country of ['SN', 'ng', 221]) {
      const res = await call('POST', VERIFY, { phone: '770000001', country_code: country })
      expect(res.status, JSON.stringify(res.body)).toBe(422)
      const message = 'The selected country code is invalid. Allowed: sn, ci, tg, bj, bf.'
      expect(res.body, String(country)).toEqual({
        message,
        statusCode: 422,
        errors: { country_code: [message] },
      })
    }
  })

  it('refuses a phone that is no phone number with a 422 naming phone', async () => {
    const { call } = newSandbox()
    const res = await call('POST', VERIFY, { phone: 'call me', country_code: 'sn' })
    expect(res.status).toBe(422)
    expect(res.body.errors).toEqual({ phone: ['The phone field must be a valid phone number.'] })
  })

  it('refuses the magic phone (ending in 0422) with a 422 naming phone, and no other', async () => {
    const { call } = newSandbox()
    const refused = await call('POST', VERIFY, { phone: '+221770000422', country_code: 'sn' })
    expect(refused.status).toBe(422)
    expect(refused.body).toEqual({
      message: 'The phone could not be verified.',
      statusCode: 422,
      errors: { phone: ['The phone could not be verified.'] },
    })
    const verified = await call('POST', VERIFY, { phone: '+221770004220', country_code: 'sn' })
    expect(verified.status, JSON.stringify(verified.body)).toBe(200)
  })
})
