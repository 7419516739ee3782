/**
 * The sandbox clock's arithmetic (PRODUCT §6), with the wall time given: where each mode starts,
 * how a real clock runs at its speed, and that advancing or switching mode never jumps.
 */
import { describe, expect, it } from 'vitest'
import {
  advanceClock,
  clockNow,
  isInstant,
  MANUAL_CLOCK_START_MS,
  parseDuration,
  setClockMode,
  setClockTo,
  startClock,
  type ClockState,
} from '../../src/domain/clock.js'

const WALL = Date.parse('2026-11-23T12:00:00.000Z')

describe('startClock', () => {
  it('starts a manual clock at 2026-01-01, a real one at the wall time', () => {
    expect(MANUAL_CLOCK_START_MS).toBe(Date.parse('2026-01-01T00:00:00.000Z'))
    expect(startClock('manual', WALL)).toEqual({
      mode: 'manual',
      anchorMs: MANUAL_CLOCK_START_MS,
      wallMs: WALL,
    })
    expect(startClock('real', WALL)).toEqual({ mode: 'real', anchorMs: WALL, wallMs: WALL })
  })

  it("starts a manual clock at the instant given, or at the wall time for 'now'", () => {
    const march = Date.parse('2026-03-01T09:00:00.000Z')
    expect(startClock('manual', WALL, march).anchorMs).toBe(march)
    expect(startClock('manual', WALL, 'now').anchorMs).toBe(WALL)
    expect(startClock('real', WALL, march).anchorMs).toBe(WALL)
  })
})

describe('setClockTo', () => {
  it('stands a clock, manual, at the instant, whatever mode it had', () => {
    const real = startClock('real', WALL)
    const at = Date.parse('2027-01-01T00:00:00.000Z')
    const set = setClockTo(real, at, WALL + 5_000)
    expect(set).toEqual({ mode: 'manual', anchorMs: at, wallMs: WALL + 5_000 })
    expect(clockNow(set, WALL + 60_000, 1)).toBe(at)
  })
})

describe('isInstant', () => {
  it('takes an ISO 8601 date and time with an offset, and nothing else', () => {
    for (const good of [
      '2026-03-01T09:00:00Z',
      '2026-03-01T09:00Z',
      '2026-03-01T09:00:00.123+01:00',
    ])
      expect(isInstant(good), good).toBe(true)
    for (const bad of ['2026-03-01', '2026-03-01T09:00:00', '2026-13-01T09:00:00Z', 'now', ''])
      expect(isInstant(bad), bad).toBe(false)
  })
})

describe('clockNow', () => {
  const real: ClockState = { mode: 'real', anchorMs: 1_000, wallMs: WALL }

  it('runs a real clock at wall time × speed from its anchor, rounded down', () => {
    expect(clockNow(real, WALL, 1)).toBe(1_000)
    expect(clockNow(real, WALL + 250, 1)).toBe(1_250)
    expect(clockNow(real, WALL + 250, 1000)).toBe(251_000)
    expect(clockNow(real, WALL + 3, 0.5)).toBe(1_001)
  })

  it('keeps a manual clock at its anchor whatever the wall time', () => {
    const manual: ClockState = { ...real, mode: 'manual' }
    expect(clockNow(manual, WALL + 86_400_000, 1000)).toBe(1_000)
  })
})

describe('advanceClock', () => {
  it('moves a manual clock by exactly the amount, and keeps its mode', () => {
    const manual = startClock('manual', WALL)
    expect(advanceClock(manual, 5_000, WALL + 99, 1)).toEqual({
      mode: 'manual',
      anchorMs: MANUAL_CLOCK_START_MS + 5_000,
      wallMs: WALL + 99,
    })
  })

  it('moves a real clock from where it has run to, and it runs on from there', () => {
    const real: ClockState = { mode: 'real', anchorMs: 0, wallMs: WALL }
    const advanced = advanceClock(real, 5_000, WALL + 10, 2)
    expect(advanced).toEqual({ mode: 'real', anchorMs: 5_020, wallMs: WALL + 10 })
    expect(clockNow(advanced, WALL + 15, 2)).toBe(5_030)
  })
})

describe('setClockMode', () => {
  it('stops a real clock where it has run to', () => {
    const real: ClockState = { mode: 'real', anchorMs: 1_000, wallMs: WALL }
    const manual = setClockMode(real, 'manual', WALL + 40, 10)
    expect(manual).toEqual({ mode: 'manual', anchorMs: 1_400, wallMs: WALL + 40 })
    expect(clockNow(manual, WALL + 10_000, 10)).toBe(1_400)
  })

  it('starts a manual clock running from where it stood, counting wall time from the switch', () => {
    // the manual clock was set (its wallMs) long before the switch: that time does not count
    const manual: ClockState = { mode: 'manual', anchorMs: 7_000, wallMs: WALL - 60_000 }
    const real = setClockMode(manual, 'real', WALL, 3)
    expect(real).toEqual({ mode: 'real', anchorMs: 7_000, wallMs: WALL })
    expect(clockNow(real, WALL, 3)).toBe(7_000)
    expect(clockNow(real, WALL + 100, 3)).toBe(7_300)
  })
})

describe('parseDuration', () => {
  it.each([
    ['500ms', 500],
    ['5s', 5_000],
    ['15m', 900_000],
    ['2h', 7_200_000],
    ['1d', 86_400_000],
    ['1h30m', 5_400_000],
    ['1m500ms', 60_500],
    [' 2s ', 2_000],
    ['0', 0],
    ['1000', 1_000],
    [0, 0],
    [250, 250],
  ] as const)('reads %j as %i ms', (text, ms) => {
    expect(parseDuration(text)).toBe(ms)
  })

  it.each([
    'soon',
    '',
    '5x',
    '-5m',
    '1.5h',
    '5 s',
    '5sec',
    'x5s',
    // what Number() would read, but not a duration
    '0x10',
    '1e3',
    '5s!',
    '9007199254740993',
    '9999999999999999d',
  ])('refuses %j', (text) => {
    expect(parseDuration(text)).toBeNull()
  })

  it('refuses negative, fractional and unsafe numbers', () => {
    for (const value of [-1, 1.5, Number.NaN, Infinity, 2 ** 53]) {
      expect(parseDuration(value), String(value)).toBeNull()
    }
    expect(parseDuration(Number.MAX_SAFE_INTEGER)).toBe(Number.MAX_SAFE_INTEGER)
  })
})
