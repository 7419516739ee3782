import { describe, expect, it } from 'vitest'
import { createRateCounter, RATE_WINDOW_MS } from '../../src/domain/rate-limit.js'

describe('rate counter', () => {
  it('opens a window at the first request and closes it a minute later', () => {
    const count = createRateCounter(false)
    expect(count('t', 1_000).remaining).toBe(59)
    expect(count('t', 1_000 + RATE_WINDOW_MS - 1).remaining).toBe(58)
    expect(count('t', 1_000 + RATE_WINDOW_MS).remaining).toBe(59)
  })

  it('opens a new window when the clock went back (a restore)', () => {
    const count = createRateCounter(false)
    count('t', 50_000)
    count('t', 50_000)
    expect(count('t', 10_000).remaining).toBe(59)
  })

  it('never counts a refused request, and says when the window ends in whole seconds', () => {
    const count = createRateCounter(2)
    count('t', 0)
    count('t', 0)
    expect(count('t', 500)).toEqual({ limit: 2, remaining: 0, retryAfterSeconds: 60 })
    expect(count('t', 59_001)).toEqual({ limit: 2, remaining: 0, retryAfterSeconds: 1 })
    expect(count('t', 60_000)).toEqual({ limit: 2, remaining: 1 })
  })
})
