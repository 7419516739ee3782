// What the bench scripts (run.mjs, ab.mjs) read of the server processes they start: the URL a
// server prints once it listens, the CPU time it has used, and the median of a set of figures.
import { spawnSync } from 'node:child_process'
import { readFileSync } from 'node:fs'

/** The `http://127.0.0.1:port` a started server prints on stdout, within `timeoutMs`. */
export function listeningUrl(child, timeoutMs = 20_000) {
  return new Promise((resolveUrl, reject) => {
    let out = ''
    const timer = setTimeout(
      () => reject(new Error(`no URL after ${timeoutMs} ms: ${out}`)),
      timeoutMs,
    )
    child.stdout.on('data', (chunk) => {
      out += chunk
      const match = /(http:\/\/127\.0\.0\.1:\d+)/.exec(out)
      if (match) {
        clearTimeout(timer)
        resolveUrl(match[1])
      }
    })
  })
}

const CLOCK_TICKS = Number(spawnSync('getconf', ['CLK_TCK'], { encoding: 'utf8' }).stdout) || 100

/** The CPU time the process has used so far, in µs (user and system, all its threads). */
export function cpuMicros(pid) {
  const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1].split(' ')
  return ((Number(fields[11]) + Number(fields[12])) * 1e6) / CLOCK_TICKS
}

export const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor((xs.length - 1) / 2)]
