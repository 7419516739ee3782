/** formatDuration: a duration in ms written as the duration flags take it, which reads it back. */
import { describe, expect, it } from 'vitest'
import { parseDuration } from '../../src/domain/clock.js'
import { formatDuration } from '../../src/lib/duration.js'

describe('formatDuration', () => {
  it('writes whole minutes in m, whole seconds in s, anything else in ms', () => {
    expect(formatDuration(120_000)).toBe('2m')
    expect(formatDuration(60_000)).toBe('1m')
    expect(formatDuration(90_000)).toBe('90s')
    expect(formatDuration(30_000)).toBe('30s')
    expect(formatDuration(1000)).toBe('1s')
    expect(formatDuration(1500)).toBe('1500ms')
    expect(formatDuration(999)).toBe('999ms')
    expect(formatDuration(0)).toBe('0ms')
  })

  it('writes what parseDuration reads back as the same duration', () => {
    for (const ms of [0, 750, 1000, 1500, 45_000, 60_000, 90_000, 3_600_000])
      expect(parseDuration(formatDuration(ms)), String(ms)).toBe(ms)
  })
})
