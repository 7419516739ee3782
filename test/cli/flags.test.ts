/** The CLI's flags (src/cli/flags.ts): each one from the command line and its variable, its default, and what it refuses. */
import { describe, expect, it } from 'vitest'
import { FLAGS, FlagError, flagHelp, parseFlags } from '../../src/cli/flags.js'

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
    // an empty item (a trailing comma) is no origin
    expect(optionsOf(['--cors', 'https://app.test, ,']).cors).toEqual(['https://app.test'])
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

describe('every flag: its default, its variable, the command line first', () => {
  it('gives the documented defaults when nothing is set', () => {
    const command = parseFlags([])
    expect(command).toEqual({
      kind: 'run',
      pidFile: undefined,
      exitWithParent: false,
      options: {
        port: 4010,
        host: '127.0.0.1',
        allowedHosts: undefined,
        publicUrl: undefined,
        cors: undefined,
        db: ':memory:',
        dbWaitMs: 0,
        seed: undefined,
        tokens: undefined,
        speed: 1,
        clock: 'real',
        clockStart: undefined,
        quirks: true,
        sdkCompat: false,
        rateLimit: false,
        log: 'pretty',
        journal: true,
        scenarios: undefined,
        fixtures: undefined,
        webhookUrl: undefined,
        webhookSecret: undefined,
        webhookExtensions: false,
      },
    })
  })

  it('reads each flag from the command line', () => {
    const command = parseFlags([
      '--port=0',
      '--host=0.0.0.0',
      '--allowed-host=Proxy.Local:8080',
      '--allowed-host=sandbox',
      '--public-url=https://sandbox.example.com',
      '--db=/tmp/x.db',
      '--seed=42',
      '--tokens=a, b,,c',
      '--speed=0.5',
      '--clock=manual',
      '--quirks=off',
      '--sdk-compat=on',
      '--rate-limit=60',
      '--log=json',
      '--journal=off',
      '--scenario=a.yaml',
      '--scenario=b.json',
      '--fixtures=small',
      '--webhook-url=http://localhost:3000/hooks',
      '--webhook-secret=s3cret',
      '--webhook-extensions=on',
      '--pid-file=/tmp/sandbox.pid',
    ])
    expect(command).toMatchObject({
      kind: 'run',
      pidFile: '/tmp/sandbox.pid',
      options: {
        port: 0,
        host: '0.0.0.0',
        allowedHosts: ['proxy.local', 'sandbox'],
        publicUrl: 'https://sandbox.example.com',
        db: '/tmp/x.db',
        seed: 42,
        tokens: ['a', 'b', 'c'],
        speed: 0.5,
        clock: 'manual',
        quirks: false,
        sdkCompat: true,
        rateLimit: 60,
        log: 'json',
        journal: false,
        scenarios: ['a.yaml', 'b.json'],
        fixtures: 'small',
        webhookUrl: 'http://localhost:3000/hooks',
        webhookSecret: 's3cret',
        webhookExtensions: true,
      },
    })
  })

  it('reads each flag from its CARD_SANDBOX_ variable, lists comma-separated', () => {
    const env = {
      CARD_SANDBOX_PORT: '5000',
      CARD_SANDBOX_ALLOWED_HOST: ' proxy , ,box ',
      CARD_SANDBOX_SCENARIO: 'a.yaml,b.yaml',
      CARD_SANDBOX_TOKENS: 'x,y',
      CARD_SANDBOX_RATE_LIMIT: '1000000',
      CARD_SANDBOX_WEBHOOK_EXTENSIONS: 'on',
      CARD_SANDBOX_PID_FILE: '/run/s.pid',
      CARD_SANDBOX_SEED: '0',
    }
    const command = parseFlags([], env)
    expect(command).toMatchObject({
      pidFile: '/run/s.pid',
      options: {
        port: 5000,
        allowedHosts: ['proxy', 'box'],
        scenarios: ['a.yaml', 'b.yaml'],
        tokens: ['x', 'y'],
        rateLimit: 1_000_000,
        webhookExtensions: true,
        seed: 0,
      },
    })
    // the command line wins, a repeatable flag's list too
    expect(parseFlags(['--port', '6000', '--scenario', 'c.yaml'], env)).toMatchObject({
      options: { port: 6000, scenarios: ['c.yaml'] },
    })
  })

  it('answers help and version, long and short, before reading any other flag', () => {
    expect(parseFlags(['--help', '--port', 'x'])).toEqual({ kind: 'help' })
    expect(parseFlags(['-h'])).toEqual({ kind: 'help' })
    expect(parseFlags(['--version'])).toEqual({ kind: 'version' })
    expect(parseFlags(['-v', '--clock', 'never'])).toEqual({ kind: 'version' })
  })
})

