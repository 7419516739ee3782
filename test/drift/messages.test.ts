/**
 * The headers drift expects on every sandbox /v1 answer (drift/messages.ts): which ones a status
 * carries, and which upstream values each one accepts.
 */
import { describe, expect, it } from 'vitest'
import { sandboxHeaders } from '../../src/drift/messages.js'

const accepts = (status: number, header: string, value: string) =>
  sandboxHeaders(status)[header].ok(value)

describe('sandboxHeaders', () => {
  it('carries the rate-limit headers once a tenant is known, retry-after on a 429 only', () => {
    const names = (status: number) => Object.keys(sandboxHeaders(status)).sort()
    const always = ['content-type', 'x-content-type-options']
    const counted = [...always, 'x-ratelimit-limit', 'x-ratelimit-remaining'].sort()
    expect(names(200)).toEqual(counted)
    expect(names(404)).toEqual(counted)
    expect(names(401)).toEqual(always)
    expect(names(403)).toEqual(always)
    expect(names(429)).toEqual([...counted, 'retry-after'].sort())
  })

  it('accepts an integer with spaces around it, and nothing else', () => {
    expect(accepts(429, 'retry-after', ' 12 ')).toBe(true)
    expect(accepts(200, 'x-ratelimit-limit', '600')).toBe(true)
    expect(accepts(429, 'retry-after', '12a')).toBe(false)
    expect(accepts(429, 'retry-after', 'a12')).toBe(false)
    expect(accepts(200, 'x-ratelimit-remaining', '1.5')).toBe(false)
    expect(accepts(200, 'x-ratelimit-remaining', '')).toBe(false)
  })

  it('accepts JSON as a content type in any case, with parameters', () => {
    expect(accepts(200, 'content-type', 'application/json')).toBe(true)
    expect(accepts(200, 'content-type', ' Application/JSON ; charset=utf-8')).toBe(true)
    expect(accepts(200, 'content-type', 'text/html; application/json')).toBe(false)
    expect(accepts(200, 'content-type', 'application/json-seq')).toBe(false)
  })

  it('accepts nosniff in any case and with spaces, and nothing else', () => {
    expect(accepts(200, 'x-content-type-options', ' NoSniff ')).toBe(true)
    expect(accepts(200, 'x-content-type-options', 'sniff')).toBe(false)
    expect(accepts(200, 'x-content-type-options', '')).toBe(false)
  })

  it('says what it expects', () => {
    const says = Object.fromEntries(
      Object.entries(sandboxHeaders(429)).map(([name, check]) => [name, check.says]),
    )
    expect(says).toEqual({
      'content-type': 'application/json',
      'x-content-type-options': 'nosniff',
      'x-ratelimit-limit': 'integer',
      'x-ratelimit-remaining': 'integer',
      'retry-after': 'integer',
    })
  })
})
