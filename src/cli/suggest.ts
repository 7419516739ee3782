/**
 * "Did you mean": the known name nearest a mistyped one, by edit distance (insertions,
 * deletions, substitutions and swaps of two neighbours, one each), when it is near enough to be
 * a typo: at most a third of the typed name's length, and one edit for names of up to five. Else
 * the one name the typed one begins, if it has three letters or more (`--forward`).
 */
export function nearest(typed: string, known: readonly string[]): string | undefined {
  const allowed = Math.max(1, Math.min(3, Math.floor(typed.length / 3)))
  const begun = known.filter((name) => name.toLowerCase().startsWith(typed.toLowerCase()))
  let best: { name: string; distance: number } | undefined =
    typed.length >= 3 && begun.length === 1 ? { name: begun[0], distance: allowed } : undefined
  for (const name of known) {
    const distance = editDistance(typed.toLowerCase(), name.toLowerCase())
    if (distance <= allowed && (!best || distance < best.distance)) best = { name, distance }
  }
  return best?.name
}

/** The optimal-string-alignment distance: Levenshtein's, a swap of neighbours counting one. */
export function editDistance(a: string, b: string): number {
  const rows = Array.from({ length: a.length + 1 }, (_, i) =>
    Array.from({ length: b.length + 1 }, (_, j) => (i === 0 ? j : j === 0 ? i : 0)),
  )
  for (let i = 1; i <= a.length; i++)
    for (let j = 1; j <= b.length; j++) {
      const cost = a[i - 1] === b[j - 1] ? 0 : 1
      rows[i][j] = Math.min(rows[i - 1][j] + 1, rows[i][j - 1] + 1, rows[i - 1][j - 1] + cost)
      if (i > 1 && j > 1 && a[i - 1] === b[j - 2] && a[i - 2] === b[j - 1])
        rows[i][j] = Math.min(rows[i][j], rows[i - 2][j - 2] + 1)
    }
  return rows[a.length][b.length]
}

/**
 * An unknown-option error of node's parseArgs in the command's words, with the nearest of the
 * command's long `flags` (named without their dashes); any other error keeps its message.
 */
export function flagErrorMessage(error: unknown, flags: readonly string[]): string {
  const { code, message } = error as { code?: string; message: string }
  const typed = /^Unknown option '(-[^'=]*)/.exec(message)?.[1]
  if (code !== 'ERR_PARSE_ARGS_UNKNOWN_OPTION' || typed === undefined) return message
  const name = typed.replace(/^-+/, '')
  const near = name.length > 1 ? nearest(name, flags) : undefined
  return `unknown flag ${typed}${near === undefined ? '' : `; did you mean --${near}?`}`
}
