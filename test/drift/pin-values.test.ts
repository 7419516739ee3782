/**
 * What a pinned scenario may write of a recorded value (src/drift/pin-values.ts), function by
 * function: the placeholders of an added key's values, the recording's personal values taken
 * out, the paths, and where a copied key comes from.
 */
import { describe, expect, it } from 'vitest'
import {
  copySource,
  firstValueAt,
  generalPath,
  lastKey,
  pathText,
  personalValues,
  withoutPersonal,
  type Placeholder,
  type PersonalValues,
} from '../../src/drift/pin-values.js'
import type { RecordLine } from '../../src/drift/report.js'

const none = personalValues([])

/** `value` under `key` written as an added key's value: what it became and the placeholder listed. */
function placeheld(key: string, value: unknown, personal: PersonalValues = none) {
  const placeholders: Placeholder[] = []
  const written = withoutPersonal(value, personal, { path: `$.${key}`, key, placeholders })
  return { written, placeholders }
}
const written = (key: string, value: unknown) => placeheld(key, value).written

/** A recorded card user create with these request and answer bodies. */
const recording = (request: unknown, response: unknown): RecordLine[] => [
  {
    at: '2026-11-28T17:00:00.000Z',
    method: 'POST',
    path: '/v1/card-users/create',
    status: 200,
    request: { body: request },
    response: { body: response },
  },
]

describe('withoutPersonal with placeholders (an added key)', () => {
  it('writes a UUID, of either case, as the zero UUID', () => {
    expect(placeheld('token', 'B8E5E90E-F22E-4B1C-BCEB-10003D88D149')).toEqual({
      written: '00000000-0000-4000-8000-000000000000',
      placeholders: [
        { path: '$.token', value: '00000000-0000-4000-8000-000000000000', what: 'a UUID' },
      ],
    })
  })

  it('writes an instant as the epoch of the same precision and zone form', () => {
    expect(written('at', '2026-11-28T17:00:13.123456Z')).toBe('1970-01-01T00:00:00.000000Z')
    expect(written('at', '2026-11-28T17:00:13Z')).toBe('1970-01-01T00:00:00Z')
    expect(written('at', '2026-11-28T17:00')).toBe('1970-01-01T00:00')
    expect(written('at', '2026-11-28T17:00:13.5+01:00')).toBe('1970-01-01T00:00:00.0+00:00')
    expect(written('at', '2026-11-28T17:00:13-0530')).toBe('1970-01-01T00:00:00+0000')
    expect(placeheld('at', '2026-11-28T17:00Z').placeholders[0].what).toBe('an instant')
  })

  it('writes a personal field as a placeholder of its kind', () => {
    expect(placeheld('first_name', 'Awa').placeholders).toEqual([
      { path: '$.first_name', value: 'placeholder', what: 'a personal field' },
    ])
    expect(written('email', 'awa@example.sn')).toBe('person@example.com')
    expect(written('selfie_image', 'HTTPS://img.example.com/a.jpg')).toBe(
      'https://example.com/placeholder.jpg',
    )
    expect(written('date_of_birth', '1990-05-01')).toBe('1970-01-01')
    expect(written('phone', '+221 77-123 45')).toBe('+000 00-000 00')
    expect(written('phone', 221771234567)).toBe(0)
  })

  it('writes an amount as zero, a number as a number and a decimal text as text', () => {
    expect(placeheld('amount', 5000).placeholders).toEqual([
      { path: '$.amount', value: 0, what: 'an amount' },
    ])
    expect(written('total_fee', '12.50')).toBe('0')
    expect(written('balance', '-7')).toBe('0')
    // not a number written as text: no amount, written as recorded
    expect(placeheld('balance', '12 XOF')).toEqual({ written: '12 XOF', placeholders: [] })
  })

  it("writes an id's letters as x and its digits as 0, a numeric id as 0", () => {
    expect(placeheld('reference', 'AB-12c')).toEqual({
      written: 'xx-00x',
      placeholders: [{ path: '$.reference', value: 'xx-00x', what: 'an id' }],
    })
    expect(written('card_id', 42)).toBe(0)
    expect(written('cardRef', 'r9')).toBe('x0')
    expect(written('userCardId', 'u1')).toBe('x0')
    expect(written('ID', 'k7')).toBe('x0')
    expect(written('slug', 'tx-1')).toBe('xx-0')
    // a key that only ends with the letters of one is no id
    expect(placeheld('paid', 'yes')).toEqual({ written: 'yes', placeholders: [] })
  })

  it('writes a status, a boolean and null as recorded, with no placeholder', () => {
    expect(placeheld('status', 'issued')).toEqual({ written: 'issued', placeholders: [] })
    expect(placeheld('frozen', true)).toEqual({ written: true, placeholders: [] })
    expect(placeheld('reference', null)).toEqual({ written: null, placeholders: [] })
  })

  it('lists each placeholder at its own path, into objects and arrays', () => {
    const placeholders: Placeholder[] = []
    const value = { card: { id: 7, 'x-ref': 'a1', status: 'issued' }, items: [{ amount: 3 }] }
    expect(withoutPersonal(value, none, { path: '$.data', key: 'data', placeholders })).toEqual({
      card: { id: 0, 'x-ref': 'x0', status: 'issued' },
      items: [{ amount: 0 }],
    })
    expect(placeholders.map((p) => p.path)).toEqual([
      '$.data.card.id',
      '$.data.card["x-ref"]',
      '$.data.items[0].amount',
    ])
  })
})