describe('what each flag refuses, naming it', () => {
  const refusal = (argv: string[], env: NodeJS.ProcessEnv = {}) => {
    try {
      parseFlags(argv, env)
    } catch (error) {
      expect(error).toBeInstanceOf(FlagError)
      return (error as Error).message
    }
    throw new Error(`${argv.join(' ')} was taken`)
  }

  it('a port outside 0 to 65535 or not a whole number', () => {
    expect(optionsOf(['--port', '65535']).port).toBe(65535)
    expect(refusal(['--port', '65536'])).toBe(
      '--port must be a whole number from 0 to 65535 (got "65536")',
    )
    expect(refusal(['--port=-1'])).toMatch(/^--port must be/)
    expect(refusal(['--port', '80.5'])).toMatch(/^--port must be/)
    expect(refusal(['--port', ' 80'])).toMatch(/^--port must be/)
    expect(refusal(['--port', '80x'])).toMatch(/^--port must be/)
    expect(refusal(['--port', ''])).toMatch(/^--port must be/)
  })

  it('a seed beyond 2^31 - 1, a rate limit below 1 or above a million', () => {
    expect(optionsOf(['--seed', String(2 ** 31 - 1)]).seed).toBe(2 ** 31 - 1)
    expect(refusal(['--seed', String(2 ** 31)])).toBe(
      `--seed must be a whole number from 0 to ${2 ** 31 - 1} (got "${2 ** 31}")`,
    )
    expect(optionsOf(['--rate-limit', '1']).rateLimit).toBe(1)
    expect(refusal(['--rate-limit', '0'])).toBe(
      '--rate-limit must be a whole number from 1 to 1000000 (got "0")',
    )
    expect(refusal(['--rate-limit', '1000001'])).toMatch(/^--rate-limit must be/)
    expect(refusal(['--rate-limit', 'on'])).toMatch(/^--rate-limit must be/)
  })

  it('a URL that is not http(s), has a space or does not parse', () => {
    expect(optionsOf(['--public-url', 'http://sandbox:4010']).publicUrl).toBe('http://sandbox:4010')
    expect(refusal(['--public-url', 'ftp://sandbox'])).toBe(
      '--public-url must be an http(s) URL (got "ftp://sandbox")',
    )
    expect(refusal(['--webhook-url', 'http://a b'])).toBe(
      '--webhook-url must be an http(s) URL (got "http://a b")',
    )
    expect(refusal(['--webhook-url', 'see http://a'])).toMatch(/^--webhook-url must be/)
    expect(refusal(['--webhook-url', 'xhttp://a'])).toMatch(/^--webhook-url must be/)
    expect(refusal(['--webhook-url', 'http://[::1'])).toMatch(/^--webhook-url must be/)
  })

  it('a Host name that is none', () => {
    expect(refusal(['--allowed-host', 'bad host'])).toBe(
      '--allowed-host must be a host name or address, as a Host header names it (got "bad host")',
    )
  })

  it('a speed that is not a number above 0', () => {
    expect(optionsOf(['--speed', '100']).speed).toBe(100)
    for (const speed of ['0', '-1', 'fast', 'Infinity'])
      expect(refusal([`--speed=${speed}`])).toBe(
        `--speed must be a number above 0 (got "${speed}")`,
      )
  })

  it('a value outside its list, for each flag with one', () => {
    expect(refusal(['--clock', 'fake'])).toBe('--clock must be one of real, manual (got "fake")')
    expect(refusal(['--quirks', 'yes'])).toBe('--quirks must be one of on, off (got "yes")')
    expect(refusal(['--sdk-compat', '1'])).toMatch(/^--sdk-compat must be one of on, off/)
    expect(refusal(['--log', 'debug'])).toBe(
      '--log must be one of pretty, json, silent (got "debug")',
    )
    expect(refusal(['--journal', 'no'])).toMatch(/^--journal must be one of on, off/)
    expect(refusal(['--webhook-extensions', 'all'])).toMatch(
      /^--webhook-extensions must be one of on, off/,
    )
  })

  it('a token list with no token in it', () => {
    expect(refusal(['--tokens', ' , '])).toBe('--tokens needs at least one token')
  })

  it('an unknown flag, with the nearest one, and a value given to none', () => {
    expect(refusal(['--prot', '4010'])).toBe('unknown flag --prot; did you mean --port?')
    expect(refusal(['--hepl'])).toBe('unknown flag --hepl; did you mean --help?')
    expect(refusal(['--versoin'])).toBe('unknown flag --versoin; did you mean --version?')
    expect(refusal(['--port'])).toMatch(/--port/)
    expect(refusal(['serve-now'])).toMatch(/serve-now/)
  })
})

describe('flagHelp', () => {
  it('gives a row a flag, its default and its variable', () => {
    const rows = JSON.stringify(flagHelp())
    expect(flagHelp()).toHaveLength(FLAGS.length)
    expect(rows).toContain('--port <n>')
    expect(rows).toContain('port to listen on; 0 picks a free one (default 4010)')
    expect(rows).toContain('env CARD_SANDBOX_PORT')
    expect(rows).toContain('env CARD_SANDBOX_EXIT_WITH_PARENT')
    // no default, no "(default …)"
    expect(rows).toMatch(/one tenant each\)"/)
  })
})
