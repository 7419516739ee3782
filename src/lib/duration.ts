/**
 * "60s", "2m", "750ms": a duration in ms as the duration flags take it (domain/clock.ts
 * parseDuration reads it back).
 */
export function formatDuration(ms: number): string {
  if (ms < 1000 || ms % 1000 !== 0) return `${ms}ms`
  const s = ms / 1000
  return s % 60 === 0 ? `${s / 60}m` : `${s}s`
}