describe('withoutPersonal without placeholders (a recorded answer pinned)', () => {
  const lines: RecordLine[] = [
    {
      at: '2026-11-28T17:00:00.000Z',
      method: 'POST',
      path: '/v1/card-users/create',
      status: 200,
      request: { body: { first_name: 'Awa', last_name: 'Diop', phone: 221771234567 } },
      response: { body: { data: { names: 'AwaDiop' } } },
    },
  ]
  const personal = personalValues(lines)

  it('writes a personal key as its placeholder, and an id, an amount, a UUID as recorded', () => {
    const at = { path: '$', key: '' }
    expect(
      withoutPersonal(
        { first_name: 'Someone', amount: 5, reference: 'r-1', phone: 12345 },
        none,
        at,
      ),
    ).toEqual({ first_name: 'placeholder', amount: 5, reference: 'r-1', phone: 0 })
  })

  it('takes each recorded personal value out of a text, and a number equal to one out', () => {
    const at = { path: '$', key: '' }
    expect(
      withoutPersonal(
        { message: 'Awa Diop (AwaDiop) is verified', note: 221771234567, other: 221771234568 },
        personal,
        at,
      ),
    ).toEqual({
      message: '[personal] [personal] ([personal]) is verified',
      note: 0,
      other: 221771234568,
    })
  })

  it("leaves the field names of an error's messages as they are", () => {
    const at = { path: '$', key: '' }
    expect(withoutPersonal({ errors: { email: ['is invalid'] } }, none, at)).toEqual({
      errors: { email: ['is invalid'] },
    })
  })
})

describe('personalValues', () => {
  it('finds the values under a personal key of a request and of an answer, in arrays too', () => {
    const personal = personalValues(
      recording({ users: [{ email: 'a.b+c@x.sn' }] }, { data: { address: '12 Rue Carnot' } }),
    )
    expect(personal.is('a.b+c@x.sn')).toBe(true)
    expect(personal.is('12 Rue Carnot')).toBe(true)
    // the special characters of a value are matched as themselves
    expect(personal.scrub('to a.b+c@x.sn and aXb+c@x.sn')).toBe('to [personal] and aXb+c@x.sn')
  })

  it('takes neither masked values, values under 3 characters, nor the keys of errors', () => {
    const personal = personalValues(
      recording(
        { first_name: '***', last_name: '000', phone: 'Ba', email: 'ba@x' },
        { errors: { first_name: ['required'] } },
      ),
    )
    expect(personal.is('***')).toBe(false)
    expect(personal.is('000')).toBe(false)
    expect(personal.is('Ba')).toBe(false)
    expect(personal.is('required')).toBe(false)
    expect(personal.is('ba@x')).toBe(true)
    expect(personal.scrub('required: Ba')).toBe('required: Ba')
  })

  it('replaces the longest value first and scrubs nothing when the recording has none', () => {
    const personal = personalValues(recording({ first_name: 'Awa', names: 'Awa Diop' }, {}))
    expect(personal.scrub('for Awa Diop and Awa')).toBe('for [personal] and [personal]')
    expect(none.scrub('for Awa Diop')).toBe('for Awa Diop')
    expect(none.is('')).toBe(false)
  })
})

