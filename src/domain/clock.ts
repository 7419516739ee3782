/**
 * The per-tenant sandbox clock (PRODUCT §6). `real` runs at wall time × speed; `manual` stands
 * still until advanced. A clock is three numbers on the tenant row, so it survives restarts:
 * sandbox time at an anchor, wall time at that anchor, and the mode.
 */
export type ClockMode = 'real' | 'manual'

export type ClockState = { mode: ClockMode; anchorMs: number; wallMs: number }

/** Where every manual clock of a seeded run starts, so that the run repeats byte for byte. */
export const MANUAL_CLOCK_START_MS = Date.parse('2026-01-01T00:00:00.000Z')

/**
 * Where a new manual clock starts: an instant (`--clock-start`, or 2026-01-01 with `--seed`), or
 * `'now'`, the real time when the tenant is made (so that a backend comparing `expired_at` with
 * its own clock sees what it would see against the real service).
 */
export type ManualStart = number | 'now'

export type WallClock = () => number

/**
 * The sandbox's one reading of wall time, injected where a clock needs it (the tenant
 * directory). Everything else reads a tenant's clock; latencies are measured with the monotonic
 * performance.now(), which is no instant of anyone's clock.
 */
export const wallClock: WallClock = () => Date.now()

export function startClock(
  mode: ClockMode,
  wallNow: number,
  manualStart: ManualStart = MANUAL_CLOCK_START_MS,
): ClockState {
  return mode === 'manual'
    ? { mode, anchorMs: manualStart === 'now' ? wallNow : manualStart, wallMs: wallNow }
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

/** A manual clock set to an instant (the caller refuses an instant before its time). */
export function setClockTo(state: ClockState, instant: number, wallNow: number): ClockState {
  return { mode: 'manual', anchorMs: instant, wallMs: wallNow }
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

/** `2026-03-01T09:00:00Z`, `2026-03-01T09:00:00.000+01:00`: a date, a time and an offset. */
export function isInstant(value: string): boolean {
  return ISO_INSTANT.test(value) && !Number.isNaN(Date.parse(value))
}
const ISO_INSTANT = /^\d{4}-\d\d-\d\dT\d\d:\d\d(:\d\d(\.\d{1,3})?)?(Z|[+-]\d\d:\d\d)$/

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
