/** The CLI's flags (src/cli/flags.ts): the newer ones, each from the command line and its variable. */
import { describe, expect, it } from 'vitest'
import { FlagError, parseFlags } from '../../src/cli/flags.js'

function optionsOf(argv: string[], env: NodeJS.ProcessEnv = {}) {
  const command = parseFlags(argv, env)
  if (command.kind !== 'run') throw new Error(command.kind)
  return command.options
}

describe('--clock-start', () => {
  it('takes an ISO instant, from the flag or CARD_SANDBOX_CLOCK_START, the flag first', () => {
    expect(optionsOf(['--clock-start', '2026-03-01T09:00:00Z']).clockStart).toBe(
      '2026-03-01T09:00:00Z',
    )
    const env = { CARD_SANDBOX_CLOCK_START: '2026-04-01T00:00:00Z' }
    expect(optionsOf([], env).clockStart).toBe('2026-04-01T00:00:00Z')
    expect(optionsOf(['--clock-start', '2026-05-01T00:00:00Z'], env).clockStart).toBe(
      '2026-05-01T00:00:00Z',
    )
    expect(optionsOf([]).clockStart).toBeUndefined()
  })

  it('refuses what is not an instant, naming the flag', () => {
    expect(() => optionsOf(['--clock-start', 'tomorrow'])).toThrow(FlagError)
    expect(() => optionsOf(['--clock-start', '2026-03-01'])).toThrow(/--clock-start must be/)
  })
})

describe('--cors', () => {
  it('takes a comma-separated list of origins, or *', () => {
    expect(optionsOf(['--cors', 'http://localhost:5173, https://app.test']).cors).toEqual([
      'http://localhost:5173',
      'https://app.test',
    ])
    expect(optionsOf([], { CARD_SANDBOX_CORS: '*' }).cors).toEqual(['*'])
    expect(optionsOf([]).cors).toBeUndefined()
  })

  it('refuses a path or a bare host, naming the flag', () => {
    expect(() => optionsOf(['--cors', 'localhost:5173'])).toThrow(/--cors: "localhost:5173"/)
    expect(() => optionsOf(['--cors', 'http://a.test/x'])).toThrow(FlagError)
  })
})

describe('--exit-with-parent', () => {
  const exitWithParent = (argv: string[], env: NodeJS.ProcessEnv = {}) => {
    const command = parseFlags(argv, env)
    if (command.kind !== 'run') throw new Error(command.kind)
    return command.exitWithParent
  }

  it('is off unless the flag or CARD_SANDBOX_EXIT_WITH_PARENT turns it on, the flag first', () => {
    expect(exitWithParent([])).toBe(false)
    expect(exitWithParent(['--exit-with-parent', 'on'])).toBe(true)
    const env = { CARD_SANDBOX_EXIT_WITH_PARENT: 'on' }
    expect(exitWithParent([], env)).toBe(true)
    expect(exitWithParent(['--exit-with-parent', 'off'], env)).toBe(false)
  })

  it('is a property of the serving process, not a sandbox option', () => {
    expect(optionsOf(['--exit-with-parent', 'on'])).not.toHaveProperty('exitWithParent')
  })

  it('refuses anything but on or off, naming the flag', () => {
    expect(() => exitWithParent(['--exit-with-parent', 'yes'])).toThrow(
      '--exit-with-parent must be one of on, off (got "yes")',
    )
  })
})

describe('--db-wait', () => {
  it('takes a duration, from the flag or CARD_SANDBOX_DB_WAIT, the flag first; 0 by default', () => {
    expect(optionsOf(['--db-wait', '60s']).dbWaitMs).toBe(60_000)
    expect(optionsOf([], { CARD_SANDBOX_DB_WAIT: '2m' }).dbWaitMs).toBe(120_000)
    expect(optionsOf(['--db-wait', '1500ms'], { CARD_SANDBOX_DB_WAIT: '2m' }).dbWaitMs).toBe(1500)
    expect(optionsOf(['--db-wait', '250']).dbWaitMs).toBe(250)
    expect(optionsOf([]).dbWaitMs).toBe(0)
  })

  it('refuses what is not a duration, naming the flag', () => {
    expect(() => optionsOf(['--db-wait', 'soon'])).toThrow(FlagError)
    expect(() => optionsOf(['--db-wait', '5 seconds'])).toThrow(/--db-wait must be a duration/)
  })
})