describe('paths', () => {
  it('generalPath: an index, an empty index and a numeric key stand for every element', () => {
    expect(generalPath('$.data[3].x')).toBe('$.data[*].x')
    expect(generalPath('$.data[].x[12]')).toBe('$.data[*].x[*]')
    expect(generalPath('$.data.3.x')).toBe('$.data[*].x')
    expect(generalPath('$.data.3[0]')).toBe('$.data[*][*]')
    expect(generalPath('$.data.3')).toBe('$.data[*]')
    expect(generalPath('$.a3.x')).toBe('$.a3.x')
  })

  it('lastKey: the key a path ends with, none for an element, the top or a path it cannot read', () => {
    expect(lastKey('$.data.card.status')).toBe('status')
    expect(lastKey("$.data['a b']")).toBe('a b')
    expect(lastKey('$.data[*]')).toBe('')
    expect(lastKey('$.data[2]')).toBe('')
    expect(lastKey('data.card')).toBe('')
  })

  it('pathText: keys, quoted keys, indexes and [*]', () => {
    expect(pathText(['data', '*', 'a-b', 0, '_ok$'])).toBe('$.data[*]["a-b"][0]._ok$')
    expect(pathText([])).toBe('$')
  })

  it('firstValueAt: the first element that has the key, undefined for a path it cannot read', () => {
    const body = { data: [{ name: 'x' }, { id: 2 }, { id: 3 }], n: null }
    expect(firstValueAt(body, '$.data[*].id')).toBe(2)
    expect(firstValueAt(body, '$.data[1].id')).toBe(2)
    expect(firstValueAt(body, '$.n.id')).toBeUndefined()
    expect(firstValueAt({ data: { '*': 1 } }, '$.data[*]')).toBeUndefined()
    expect(firstValueAt(body, 'data')).toBeUndefined()
  })
})

describe('copySource', () => {
  it('finds the key of the same answer the added key copies, closest first', () => {
    const body = {
      data: { card: { reference: 'c-0001', id: 'c-0001' }, reference: 'c-0001' },
    }
    expect(copySource('$.data.card.id', [body])).toBe('$.data.card.reference')
  })

  it('writes [*] for the element the copy is in, each element its own', () => {
    const body = {
      data: [
        { reference: 'r-0001', id: 'r-0001' },
        { reference: 'r-0002', id: 'r-0002' },
      ],
    }
    expect(copySource('$.data[*].id', [body])).toBe('$.data[*].reference')
  })

  it('takes the key equal in every answer, none when no key is', () => {
    const one = { data: { reference: 'r-0001', slug: 'r-0001', id: 'r-0001' } }
    const two = { data: { reference: 'r-0002', slug: 's-0002', id: 'r-0002' } }
    expect(copySource('$.data.id', [one, two])).toBe('$.data.reference')
    const three = { data: { reference: 'r-0003', slug: 's-0003', id: 'q-0003' } }
    expect(copySource('$.data.id', [one, three])).toBeUndefined()
  })

  it('copies no value too short to tell: text under 4 characters, a number under 1000', () => {
    expect(copySource('$.b', [{ a: 'abc', b: 'abc' }])).toBeUndefined()
    expect(copySource('$.b', [{ a: 'abcd', b: 'abcd' }])).toBe('$.a')
    expect(copySource('$.b', [{ a: 999, b: 999 }])).toBeUndefined()
    expect(copySource('$.b', [{ a: -1000, b: -1000 }])).toBe('$.a')
    expect(copySource('$.b', [{ a: 1000.5, b: 1000.5 }])).toBeUndefined()
    expect(copySource('b', [{ a: 'abcd', b: 'abcd' }])).toBeUndefined()
  })
})

