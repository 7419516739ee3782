/**
 * The `edit` effect's own rules (src/engine/scenarios/edit.ts) on answers built here, without a
 * sandbox: JSON paths read step by step, each type a value can be retyped to from each it can
 * have, and the edges of each edit (a path through the wrong kind of container, a key that is
 * not there, a copy whose source is missing, a status or message on an answer without an
 * envelope, the 2xx range). test/engine/scenario-edit.test.ts shows the same effect through HTTP.
 */
import { describe, expect, it } from 'vitest'
import { applyEdits, parseEditPath, type Edit } from '../../../src/engine/scenarios/edit.js'

/** `body` after `edits`, as a 200 answer. */
const edited = (body: unknown, ...edits: Edit[]) => applyEdits({ status: 200, body }, edits).body

describe('a JSON path', () => {
  it('reads keys, quoted keys, indexes and [*] in any order', () => {
    expect(parseEditPath(`$.data['card.no'][2]["a b"][*].x`)).toEqual([
      'data',
      'card.no',
      2,
      'a b',
      '*',
      'x',
    ])
    expect(parseEditPath(`$['']`)).toEqual([''])
  })

  it('says why a text is not one', () => {
    expect(parseEditPath('data.x')).toBe(
      "expected a JSON path from the answer's top, such as $.data.card.status",
    )
    expect(parseEditPath('$')).toBe(
      'expected a path to a key (the whole answer is not one): $.data.card.status',
    )
    expect(parseEditPath('$.a..b')).toBe(
      'cannot read "..b" in $.a..b: expected .key, [n], [*] or [\'key\']',
    )
  })
})

describe('retype', () => {
  const INPUTS = ['x', '12', ' ', '', 'false', '0', 'true', 12, 0, true, false, null, { a: 1 }, [1]]
  const retyped = (type: Edit['retype'] extends Record<string, infer T> | undefined ? T : never) =>
    INPUTS.map(
      (v) => (edited({ v: structuredClone(v) }, { retype: { '$.v': type } }) as { v: unknown }).v,
    )

  it('to string: text kept, numbers and booleans written out, null empty, objects as JSON', () => {
    expect(retyped('string')).toEqual([
      'x',
      '12',
      ' ',
      '',
      'false',
      '0',
      'true',
      '12',
      '0',
      'true',
      'false',
      '',
      '{"a":1}',
      '[1]',
    ])
  })

  it('to number: numeric text read, booleans 1 and 0, anything else 0', () => {
    expect(retyped('number')).toEqual([0, 12, 0, 0, 0, 0, 0, 12, 0, 1, 0, 0, 0, 0])
  })

  it('to boolean: "", "false" and "0" false, other text true, anything else by its truth', () => {
    expect(retyped('boolean')).toEqual([
      true,
      true,
      true,
      false,
      false,
      false,
      true,
      true,
      false,
      true,
      false,
      false,
      true,
      true,
    ])
  })

  it('to null, to an array (null an empty one, an array kept), to an object (an object kept)', () => {
    expect(retyped('null')).toEqual(INPUTS.map(() => null))
    expect(retyped('array')).toEqual(
      INPUTS.map((v) => (v === null ? [] : Array.isArray(v) ? v : [v])),
    )
    expect(retyped('object')).toEqual(INPUTS.map((v) => (v === INPUTS[12] ? { a: 1 } : {})))
  })

  it('leaves a key that is not there absent', () => {
    expect(edited({ a: 1 }, { retype: { '$.b': 'string' } })).toEqual({ a: 1 })
  })
})

