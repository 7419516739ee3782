/**
 * The tables of `--help` and `help <command>`: what to type on the left, what it does on the
 * right. The right column starts two spaces after the longest left column that fits beside it,
 * and wraps at HELP_WIDTH; a left column longer than that has a line of its own, its description
 * on the lines below, in the same column as the others.
 */
export const HELP_WIDTH = 100
/** The longest left column (indent included) that shares its line with a description. */
const MAX_LEFT = 36
const INDENT = '  '
const GAP = 2

/** A row: what to type, then what it does; each further string starts a line of its own. */
export type HelpRow = { left: string; text: readonly string[] }

export const helpRow = (left: string, ...text: string[]): HelpRow => ({ left, text })

export function helpTable(rows: readonly HelpRow[]): string[] {
  const lefts = rows.map((row) => INDENT + row.left)
  const column = Math.max(0, ...lefts.map((left) => left.length).filter((n) => n <= MAX_LEFT)) + GAP
  const pad = ' '.repeat(column)
  return rows.flatMap((row, i) => {
    const text = row.text.flatMap((line) => wrap(line, HELP_WIDTH - column))
    const [first, ...rest] = lefts[i].length + GAP <= column ? text : ['', ...text]
    return [`${lefts[i].padEnd(column)}${first}`.trimEnd(), ...rest.map((line) => pad + line)]
  })
}

/** `text` in lines of at most `width` characters, broken between words. */
export function wrap(text: string, width = HELP_WIDTH): string[] {
  const lines: string[] = []
  let line = ''
  for (const word of text.split(' ')) {
    if (line && line.length + 1 + word.length > width) {
      lines.push(line)
      line = word
    } else line = line ? `${line} ${word}` : word
  }
  return [...lines, line]
}