describe('pin-values: the second example of each rule', () => {
  it('lists no placeholder for a boolean or null under a personal key', () => {
    expect(placeheld('email', true)).toEqual({ written: true, placeholders: [] })
    expect(placeheld('first_name', null)).toEqual({ written: null, placeholders: [] })
  })

  it('writes an amount as zero only when the whole text is a number', () => {
    expect(placeheld('amount', '12.50')).toEqual({
      written: '0',
      placeholders: [{ path: '$.amount', value: '0', what: 'an amount' }],
    })
    expect(placeheld('amount', 'XOF 12')).toEqual({ written: 'XOF 12', placeholders: [] })
    expect(placeheld('amount', '12.5.0')).toEqual({ written: '12.5.0', placeholders: [] })
  })

  it('says what a numeric id stands for, and leaves a text under another key as it is', () => {
    expect(placeheld('card_id', 42).placeholders).toEqual([
      { path: '$.card_id', value: 0, what: 'an id' },
    ])
    expect(placeheld('label', 'Card 12')).toEqual({ written: 'Card 12', placeholders: [] })
  })

  it('writes a URL as the placeholder URL only when the text starts with one, http too', () => {
    expect(written('selfie_image', 'http://img.example.com/a.jpg')).toBe(
      'https://example.com/placeholder.jpg',
    )
    expect(written('address', 'see https://maps.example.com')).toBe('placeholder')
  })

  it('writes a phone as zeros only when the whole text is digits, spaces and dashes', () => {
    expect(written('phone', '77 123 45 67')).toBe('00 000 00 00')
    expect(written('phone', 'call 77 123')).toBe('placeholder')
    expect(written('phone', '77 123 ext')).toBe('placeholder')
  })

  it('keeps a boolean as it is when the recording has personal values to scrub', () => {
    const personal = personalValues(recording({ first_name: 'Awa' }, {}))
    expect(withoutPersonal({ ok: true, n: null }, personal, { path: '$', key: '' })).toEqual({
      ok: true,
      n: null,
    })
  })

  it('generalPath: a numeric key of two digits or more', () => {
    expect(generalPath('$.data.12.x')).toBe('$.data[*].x')
    expect(generalPath('$.data.123')).toBe('$.data[*]')
  })

  it('firstValueAt: no value inside a text', () => {
    expect(firstValueAt({ a: 'text' }, '$.a.length')).toBeUndefined()
    expect(firstValueAt({ a: 'text' }, '$.a[0]')).toBeUndefined()
  })

  it('copySource: the closest key wins even when a farther one comes first', () => {
    const body = { top: 'abcd-1', data: { card: { ref: 'abcd-1', copy: 'abcd-1' } } }
    expect(copySource('$.data.card.copy', [body])).toBe('$.data.card.ref')
  })

  it('copySource: none when the answers agree on no key, even if the last one has one', () => {
    const one = { a: 'aaaa-1', b: 'bbbb-1', c: 'bbbb-1' }
    const two = { a: 'aaaa-2', b: 'bbbb-2', c: 'aaaa-2' }
    expect(copySource('$.c', [one, two])).toBeUndefined()
  })

  it('personalValues: only values under a personal key, numbers too', () => {
    const personal = personalValues(
      recording({ status: 'active', phone: 221771234567 }, { data: { state: 'verified' } }),
    )
    expect(personal.is('221771234567')).toBe(true)
    expect(personal.is('active')).toBe(false)
    expect(personal.is('verified')).toBe(false)
  })

  it('personalValues: a value masked in part is still one', () => {
    const personal = personalValues(recording({ phone: '***4567', id_no: '1234***' }, {}))
    expect(personal.is('***4567')).toBe(true)
    expect(personal.is('1234***')).toBe(true)
  })

  it('personalValues: a line without a request or an answer', () => {
    const lines: RecordLine[] = [
      { at: '2026-11-28T17:00:00.000Z', method: 'GET', path: '/v1/cards', status: 502 },
      ...recording(undefined, { data: { email: 'awa@x.sn' } }),
    ]
    expect(personalValues(lines).is('awa@x.sn')).toBe(true)
  })
})
