/**
 * The one masking rule (PRODUCT §11). Where it is applied, read path by read path, is checked in
 * test/security/secrets.test.ts and (the console log, the banner) test/cli/cli.test.ts.
 */
import { describe, expect, it } from 'vitest'
import {
  maskAuthorization,
  maskJsonSecrets,
  maskSecretPath,
  maskToken,
  maskUrlPassword,
} from '../../src/lib/masking.js'

describe('maskToken', () => {
  it('shows the last 4 characters of a token longer than 8, and nothing of a shorter one', () => {
    expect(maskToken('test-token')).toBe('******oken')
    expect(maskToken('123456789')).toBe('*****6789')
    expect(maskToken('12345678')).toBe('********')
    expect(maskToken('')).toBe('')
  })

  it('keeps the scheme of an Authorization header readable', () => {
    expect(maskAuthorization('Bearer a-long-token-9876')).toBe('Bearer *************9876')
    expect(maskAuthorization('Bearer  short')).toBe('Bearer *****')
    expect(maskAuthorization('naked-token-1234')).toBe('************1234')
  })
})

describe('maskJsonSecrets', () => {
  it('masks card numbers, cvv2 and secrets, strings or numbers, whatever the spacing', () => {
    expect(
      maskJsonSecrets(
        '{"card_number": "5200000000001096","cvv2":123,"secret" : "my-webhook-secret","x":"4111"}',
      ),
    ).toBe(
      '{"card_number": "************1096","cvv2":"***","secret" : "*************cret","x":"4111"}',
    )
    expect(maskJsonSecrets('{"card_number":5200000000001096}')).toBe(
      '{"card_number":"************1096"}',
    )
    expect(maskJsonSecrets('{"card_number":null,"cvv2":null}')).toBe(
      '{"card_number":null,"cvv2":null}',
    )
  })

  it('masks JSON carried inside a JSON string, as a webhook body in a log read', () => {
    const inner = '{"data":{"card_number":"5200000000001096","cvv2":"123","secret":"abc"}}'
    const outer = JSON.stringify({ body: inner })
    const masked = maskJsonSecrets(outer)
    expect(JSON.parse(JSON.parse(masked).body)).toEqual({
      data: { card_number: '************1096', cvv2: '***', secret: '***' },
    })
  })

  it('masks a card access token and the one ending the embedded_ui URL', () => {
    const token = 'N72VeyZQ8dmn3a0Wk0blu2a1pjFjdcNOx2Ec5bm39pFGa33gGu'
    const json = JSON.stringify({
      data: {
        access_token: token,
        embedded_ui: `http://127.0.0.1:4010/__sandbox/card-reveal/${token}`,
      },
    })
    expect(JSON.parse(maskJsonSecrets(json)).data).toEqual({
      access_token: `${'*'.repeat(46)}3gGu`,
      embedded_ui: `http://127.0.0.1:4010/__sandbox/card-reveal/${'*'.repeat(46)}3gGu`,
    })
  })

  it('leaves text without those keys as it is (the same string)', () => {
    const text = '{"reference":"abc","amount":5}'
    expect(maskJsonSecrets(text)).toBe(text)
    expect(maskJsonSecrets('{"card_numbers":"5200000000001096"}')).toBe(
      '{"card_numbers":"5200000000001096"}',
    )
  })
})

describe('maskSecretPath', () => {
  it("masks the card-reveal page's token in a path or URL, and leaves other paths alone", () => {
    const token = 'WkwHmYXfuih2Bv3hUe8uZfFLeJmDDx5Pjb2AG1veEaGnW8l7VS'
    expect(maskSecretPath(`/__sandbox/card-reveal/${token}`)).toBe(
      `/__sandbox/card-reveal/${'*'.repeat(46)}l7VS`,
    )
    expect(maskSecretPath(`https://x.test/__sandbox/card-reveal/${token}`)).toBe(
      `https://x.test/__sandbox/card-reveal/${'*'.repeat(46)}l7VS`,
    )
    expect(maskSecretPath('/__sandbox/checkout/abc')).toBe('/__sandbox/checkout/abc')
    expect(maskSecretPath('/v1/cards')).toBe('/v1/cards')
  })
})

describe('maskJsonSecrets, one key at a time', () => {
  it('masks each secret key when it is the only one in the text', () => {
    expect(maskJsonSecrets('{"cvv2":"1234"}')).toBe('{"cvv2":"***"}')
    expect(maskJsonSecrets('{"secret":"whsec-0123456789"}')).toBe('{"secret":"************6789"}')
    expect(maskJsonSecrets('{"tenant":"team-token-abcd"}')).toBe('{"tenant":"***********abcd"}')
    expect(maskJsonSecrets('{"access_token":"cat_0123456789"}')).toBe(
      '{"access_token":"**********6789"}',
    )
  })

  it('shows the last 4 digits of a card number longer than 4, whatever its length', () => {
    expect(maskJsonSecrets('{"card_number":"12345"}')).toBe('{"card_number":"*2345"}')
    expect(maskJsonSecrets('{"card_number":"1234"}')).toBe('{"card_number":"****"}')
    expect(maskJsonSecrets('{"card_number":"123"}')).toBe('{"card_number":"***"}')
  })
})

describe('maskUrlPassword', () => {
  it('masks the password of a URL by the one rule, and leaves the rest', () => {
    expect(maskUrlPassword('http://user:hook-password-1234@127.0.0.1:9/hooks')).toBe(
      `http://user:${'*'.repeat(14)}1234@127.0.0.1:9/hooks`,
    )
    expect(maskUrlPassword('https://:pw@example.test/')).toBe('https://:**@example.test/')
  })

  it('leaves a URL without a password, and what is not a URL, as it is', () => {
    for (const text of ['http://user@127.0.0.1:9/hooks', 'http://127.0.0.1:9/x?y=1', 'not a url'])
      expect(maskUrlPassword(text)).toBe(text)
  })
})
