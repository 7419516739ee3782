/**
 * `card-sandbox --help` and `help <command>` as main() prints them, in this process: no line
 * over 100 columns, and each row's left column (what to type) apart from its description by two
 * spaces at least, or alone on its line with the description below it. The built command's
 * --help: test/cli/cli.test.ts.
 */
import { describe, expect, it } from 'vitest'
import { FLAGS } from '../../src/cli/flags.js'
import { helpRow, helpTable, HELP_WIDTH, wrap } from '../../src/cli/help.js'
import { COMMANDS, main } from '../../src/cli/main.js'
import { startRun } from './commands/in-process.js'

/** The commands that drive a sandbox or read a file: all but serve and help. */
const REMOTE = COMMANDS.filter((c) => c.name !== 'serve' && c.name !== 'help')

async function help(args: string[]): Promise<string> {
  const run = await startRun(main, args, {}).done
  expect(run.code, run.stderr).toBe(0)
  return run.stdout
}

/**
 * Each left column's line: the left column alone, or followed by two spaces and its description;
 * the column its description starts at.
 */
function descriptionColumns(text: string, lefts: string[]): number[] {
  const lines = text.split('\n')
  return lefts.map((left) => {
    const at = lines.findIndex((line) => line.startsWith(`  ${left}`))
    expect(at, `no line for ${left}`).toBeGreaterThanOrEqual(0)
    const after = lines[at].slice(2 + left.length)
    if (after === '') {
      // alone: the description starts on the next line, indented past the left columns
      const next = lines[at + 1]
      expect(next, `the description of ${left}`).toMatch(/^ {4,}\S/)
      return next.length - next.trimStart().length
    }
    expect(after, `${left} and its description`).toMatch(/^ {2,}\S/)
    return 2 + left.length + (after.length - after.trimStart().length)
  })
}

function expectWithinWidth(text: string) {
  for (const line of text.split('\n'))
    expect(line.length, `too wide: ${line}`).toBeLessThanOrEqual(HELP_WIDTH)
}

describe('--help', () => {
  it('fits in 100 columns, each description apart from its flag or command, in one column a table', async () => {
    const text = await help(['--help'])
    expectWithinWidth(text)
    const [commands, flags] = text.split('Flags of serve:')
    const usages = ['serve [flags]', ...REMOTE.map((c) => c.usage), 'help [command]']
    expect(new Set(descriptionColumns(commands, usages)).size).toBe(1)
    const flagLefts = [...FLAGS.map((f) => `--${f.name} ${f.value}`), '-v, --version', '-h, --help']
    expect(new Set(descriptionColumns(flags, flagLefts)).size).toBe(1)
    // the longest flag shares its line with its description
    expect(flags).toMatch(/^ {2}--db <file\|:memory:\|postgres:\/\/…> {2}SQLite database/m)
    // each flag's environment variable, under its description
    expect(flags).toMatch(/^ +env CARD_SANDBOX_WEBHOOK_EXTENSIONS$/m)
  })

  it.each(REMOTE.map((command) => [command.name, command]))(
    '`help %s` fits in 100 columns, each description apart from its flag',
    async (name, command) => {
      const text = await help(['help', name])
      expectWithinWidth(text)
      expect(text).toContain(`Usage: npx card-sandbox ${command.usage}\n`)
      const lefts = command.help.map((row) => row.left)
      expect(new Set(descriptionColumns(text, lefts)).size).toBe(1)
    },
  )
})

describe('helpTable', () => {
  it('starts descriptions two spaces after the longest left column, wrapping them at 100', () => {
    const long = 'word '.repeat(40).trim()
    const lines = helpTable([helpRow('--a <x>', 'short'), helpRow('--bbbbbb <yy>', long, 'env B')])
    expect(lines[0]).toBe('  --a <x>        short')
    expect(lines[1].startsWith('  --bbbbbb <yy>  word word')).toBe(true)
    expect(lines.slice(1, -1).every((line) => line.length <= 100)).toBe(true)
    expect(lines.slice(2, -1).every((line) => line.startsWith(' '.repeat(17) + 'word'))).toBe(true)
    expect(lines.at(-1)).toBe(`${' '.repeat(17)}env B`)
    expect(lines.join(' ').replace(/\s+/g, ' ')).toContain(long)
  })

  it('gives a left column too long to share a line a line of its own', () => {
    const usage = 'clock [advance <duration> | set <ISO> | run-due [--until <ISO>]]'
    expect(helpTable([helpRow('reset', 'empty it'), helpRow(usage, 'show the clock')])).toEqual([
      '  reset  empty it',
      `  ${usage}`,
      '         show the clock',
    ])
  })
})

describe('helpTable and wrap at their limits', () => {
  it('lets a left column of exactly 36 characters share its line, and starts the others past it', () => {
    const left = 'x'.repeat(34)
    expect(helpTable([helpRow(left, 'fits'), helpRow('-y', 'short')])).toEqual([
      `  ${left}  fits`,
      `  -y${' '.repeat(34)}short`,
    ])
    const longer = 'x'.repeat(35)
    expect(helpTable([helpRow(longer, 'below'), helpRow('-y', 'short')])).toEqual([
      `  ${longer}`,
      '      below',
      '  -y  short',
    ])
    // one character past the limit: below, even beside a column of 36
    expect(helpTable([helpRow(left, 'fits'), helpRow(longer, 'below')])).toEqual([
      `  ${left}  fits`,
      `  ${longer}`,
      `${' '.repeat(38)}below`,
    ])
  })

  it('keeps a line of exactly the width whole, and breaks one a character longer', () => {
    const words = `${'a'.repeat(49)} ${'b'.repeat(50)}`
    expect(wrap(words, 100)).toEqual([words])
    expect(wrap(`${words}c`, 100)).toEqual(['a'.repeat(49), `${'b'.repeat(50)}c`])
  })
})

describe('help', () => {
  it('prints the whole help for help, help help or an unknown command', async () => {
    const text = await help(['help'])
    expect(text.split('\n').slice(0, 5)).toEqual([
      'card-sandbox: a local, stateful sandbox of the card, wallet and disbursement API',
      '',
      'Usage: npx card-sandbox [command] [flags]',
      '',
      'Commands:',
    ])
    expect(text).toMatch(/\n\nFlags of serve:\n {2}--port <n>/)
    expect(text.endsWith('\n')).toBe(true)
    expect(await help(['help', 'help'])).toBe(text)
    expect(await help(['help', 'nosuch'])).toBe(text)
  })

  it("prints a command's usage, summary and flags, and no Flags heading for one without", async () => {
    const reset = await help(['help', 'reset'])
    expect(reset.split('\n').slice(0, 3)).toEqual([
      `Usage: npx card-sandbox ${COMMANDS.find((c) => c.name === 'reset')!.usage}`,
      '',
      expect.stringMatching(/^[A-Z].*/),
    ])
    expect(reset).toMatch(/\n\nFlags:\n {2}--/)
    expect(reset.endsWith('\n')).toBe(true)
    // help's own help: no flags, no Flags heading
    expect(await help(['help', '--help'])).toBe(
      'Usage: npx card-sandbox help [command]\n\nShow this help, or the help of a command.\n',
    )
  })
})
