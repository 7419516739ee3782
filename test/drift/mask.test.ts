import { describe, expect, it } from 'vitest'
import { luhnValid } from '../../src/lib/masking.js'
import {
  maskBody,
  maskFindingValue,
  maskHeaders,
  maskRecordValue,
  maskValuesInText,
} from '../../src/drift/mask.js'

const plain = { personal: false }
const personal = { personal: true }

describe('maskRecordValue by key', () => {
  it('keeps a card number a string of digits as long, its last 4 shown', () => {
    expect(maskRecordValue('card_number', '4111111111111111', plain)).toBe('0000000000001111')
    expect(maskRecordValue('cardNumber', '5555555555554444', plain)).toBe('0000000000004444')
  })

  it('hides a cvv2, a cvv and a pin wholly, a string as a string and a number as a number', () => {
    expect(maskRecordValue('cvv2', '987', plain)).toBe('000')
    expect(maskRecordValue('cvv2', 987, plain)).toBe(100)
    expect(maskRecordValue('CVV', '0123', plain)).toBe('0000')
    expect(maskRecordValue('pin', 4321, plain)).toBe(1000)
  })

  it('masks any token and secret as PRODUCT §11 does, keeping its length', () => {
    const token = 'eyJhbGciOiJIUzI1NiJ9.payload.signature'
    const masked = maskRecordValue('access_token', token, plain) as string
    expect(masked).toHaveLength(token.length)
    expect(masked).toBe('*'.repeat(token.length - 4) + 'ture')
    expect(maskRecordValue('refresh_token', 'short', plain)).toBe('*****')
    expect(maskRecordValue('webhook_secret', 'whsec_abcdefgh1234', plain)).toBe(
      '**************1234',
    )
    expect(maskRecordValue('client_secret', 'abc', plain)).toBe('***')
  })

  it('keeps the scheme of an Authorization value readable', () => {
    expect(maskRecordValue('Authorization', 'Bearer sk_live_0123456789abcdef', plain)).toBe(
      `Bearer ${'*'.repeat(20)}cdef`,
    )
    // a short token shows nothing of itself, as lib/masking.ts masks one
    expect(maskRecordValue('Authorization', 'Bearer abc', plain)).toBe('Bearer ***')
    expect(maskRecordValue('Authorization', 'Bearer 12345678', plain)).toBe('Bearer ********')
  })

  it('masks the token of any embedded_ui URL, the origin and short segments kept', () => {
    const token = 'A'.repeat(46) + 'wxyz'
    expect(
      maskRecordValue('embedded_ui', `http://127.0.0.1:4010/__sandbox/card-reveal/${token}`, plain),
    ).toBe(`http://127.0.0.1:4010/__sandbox/card-reveal/${'*'.repeat(46)}wxyz`)
    expect(
      maskRecordValue('embedded_ui', 'https://cards.example.com/reveal?token=abcdefghijkl', plain),
    ).toBe('https://cards.example.com/reveal?token=********ijkl')
  })

  it('masks everything under a secret key', () => {
    expect(maskRecordValue('embedded_ui', { url: 'x/abcdefghijklmnop', ttl: 600 }, plain)).toEqual({
      url: `${'*'.repeat(14)}mnop`,
      ttl: 100,
    })
  })
})

describe('maskRecordValue by value, under any key', () => {
  it('masks a Luhn-valid 13–19-digit number in a number or in a string', () => {
    expect(luhnValid('4242424242424242')).toBe(true)
    expect(luhnValid('4242424242424241')).toBe(false)
    expect(maskRecordValue('identifier', 4242424242424242, plain)).toBe(1000000000004242)
    expect(maskRecordValue('note', 'paid with 4242424242424242 today', plain)).toBe(
      'paid with 0000000000004242 today',
    )
    // not Luhn-valid, or too short: an amount, a reference stays
    expect(maskRecordValue('identifier', 4242424242424241, plain)).toBe(4242424242424241)
    expect(maskRecordValue('amount', 424242424242, plain)).toBe(424242424242)
  })

  it('masks a Luhn-valid card number of 13, 15 or 19 digits inside a string', () => {
    for (const number of ['4222222222222', '378282246310005', '6011000000000000001']) {
      expect(luhnValid(number)).toBe(true)
      const masked = '0'.repeat(number.length - 4) + number.slice(-4)
      expect(maskRecordValue('note', `paid with ${number} today`, plain), number).toBe(
        `paid with ${masked} today`,
      )
      expect(maskValuesInText(`{"note":"card ${number}"}`), number).toBe(
        `{"note":"card ${masked}"}`,
      )
    }
  })

  it('masks a bearer token and a card-reveal URL token anywhere in a string', () => {
    expect(maskValuesInText('sent Authorization: Bearer abcdefghijklmnop, then')).toBe(
      'sent Authorization: Bearer ************mnop, then',
    )
    expect(maskValuesInText('open /__sandbox/card-reveal/abcdefghijklmnopqrst now')).toBe(
      'open /__sandbox/card-reveal/****************qrst now',
    )
  })

  it('masks secret keys inside JSON or form text held in a string, each value its length', () => {
    const text = '{"card_number":"4111111111111111","cvv2":"123","cvv":987,"status":"issued"}'
    expect(maskValuesInText(text)).toBe(
      '{"card_number":"0000000000001111","cvv2":"000","cvv":000,"status":"issued"}',
    )
    expect(maskValuesInText('/v1/cards?access_token=abcdefghijkl&page=2')).toBe(
      '/v1/cards?access_token=********ijkl&page=2',
    )
  })
})

