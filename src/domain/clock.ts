/**
 * The per-tenant sandbox clock (PRODUCT §6). `real` runs at wall time × speed; `manual` stands
 * still until advanced. A clock is three numbers on the tenant row, so it survives restarts:
 * sandbox time at an anchor, wall time at that anchor, and the mode.
 */
export type ClockMode = 'real' | 'manual'

export type ClockState = { mode: ClockMode; anchorMs: number; wallMs: number }

/** Where every manual clock starts, so that a seeded run repeats byte for byte. */
export const MANUAL_CLOCK_START_MS = Date.parse('2026-01-01T00:00:00.000Z')

export type WallClock = () => number

/**
 * The sandbox's one reading of wall time, injected where a clock needs it (the tenant
 * directory). Everything else reads a tenant's clock; latencies are measured with the monotonic
 * performance.now(), which is no instant of anyone's clock.
 */
export const wallClock: WallClock = () => Date.now()

export function startClock(mode: ClockMode, wallNow: number): ClockState {
  return mode === 'manual'
    ? { mode, anchorMs: MANUAL_CLOCK_START_MS, wallMs: wallNow }
    : { mode, anchorMs: wallNow, wallMs: wallNow }
}

export function clockNow(state: ClockState, wallNow: number, speed: number): number {
  if (state.mode === 'manual') return state.anchorMs
  return state.anchorMs + Math.floor((wallNow - state.wallMs) * speed)
}

export function advanceClock(
  state: ClockState,
  byMs: number,
  wallNow: number,
  speed: number,
): ClockState {
  return { mode: state.mode, anchorMs: clockNow(state, wallNow, speed) + byMs, wallMs: wallNow }
}

/** Switching modes keeps the current sandbox time: the clock neither jumps nor rewinds. */
export function setClockMode(
  state: ClockState,
  mode: ClockMode,
  wallNow: number,
  speed: number,
): ClockState {
  return { mode, anchorMs: clockNow(state, wallNow, speed), wallMs: wallNow }
}

const DURATION_UNITS: Record<string, number> = {
  ms: 1,
  s: 1000,
  m: 60_000,
  h: 3_600_000,
  d: 86_400_000,
}

/** Parses "15m", "2h", "500ms", "1h30m" or a number of milliseconds; null when unreadable. */
export function parseDuration(value: string | number): number | null {
  if (typeof value === 'number') return Number.isSafeInteger(value) && value >= 0 ? value : null
  const text = value.trim()
  if (/^\d+$/.test(text)) return parseDuration(Number(text))
  const parts = [...text.matchAll(/(\d+)(ms|s|m|h|d)/g)]
  if (parts.length === 0 || parts.map((p) => p[0]).join('') !== text) return null
  const total = parts.reduce((sum, p) => sum + Number(p[1]) * DURATION_UNITS[p[2]], 0)
  return Number.isSafeInteger(total) ? total : null
}