describe('a path through the wrong kind of container', () => {
  const body = () => ({ list: [{ id: 1 }, { id: 2 }], card: { id: 3 }, none: null })

  it('edits nothing: an index of an object, a key of an array, [*] of an object, through null', () => {
    for (const edit of [
      { drop: ['$.card[0].id'] },
      { drop: ['$.list.id'] },
      { drop: ['$.card[*].id'] },
      { retype: { '$.card[*]': 'string' as const } },
      { drop: ['$.none.id'] },
      { add: { '$.list.x': 1 } },
      { rename: { '$.list.0': 'first' } },
    ])
      expect(edited(body(), edit), JSON.stringify(edit)).toEqual(body())
  })

  it('does not take an object’s key "0" for an index, nor an object with a length for an array', () => {
    const lookalikes = () => ({ card: { '0': { id: 1 } }, obj: { length: 1, '0': { id: 5 } } })
    for (const edit of [
      { drop: ['$.card[0].id'] },
      { drop: ['$.obj[*].id'] },
      { retype: { '$.obj[*]': 'string' as const } },
    ])
      expect(edited(lookalikes(), edit), JSON.stringify(edit)).toEqual(lookalikes())
  })

  it('goes no further than a null on the way, and makes no key on an array', () => {
    expect(edited(body(), { drop: ['$.none.a.b'] })).toEqual(body())
    const added = edited(body(), { add: { '$.list.x.y': 1 } }) as { list: unknown[] }
    expect(Object.keys(added.list)).toEqual(['0', '1'])
  })

  it('drops a key of an object, never an element of an array', () => {
    expect(edited(body(), { drop: ['$.list.0'] })).toEqual(body())
    expect(edited(body(), { drop: ['$.card.id'] })).toEqual({ ...body(), card: {} })
  })

  it('makes objects on the way for add, not arrays: an index or [*] next is not made', () => {
    expect(edited({}, { add: { '$.a.b.c': 1 } })).toEqual({ a: { b: { c: 1 } } })
    expect(edited({}, { add: { '$.a[0].c': 1 } })).toEqual({})
    expect(edited({}, { add: { '$.a[*].c': 1 } })).toEqual({})
  })
})

describe('rename', () => {
  it('renames a key in its place, and nothing when the key is not there', () => {
    const renamed = edited({ a: 1, b: 2, c: 3 }, { rename: { '$.b': 'B' } })
    expect(Object.entries(renamed as object)).toEqual([
      ['a', 1],
      ['B', 2],
      ['c', 3],
    ])
    expect(Object.keys(edited({ a: 1, c: 3 }, { rename: { '$.b': 'B' } }) as object)).toEqual([
      'a',
      'c',
    ])
  })
})

describe('copy', () => {
  it('sets nothing when the source is not there, or is reached through the wrong container', () => {
    for (const from of [
      '$.missing',
      '$.card[0]',
      '$.list.id',
      '$.none.id',
      '$.keyed[0]',
      '$.list.length',
      '$.card.toString',
    ])
      expect(
        edited(
          { card: { id: 1 }, keyed: { '0': 'x' }, list: [1], none: null },
          { copy: { '$.to': from } },
        ),
        from,
      ).not.toHaveProperty('to')
  })

  it('takes each [*] of the source from the target’s [*] at the same rank', () => {
    const body = {
      rows: [
        { cells: [{ v: 1 }, { v: 2 }], out: [{}, {}] },
        { cells: [{ v: 3 }, { v: 4 }], out: [{}, {}] },
      ],
    }
    expect(edited(body, { copy: { '$.rows[*].out[*].v': '$.rows[*].cells[*].v' } })).toEqual({
      rows: [
        { cells: [{ v: 1 }, { v: 2 }], out: [{ v: 1 }, { v: 2 }] },
        { cells: [{ v: 3 }, { v: 4 }], out: [{ v: 3 }, { v: 4 }] },
      ],
    })
  })

  it('copies a value, not a reference: an edit of the copy leaves the source', () => {
    const body = edited(
      { a: { x: 1 } },
      { copy: { '$.b': '$.a' } },
      { add: { '$.b.x': 2 } },
    ) as Record<string, unknown>
    expect(body).toEqual({ a: { x: 1 }, b: { x: 2 } })
  })
})

describe('status and message', () => {
  it('edit 2xx answers only: 200 and 299, not 199 nor 300', () => {
    const statusOf = (status: number) => applyEdits({ status, body: {} }, [{ status: 201 }]).status
    expect([199, 200, 299, 300].map(statusOf)).toEqual([199, 201, 201, 300])
  })

  it('set the envelope’s statusCode only where it is a number, and message only on an object', () => {
    expect(applyEdits({ status: 200, body: { statusCode: '200' } }, [{ status: 202 }])).toEqual({
      status: 202,
      body: { statusCode: '200' },
    })
    expect(applyEdits({ status: 200, body: [1] }, [{ status: 202, message: 'Done' }])).toEqual({
      status: 202,
      body: [1],
    })
    expect(edited({ statusCode: 200 }, { status: 202, message: 'Done' })).toEqual({
      statusCode: 202,
      message: 'Done',
    })
  })
})
