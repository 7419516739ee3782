/**
 * "Did you mean" (src/cli/suggest.ts): the edit distance, the nearest name near enough to be a
 * typo, and an unknown-flag error of node's parseArgs in the command's words.
 */
import { describe, expect, it } from 'vitest'
import { FlagError, parseFlags } from '../../src/cli/flags.js'
import { editDistance, flagErrorMessage, nearest } from '../../src/cli/suggest.js'

/** serve's flag error for `argv`: what `card-sandbox <argv>` says. */
function flagError(argv: string[]): string {
  try {
    parseFlags(argv, {})
  } catch (error) {
    if (error instanceof FlagError) return error.message
    throw error
  }
  throw new Error(`${argv.join(' ')} parsed`)
}

describe('nearest', () => {
  it('counts insertions, deletions, substitutions and a swap of neighbours as one edit each', () => {
    expect(editDistance('port', 'port')).toBe(0)
    expect(editDistance('prot', 'port')).toBe(1)
    expect(editDistance('prt', 'port')).toBe(1)
    expect(editDistance('poort', 'port')).toBe(1)
    expect(editDistance('pory', 'port')).toBe(1)
    expect(editDistance('trigerr', 'trigger')).toBe(2)
    expect(editDistance('', 'db')).toBe(2)
    expect(editDistance('db', '')).toBe(2)
    // a swap is of two neighbours, each where the other was
    expect(editDistance('cors', 'host')).toBe(3)
  })

  it('takes the nearest name within a third of the typed length (one edit up to five)', () => {
    expect(nearest('prot', ['host', 'port', 'seed'])).toBe('port')
    expect(nearest('hots', ['host', 'port'])).toBe('host')
    expect(nearest('trigerr', ['trigger', 'transition'])).toBe('trigger')
    expect(nearest('PORT', ['port'])).toBe('port')
    // two edits in a four-letter name is another word
    expect(nearest('pt', ['port'])).toBeUndefined()
    expect(nearest('cork', ['port', 'cors'])).toBe('cors')
    expect(nearest('frobnicate', ['port', 'host', 'fixtures'])).toBeUndefined()
    // the one name a typed one begins
    expect(nearest('forward', ['forward-to', 'url', 'token'])).toBe('forward-to')
    expect(nearest('webhook', ['webhook-url', 'webhook-secret'])).toBeUndefined()
    expect(nearest('po', ['port'])).toBeUndefined()
  })

  it('takes the nearest of the names near enough, the first of two as near', () => {
    expect(nearest('quirkz', ['quick', 'quirks'])).toBe('quirks')
    expect(nearest('quirkz', ['quirks', 'quick'])).toBe('quirks')
    expect(nearest('hots', ['host', 'hot'])).toBe('host')
    // three letters are enough to begin a name
    expect(nearest('for', ['forward-to', 'url', 'token'])).toBe('forward-to')
  })
})

describe('flagErrorMessage', () => {
  it('suggests nothing for a four-letter flag two edits from one: --hook is not --host', () => {
    expect(editDistance('hook', 'host')).toBe(2)
    expect(nearest('hook', ['host', 'port', 'log'])).toBeUndefined()
    expect(flagError(['--hook', 'x'])).toBe('unknown flag --hook')
    // one edit away: the flag it meant
    expect(flagError(['--hots', 'x'])).toBe('unknown flag --hots; did you mean --host?')
  })

  it("names the flag as typed, with or without a value, among the command's own", () => {
    expect(flagError(['--prot=4010'])).toBe('unknown flag --prot; did you mean --port?')
    expect(flagError(['--webhook-secrte', 's'])).toBe(
      'unknown flag --webhook-secrte; did you mean --webhook-secret?',
    )
    // a single letter is no name to be near
    expect(flagError(['-x'])).toBe('unknown flag -x')
  })

  it('keeps the message of any other error', () => {
    expect(flagErrorMessage(new Error('--port must be a number'), ['port'])).toBe(
      '--port must be a number',
    )
  })
})
