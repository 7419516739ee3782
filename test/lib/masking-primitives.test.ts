/**
 * The primitives of the one masking rule that the journal and the proxy's record (drift/mask.ts)
 * share: how much of a token and of a card number shows, Luhn, and the values masked wherever
 * they appear in text.
 */
import { describe, expect, it } from 'vitest'
import {
  authorizationScheme,
  cardNumberVisible,
  isCardNumber,
  luhnCheckDigit,
  luhnValid,
  maskAllBut,
  maskAuthorization,
  maskBearerTokens,
  maskCardNumber,
  maskCardNumbersInText,
  maskRevealTokens,
  maskToken,
} from '../../src/lib/masking.js'

describe('Luhn', () => {
  it('doubles every second digit from the right, starting with the last of the body', () => {
    expect(luhnCheckDigit('7992739871')).toBe('3')
    // 5 doubled is 10, less 9 is 1: 9 makes the sum 10
    expect(luhnCheckDigit('5')).toBe('9')
    // 8 doubled is 16, less 9 is 7, and 1: 2 makes the sum 10
    expect(luhnCheckDigit('18')).toBe('2')
    expect(luhnCheckDigit('')).toBe('0')
  })

  it('holds a number whose last digit is the check digit of the others, and digits only', () => {
    expect(luhnValid('4242424242424242')).toBe(true)
    expect(luhnValid('4242424242424241')).toBe(false)
    expect(luhnValid('59')).toBe(true)
    expect(luhnValid('5a')).toBe(false)
    // a space would count as a 0
    expect(luhnValid(' 0')).toBe(false)
    expect(luhnValid('')).toBe(false)
  })

  it('reads a card number as 13 to 19 Luhn-valid digits', () => {
    for (const number of [
      '4123456789128',
      '371234567891235',
      '4242424242424242',
      '6011123456789123459',
    ])
      expect(isCardNumber(number), number).toBe(true)
    // Luhn-valid, but 12 and 20 digits
    expect(isCardNumber('424242424242')).toBe(false)
    expect(isCardNumber('12345678901234577000')).toBe(false)
    expect(isCardNumber('4242424242424241')).toBe(false)
  })
})

describe('how much shows', () => {
  it('keeps the last characters asked, none when the text has no more than that', () => {
    expect(maskAllBut('abcdef', 4, '*')).toBe('**cdef')
    expect(maskAllBut('abcd', 4, '*')).toBe('****')
    expect(maskAllBut('1234', 0, '0')).toBe('0000')
  })

  it('shows 4 of a token of 9 characters, none of one of 8', () => {
    expect(maskToken('abcdefghi')).toBe('*****fghi')
    expect(maskToken('abcdefgh')).toBe('********')
  })

  it('shows 4 digits of a card number of 5, none of one of 4, in the fill asked', () => {
    expect(maskCardNumber('41111', '*')).toBe('*1111')
    expect(maskCardNumber('4111', '*')).toBe('****')
    expect([cardNumberVisible(4), cardNumberVisible(5)]).toEqual([0, 4])
    expect(maskCardNumber('4111111111111111', '0')).toBe('0000000000001111')
  })
})

describe('an Authorization value', () => {
  it('reads a scheme only as a word that starts with a letter, followed by spaces and a token', () => {
    expect(authorizationScheme('Bearer abc')).toBe('Bearer ')
    expect(authorizationScheme('Bearer  abc')).toBe('Bearer  ')
    expect(authorizationScheme('Bearer ')).toBeUndefined()
    expect(authorizationScheme('1abc defghijkl')).toBeUndefined()
    expect(authorizationScheme('naked-token')).toBeUndefined()
  })

  it('masks a value without a scheme whole', () => {
    expect(maskAuthorization('1abc defghijkl')).toBe('**********ijkl')
    expect(maskAuthorization('Basic dXNlcjpwYXNzd29yZA==')).toBe(`Basic ${'*'.repeat(16)}ZA==`)
  })
})

describe('values in text', () => {
  it('masks a card number of 13, 15, 16 or 19 digits, and no run of 12 or 20', () => {
    expect(
      maskCardNumbersInText('a 4123456789128 b 371234567891235 c 6011123456789123459', '0'),
    ).toBe('a 0000000009128 b 000000000001235 c 0000000000000003459')
    expect(maskCardNumbersInText('paid 4242424242424242.', '*')).toBe('paid ************4242.')
    expect(maskCardNumbersInText('ref 424242424242 x 12345678901234577000', '0')).toBe(
      'ref 424242424242 x 12345678901234577000',
    )
    expect(maskCardNumbersInText('ref 4242424242424241', '0')).toBe('ref 4242424242424241')
  })

  it('masks every bearer token, in any case, the word kept', () => {
    expect(maskBearerTokens('a Bearer abcdefghijkl b bearer  mnopqrstuvwx=')).toBe(
      'a Bearer ********ijkl b bearer  *********vwx=',
    )
    expect(maskBearerTokens('no token here')).toBe('no token here')
  })

  it('masks every card-reveal token, in any case, up to the end of its segment', () => {
    expect(
      maskRevealTokens(
        '/__sandbox/card-reveal/abcdefghijkl?x=1 https://h/CARD-REVEAL/mnopqrstuvwx',
      ),
    ).toBe('/__sandbox/card-reveal/********ijkl?x=1 https://h/CARD-REVEAL/********uvwx')
    expect(maskRevealTokens('/__sandbox/checkout/abcdefghijkl')).toBe(
      '/__sandbox/checkout/abcdefghijkl',
    )
  })
})