describe('maskBody', () => {
  it('keeps a __proto__ key of parsed JSON as a key, masked by value like any other', () => {
    const body = JSON.parse('{"__proto__":{"card_number":"4111111111111111"},"a":1}') as unknown
    expect(JSON.stringify(maskBody(body, plain))).toBe(
      '{"__proto__":{"card_number":"0000000000001111"},"a":1}',
    )
  })
})

describe('personal fields', () => {
  const user = {
    first_name: 'Awa',
    last_name: 'Diop',
    phone: '+221771234567',
    email: 'awa@example.com',
    id_no: '1234567890',
    address: '12 Rue Carnot',
    selfie_image: 'https://img.example.com/selfie.jpg',
    customer: { full_name: 'Moussa Ba', bank_id: 'SN012-01001-000987654321-34' },
    status: 'passed',
  }

  it('stay as they are by default', () => {
    expect(maskBody(user, plain)).toEqual(user)
  })

  it('are masked, each keeping its type and length, with personal on', () => {
    const masked = maskBody(user, personal) as typeof user
    expect(masked.first_name).toBe('***')
    expect(masked.phone).toBe('*'.repeat(user.phone.length))
    expect(masked.id_no).toBe('0000000000')
    expect(masked.selfie_image).toHaveLength(user.selfie_image.length)
    expect(masked.selfie_image).not.toContain('selfie')
    expect(masked.customer.full_name).toBe('*********')
    expect(masked.customer.bank_id).toHaveLength(user.customer.bank_id.length)
    expect(masked.status).toBe('passed')
  })
})

describe('maskHeaders', () => {
  it('lower-cases names and masks credentials, the rest as sent', () => {
    expect(
      maskHeaders(
        {
          Authorization: 'Bearer test-token-123456',
          'X-Api-Key': 'key_0123456789',
          Cookie: 'session=abcdefghijkl',
          'Content-Type': 'application/json',
          'Set-Cookie': ['a=1', 'b=2'],
        },
        plain,
      ),
    ).toEqual({
      authorization: 'Bearer *************3456',
      'x-api-key': '**********6789',
      cookie: '****************ijkl',
      'content-type': 'application/json',
      'set-cookie': '********',
    })
  })
})

describe('maskFindingValue', () => {
  it("masks a finding's upstream value by the key that ends its path, type kept", () => {
    expect(maskFindingValue('$.data.card.cvv2', 123, plain)).toBe(100)
    expect(maskFindingValue('$.data[0].card_number', '4111111111111111', plain)).toBe(
      '0000000000001111',
    )
    expect(maskFindingValue('header:authorization', 'Bearer abcdefghijkl', plain)).toBe(
      'Bearer ********ijkl',
    )
    expect(maskFindingValue('$.data.card.status', 'pendin', plain)).toBe('pendin')
    expect(maskFindingValue('$.data.card.cvv2', 'absent', plain)).toBe('absent')
    expect(maskFindingValue('$.data.items[2]', { cvv2: '555' }, plain)).toEqual({ cvv2: '000' })
  })
})

describe('the boundaries of each rule', () => {
  it('shows the last 4 digits of a card number longer than 4, none of one of 4', () => {
    expect(maskRecordValue('pan', '41111', plain)).toBe('01111')
    expect(maskRecordValue('pan', '4111', plain)).toBe('0000')
  })

  it('shows the last 4 of a token of 9 characters, none of one of 8, digits staying digits', () => {
    expect(maskRecordValue('access_token', '123456789', plain)).toBe('000006789')
    expect(maskRecordValue('access_token', '12345678', plain)).toBe('00000000')
    expect(maskRecordValue('embedded_ui', 'abcdefghi', plain)).toBe('*****fghi')
    expect(maskRecordValue('embedded_ui', 'abcdefgh', plain)).toBe('********')
  })

  it('masks a number by its kind, keeping its sign and its digit count', () => {
    expect(maskRecordValue('pin', 7, plain)).toBe(0)
    expect(maskRecordValue('cvv2', -987, plain)).toBe(-100)
    expect(maskRecordValue('api_key', 1234567890, plain)).toBe(1000007890)
    expect(maskRecordValue('phone', 221771234567, personal)).toBe(100000000000)
    // a number not an integer, or negative, is no card number
    expect(maskRecordValue('identifier', -4242424242424242, plain)).toBe(-4242424242424242)
    expect(maskRecordValue('identifier', 4242424242424.5, plain)).toBe(4242424242424.5)
  })

  it('reads a key with dashes and capitals as its words, and an image URL key as personal', () => {
    expect(maskRecordValue('Card-Number', '4111111111111111', plain)).toBe('0000000000001111')
    expect(maskBody({ profile_image_url: 'https://x.sn/a.png' }, personal)).toEqual({
      profile_image_url: '*'.repeat(18),
    })
    expect(maskBody({ image_urls: 'https://x.sn/a.png' }, personal)).toEqual({
      image_urls: 'https://x.sn/a.png',
    })
  })

  it("masks an embedded_ui URL's long segments, query values and fragment, not its origin", () => {
    const long = 'p'.repeat(12) + 'wxyz'
    expect(
      maskRecordValue(
        'embedded_ui',
        `HTTPS://Cards.example.com/${'s'.repeat(15)}/${long}?flag&t=abcdefghijkl#frag0123wxyz`,
        plain,
      ),
    ).toBe(
      `HTTPS://Cards.example.com/${'s'.repeat(15)}/${'*'.repeat(12)}wxyz?flag&t=********ijkl#********wxyz`,
    )
  })
})

