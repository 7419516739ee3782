/**
 * The console log (src/lib/logger.ts): pretty and JSON lines as `--log` prints them, the token
 * masked in both, and `--log silent` printing only what must be seen. Not on a terminal here,
 * so pretty lines carry no colour codes.
 */
import { describe, expect, it, vi } from 'vitest'
import { createLogger, paint, type LogFormat, type LogLine } from '../../src/lib/logger.js'

/** 2026-03-04T05:06:07.089Z: the wall clock every line below is printed at. */
const WALL = Date.UTC(2026, 2, 4, 5, 6, 7, 89)

function logged(format: LogFormat, ...lines: LogLine[]): string[] {
  const written: string[] = []
  const logger = createLogger(
    format,
    (text) => written.push(text),
    () => WALL,
  )
  for (const line of lines) logger.log(line)
  return written
}

describe('pretty lines', () => {
  it('print the wall time, the masked tenant in a column of 16, and the text', () => {
    expect(
      logged('pretty', {
        event: 'request',
        tenant: 'tenant-token-1234',
        text: 'GET /v1/cards 200',
      }),
    ).toEqual([`05:06:07.089 …${'*'.repeat(11)}1234 GET /v1/cards 200\n`])
    expect(logged('pretty', { event: 'request', tenant: 'short', text: 'x' })).toEqual([
      '05:06:07.089 *****            x\n',
    ])
    // a masked token of exactly 16 characters is shown whole
    expect(
      logged('pretty', { event: 'request', tenant: 'a'.repeat(12) + 'wxyz', text: 'x' }),
    ).toEqual([`05:06:07.089 ${'*'.repeat(12)}wxyz x\n`])
  })

  it('show a dash for a line without a tenant, and say warnings and errors', () => {
    expect(
      logged(
        'pretty',
        { event: 'request', tenant: null, text: 'GET / 401' },
        { event: 'warning', text: 'careful', level: 'warn' },
        { event: 'webhook', text: 'broke', level: 'error' },
        { event: 'event', text: 'fine', level: 'info' },
      ),
    ).toEqual([
      `05:06:07.089 ${'-'.padEnd(16)} GET / 401\n`,
      `05:06:07.089 ${'-'.padEnd(16)} warning: careful\n`,
      `05:06:07.089 ${'-'.padEnd(16)} error: broke\n`,
      `05:06:07.089 ${'-'.padEnd(16)} fine\n`,
    ])
  })

  it('print a block as it is, without time or tenant', () => {
    expect(
      logged('pretty', {
        event: 'listening',
        text: 'card-sandbox\n  on :4010',
        block: true,
        tenant: 'x',
      }),
    ).toEqual(['card-sandbox\n  on :4010\n'])
  })
})

describe('JSON lines', () => {
  it('carry the time, level, event, masked tenant, the fields and the sandbox time', () => {
    const [line] = logged('json', {
      event: 'webhook',
      level: 'warn',
      tenant: 'tenant-token-1234',
      text: 'not in JSON',
      fields: { status: 500, id: 'evt_1' },
      sandboxTime: Date.UTC(2026, 0, 1),
    })
    expect(line.endsWith('\n')).toBe(true)
    expect(JSON.parse(line)).toEqual({
      time: '2026-03-04T05:06:07.089Z',
      level: 'warn',
      event: 'webhook',
      tenant: '*************1234',
      status: 500,
      id: 'evt_1',
      sandbox_time: '2026-01-01T00:00:00.000Z',
    })
  })

  it('say info by default, a null tenant as null, and leave out what a line does not have', () => {
    const [withNull, without] = logged(
      'json',
      { event: 'request', tenant: null, text: 'x' },
      { event: 'listening', text: 'x' },
    ).map((line) => JSON.parse(line) as Record<string, unknown>)
    expect(withNull).toEqual({
      time: '2026-03-04T05:06:07.089Z',
      level: 'info',
      event: 'request',
      tenant: null,
    })
    expect(without).toEqual({ time: '2026-03-04T05:06:07.089Z', level: 'info', event: 'listening' })
  })
})

describe('--log silent', () => {
  it('prints only the lines that are always printed', () => {
    expect(
      logged(
        'silent',
        { event: 'request', text: 'GET / 200' },
        { event: 'listening', text: 'banner', always: true, block: true },
      ),
    ).toEqual(['banner\n'])
  })
})

describe('paint', () => {
  it('leaves text as it is off a terminal', () => {
    for (const kind of ['ok', 'warn', 'error', 'dim'] as const)
      expect(paint(kind, 'text')).toBe('text')
  })
})

describe('on a terminal', () => {
  /** logger.ts as loaded by a process whose stdout is a terminal (it reads that once, on load). */
  async function onTerminal() {
    const descriptor = Object.getOwnPropertyDescriptor(process.stdout, 'isTTY')
    Object.defineProperty(process.stdout, 'isTTY', { value: true, configurable: true })
    vi.resetModules()
    try {
      return await import('../../src/lib/logger.js')
    } finally {
      if (descriptor) Object.defineProperty(process.stdout, 'isTTY', descriptor)
      else delete (process.stdout as { isTTY?: boolean }).isTTY
      vi.resetModules()
    }
  }

  it('paints statuses green, warnings yellow, errors red and the rest dim', async () => {
    const { paint: painted } = await onTerminal()
    expect(painted('ok', '200')).toBe('\x1b[32m200\x1b[0m')
    expect(painted('warn', '404')).toBe('\x1b[33m404\x1b[0m')
    expect(painted('error', '500')).toBe('\x1b[31m500\x1b[0m')
    expect(painted('dim', 'time')).toBe('\x1b[2mtime\x1b[0m')
  })

  it('dims the time and the tenant of a pretty line, and colours its level', async () => {
    const { createLogger: terminalLogger } = await onTerminal()
    const written: string[] = []
    const logger = terminalLogger(
      'pretty',
      (text) => written.push(text),
      () => WALL,
    )
    logger.log({ event: 'warning', text: 'careful', level: 'warn' })
    logger.log({ event: 'webhook', text: 'broke', level: 'error', tenant: 'short' })
    expect(written).toEqual([
      `\x1b[2m05:06:07.089\x1b[0m \x1b[2m${'-'.padEnd(16)}\x1b[0m \x1b[33mwarning: \x1b[0mcareful\n`,
      `\x1b[2m05:06:07.089\x1b[0m \x1b[2m${'*****'.padEnd(16)}\x1b[0m \x1b[31merror: \x1b[0mbroke\n`,
    ])
  })
})

describe('the default output', () => {
  it('is stdout', () => {
    const write = vi.spyOn(process.stdout, 'write').mockImplementation(() => true)
    try {
      createLogger('json', undefined, () => WALL).log({ event: 'listening', text: 'x' })
      expect(write).toHaveBeenCalledWith(
        '{"time":"2026-03-04T05:06:07.089Z","level":"info","event":"listening"}\n',
      )
    } finally {
      write.mockRestore()
    }
  })
})
