/**
 * How deep a JSON text nests, read without parsing it (src/lib/json-depth.ts): the limit a body
 * is refused past (PRODUCT §4), whether its brackets are few, many side by side, or in strings.
 */
import { describe, expect, it } from 'vitest'
import { nestsDeeperThan } from '../../src/lib/json-depth.js'

const nested = (levels: number) => '['.repeat(levels) + ']'.repeat(levels)

describe('nestsDeeperThan', () => {
  it('is false up to the limit and true one level past it, for objects and arrays', () => {
    expect(nestsDeeperThan(nested(3), 3)).toBe(false)
    expect(nestsDeeperThan(nested(4), 3)).toBe(true)
    expect(nestsDeeperThan('{"a":{"b":{"c":{}}}}', 3)).toBe(true)
    expect(nestsDeeperThan('{"a":{"b":{"c":1}}}', 3)).toBe(false)
  })

  it('counts levels, not brackets: many side by side nest one deep', () => {
    expect(nestsDeeperThan(`[${'{},'.repeat(10)}{}]`, 3)).toBe(false)
    expect(nestsDeeperThan(`[[],[[[]]],${'[],'.repeat(5)}[]]`, 3)).toBe(true)
    expect(nestsDeeperThan(`[${'[],'.repeat(10)}[]]`, 3)).toBe(false)
    // more brackets than the limit, nested exactly to it: allowed
    expect(nestsDeeperThan(`[${nested(2)},${nested(2)}]`, 3)).toBe(false)
    expect(nestsDeeperThan(`{"a":${nested(2)},"b":{"c":{}}}`, 3)).toBe(false)
  })

  it('finds the brackets wherever the text starts', () => {
    expect(nestsDeeperThan(' ' + '{"a":'.repeat(5) + '1' + '}'.repeat(5), 3)).toBe(true)
    expect(nestsDeeperThan(' ' + nested(5), 3)).toBe(true)
  })

  it('skips brackets inside strings, escaped quotes included', () => {
    expect(nestsDeeperThan('{"note":"[[[[[[{{{{"}', 3)).toBe(false)
    expect(nestsDeeperThan('{"note":"\\"[[[[[["}', 3)).toBe(false)
  })
})