describe('maskValuesInText, at its edges', () => {
  it('masks a number and an escaped quote in JSON text, a form value up to ; space or #', () => {
    expect(maskValuesInText('{"pin": 1234, "password":"a\\"bcdef"}')).toBe(
      '{"pin": 0000, "password":"********"}',
    )
    expect(maskValuesInText('pin=1234;cvv=987 x&cvc2=12#top')).toBe(
      'pin=0000;cvv=000 x&cvc2=00#top',
    )
    expect(maskValuesInText(' api_key=abcdefghijkl')).toBe(' api_key=********ijkl')
    // a key of no secret stays
    expect(maskValuesInText('page=2&{"status": "issued"}')).toBe('page=2&{"status": "issued"}')
  })

  it('masks a bearer token written in any case, a card-reveal token in any case', () => {
    expect(maskValuesInText('bearer abcdefghijklmnop')).toBe('bearer ************mnop')
    expect(maskValuesInText('/CARD-REVEAL/abcdefghijklmnopqrst')).toBe(
      '/CARD-REVEAL/****************qrst',
    )
  })

  it('masks no run of digits longer than 19 or shorter than 13, nor one not Luhn-valid', () => {
    // 4242424242424242 with four more digits on either side: a longer number, not a card
    expect(maskValuesInText('ref 42424242424242421234')).toBe('ref 42424242424242421234')
    expect(maskValuesInText('ref 12344242424242424242')).toBe('ref 12344242424242424242')
    expect(maskValuesInText('ref 424242424242')).toBe('ref 424242424242')
    expect(maskValuesInText('ref 4242424242424241')).toBe('ref 4242424242424241')
  })
})

describe('the rules’ other branches', () => {
  it('masks a card number under its key even when it is not Luhn-valid', () => {
    expect(maskRecordValue('card_number', '1234567890123456', plain)).toBe('0000000000003456')
  })

  it('hides a long password wholly, a digit-led one in *', () => {
    expect(maskRecordValue('password', 'correct-horse', plain)).toBe('*'.repeat(13))
    expect(maskRecordValue('password', '12ab34', plain)).toBe('******')
  })

  it('masks a personal value under its own key when personal is on', () => {
    expect(maskRecordValue('first_name', 'Awa', personal)).toBe('***')
    expect(maskRecordValue('first_name', 'Awa', plain)).toBe('Awa')
  })

  it('keeps null as null, and leaves out a header that has no value', () => {
    expect(maskBody(null, plain)).toBeNull()
    expect(maskBody({ card: null, frozen: true }, plain)).toEqual({ card: null, frozen: true })
    expect(Object.keys(maskHeaders({ 'X-A': undefined, 'X-B': 'b' }, plain))).toEqual(['x-b'])
  })

  it("masks a header finding by the header's name, an index of two digits read as one", () => {
    expect(maskFindingValue('header:x-api-key', 'key_0123456789', plain)).toBe('**********6789')
    expect(maskFindingValue('$.data.items[12]', { cvv2: '555' }, plain)).toEqual({ cvv2: '000' })
    expect(maskFindingValue('$.data.tokens[12]', 'abcdefghijkl', plain)).toBe('********ijkl')
  })

  it('masks a text under embedded_ui that only holds a URL as a token, not as a URL', () => {
    expect(maskRecordValue('embedded_ui', 'see https://x.sn/abcdefghijklmnopq', plain)).toBe(
      '*'.repeat(30) + 'nopq',
    )
  })

  it('reads a scheme only at the start of a token, after one or more spaces', () => {
    expect(maskRecordValue('authorization', '1abc defghijkl', plain)).toBe('**********ijkl')
    expect(maskRecordValue('authorization', 'Bearer  abcdefghijkl', plain)).toBe(
      'Bearer  ********ijkl',
    )
  })

  it('masks a number of 20 digits as no card, a decimal secret as 0', () => {
    // Luhn-valid, but a card number has 13 to 19 digits
    const twenty = Number('12345678901234577000')
    expect(maskRecordValue('identifier', twenty, plain)).toBe(twenty)
    expect(maskRecordValue('cvv2', 12.5, plain)).toBe(0)
  })
})
