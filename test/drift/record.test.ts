/**
 * The record file's lines (record.ts), called directly: what a line holds and masks, how a body
 * is kept (cut at 1 MiB, decoded, parsed), and a record file that cannot be written.
 */
import { mkdtempSync, readFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { brotliCompressSync, deflateSync, gzipSync } from 'node:zlib'
import { afterEach, describe, expect, it, vi } from 'vitest'
import type { Exchange, Finding } from '../../src/drift/compare.js'
import {
  Capture,
  headerRecord,
  RECORD_BODY_LIMIT,
  recordLine,
  recordWriter,
  type RelayedExchange,
} from '../../src/drift/record.js'

const dir = mkdtempSync(join(tmpdir(), 'card-sandbox-record-'))

afterEach(() => {
  vi.restoreAllMocks()
})

function capture(text: string | Buffer): Capture {
  const kept = new Capture()
  if (text.length) kept.add(Buffer.isBuffer(text) ? text : Buffer.from(text))
  return kept
}

/** An exchange that went through: a card created, its number and cvv2 in the answer. */
function exchange(over: Partial<RelayedExchange> = {}): RelayedExchange {
  return {
    arrived: Date.UTC(2026, 0, 2, 3, 4, 5, 678),
    ms: 12.34,
    method: 'POST',
    path: '/v1/cards/create',
    query: '?access_token=tok_live_abcdefgh1234',
    sentHeaders: { Authorization: 'Bearer sk_live_abcdefghijklmnop', 'X-Request-Id': ['a', 'b'] },
    requestBody: capture('{"card_number":"4111111111111111","amount":5}'),
    answerBody: capture('{"data":{"cvv2":"123","status":"active"}}'),
    status: 200,
    answerHeaders: { 'content-type': 'application/json' },
    ...over,
  }
}

const personalOff = { personal: false }

describe('recordLine', () => {
  it('holds every field of the exchange, masked: path and query, headers, bodies, findings', () => {
    const compared: Exchange[] = []
    const compare = (seen: Exchange): Finding[] => {
      compared.push(seen)
      return [
        {
          route: 'POST /v1/cards/create',
          path: '$.data.cvv2',
          kind: 'type',
          upstream: '123',
          sandbox: 'number',
        },
      ]
    }
    const line = recordLine(exchange(), personalOff, compare)
    // the comparison saw the raw answer, before masking
    expect(compared).toEqual([
      {
        method: 'POST',
        path: '/v1/cards/create',
        status: 200,
        headers: { 'content-type': 'application/json' },
        body: { data: { cvv2: '123', status: 'active' } },
      },
    ])
    expect(line).toStrictEqual({
      at: '2026-01-02T03:04:05.678Z',
      ms: 12.34,
      method: 'POST',
      path: '/v1/cards/create',
      query: '?access_token=*****************1234',
      request: {
        headers: { authorization: 'Bearer ********************mnop', 'x-request-id': 'a, b' },
        body: { card_number: '0000000000001111', amount: 5 },
      },
      status: 200,
      response: {
        headers: { 'content-type': 'application/json' },
        body: { data: { cvv2: '000', status: 'active' } },
      },
      findings: [
        {
          route: 'POST /v1/cards/create',
          path: '$.data.cvv2',
          kind: 'type',
          upstream: '000',
          sandbox: 'number',
        },
      ],
    })
  })

  it('an exchange the proxy answered itself records its own answer and the error, and is not compared', () => {
    const compare = vi.fn(() => [] as Finding[])
    const own = {
      message: 'The upstream http://127.0.0.1:9/v1 refused the connection (ECONNREFUSED).',
      statusCode: 502,
    }
    const line = recordLine(
      exchange({
        answerBody: capture('{"upstream":"never"}'),
        status: 502,
        answerHeaders: { 'content-type': 'application/json' },
        error: 'refused',
        ownBody: own,
      }),
      personalOff,
      compare,
    )
    expect(compare).not.toHaveBeenCalled()
    expect(line.status).toBe(502)
    expect(line.response).toStrictEqual({
      headers: { 'content-type': 'application/json' },
      body: own,
    })
    expect(line.error).toBe('refused')
    expect(line.findings).toEqual([])
  })

  it('says a cut body is truncated, on either side, and compares no cut answer', () => {
    const compare = vi.fn(() => [] as Finding[])
    const big = Buffer.alloc(RECORD_BODY_LIMIT + 1, 'a')
    const line = recordLine(
      exchange({ requestBody: capture(big), answerBody: capture(big), answerHeaders: {} }),
      personalOff,
      compare,
    )
    expect(compare).not.toHaveBeenCalled()
    expect(line.request.truncated).toBe(true)
    expect(line.response.truncated).toBe(true)
    expect(line.response.body).toBe('a'.repeat(RECORD_BODY_LIMIT))
    // a whole body has no truncated key at all
    const whole = recordLine(exchange(), personalOff, false)
    expect('truncated' in whole.request).toBe(false)
    expect('truncated' in whole.response).toBe(false)
    expect('error' in whole).toBe(false)
  })

  it('with compare false records no findings and says nothing', () => {
    const write = vi.spyOn(process.stderr, 'write').mockImplementation(() => true)
    const line = recordLine(exchange(), personalOff, false)
    expect(line.findings).toEqual([])
    expect(write).not.toHaveBeenCalled()
  })

  it('a comparison that throws is said on stderr, path masked, and the line has no findings', () => {
    const write = vi.spyOn(process.stderr, 'write').mockImplementation(() => true)
    const line = recordLine(exchange({ path: '/v1/cards/4111111111111111' }), personalOff, () => {
      throw new Error('boom')
    })
    expect(line.findings).toEqual([])
    expect(line.path).toBe('/v1/cards/0000000000001111')
    expect(write.mock.calls).toEqual([
      ['card-sandbox proxy: the comparison of POST /v1/cards/0000000000001111 failed: boom\n'],
    ])
  })
})

describe('recordWriter', () => {
  it('appends one JSON line per call', () => {
    const file = join(dir, 'lines.jsonl')
    const write = recordWriter(file)
    const line = recordLine(exchange(), personalOff, false)
    write(line)
    write({ ...line, status: 201 })
    const lines = readFileSync(file, 'utf8').split('\n')
    expect(lines).toHaveLength(3)
    expect(lines[2]).toBe('')
    expect(JSON.parse(lines[0])).toEqual(line)
    expect((JSON.parse(lines[1]) as { status: number }).status).toBe(201)
  })

  it('writes nothing without a file', () => {
    const write = vi.spyOn(process.stderr, 'write').mockImplementation(() => true)
    recordWriter(undefined)(recordLine(exchange(), personalOff, false))
    expect(write).not.toHaveBeenCalled()
  })

  it('a file that cannot be written is said once on stderr, and each line after goes on quietly', () => {
    const write = vi.spyOn(process.stderr, 'write').mockImplementation(() => true)
    const file = join(dir, 'missing', 'r.jsonl')
    const writer = recordWriter(file)
    const line = recordLine(exchange(), personalOff, false)
    expect(() => writer(line)).not.toThrow()
    writer(line)
    writer(line)
    expect(write.mock.calls).toEqual([
      [
        `card-sandbox proxy: cannot write --record ${file}: ENOENT: no such file or directory, open '${file}'\n`,
      ],
    ])
  })
})

describe('headerRecord', () => {
  it('lower-cases names, joins repeats with ", ", writes numbers as text, and leaves out undefined', () => {
    expect(
      headerRecord({
        'X-Tag': ['a', 'b'],
        'Content-Length': 12,
        'X-None': undefined,
        Accept: '*/*',
      }),
    ).toStrictEqual({ 'x-tag': 'a, b', 'content-length': '12', accept: '*/*' })
  })
})

describe('Capture', () => {
  it('keeps a body of exactly 1 MiB whole, in chunks, and cuts at the first byte past it', () => {
    const kept = new Capture()
    kept.add(Buffer.alloc(RECORD_BODY_LIMIT - 1, 'a'))
    kept.add(Buffer.from('b'))
    expect(kept.truncated).toBe(false)
    expect(kept.body({})).toBe('a'.repeat(RECORD_BODY_LIMIT - 1) + 'b')
    kept.add(Buffer.from('c'))
    expect(kept.truncated).toBe(true)
    expect(kept.body({})).toBe('a'.repeat(RECORD_BODY_LIMIT - 1) + 'b')
  })

  it('keeps the first part of a chunk that goes past 1 MiB', () => {
    const kept = new Capture()
    kept.add(Buffer.from('xy'))
    kept.add(Buffer.alloc(RECORD_BODY_LIMIT, 'z'))
    expect(kept.truncated).toBe(true)
    expect(kept.body({})).toBe('xy' + 'z'.repeat(RECORD_BODY_LIMIT - 2))
  })

  it('an empty body is null', () => {
    expect(new Capture().body({ 'content-type': 'application/json' })).toBe(null)
  })

  it('parses JSON by its type (any case) or by its first character, else keeps the text', () => {
    expect(capture('42').body({ 'content-type': 'Application/JSON; charset=utf-8' })).toBe(42)
    expect(capture('42').body({ 'content-type': 'text/plain' })).toBe('42')
    expect(capture('42').body({})).toBe('42')
    expect(capture('{"a":1}').body({})).toEqual({ a: 1 })
    expect(capture(' \n[1]').body({ 'content-type': 'text/plain' })).toEqual([1])
    expect(capture('hello').body({ 'content-type': 'application/json' })).toBe('hello')
  })

  it('keeps a cut JSON body as text even where the cut still parses', () => {
    const kept = capture(Buffer.from('{"a":1}' + ' '.repeat(RECORD_BODY_LIMIT)))
    expect(kept.truncated).toBe(true)
    expect(kept.body({ 'content-type': 'application/json' })).toBe(
      '{"a":1}' + ' '.repeat(RECORD_BODY_LIMIT - 7),
    )
  })

  it('decodes gzip, x-gzip, deflate and br, the encoding named in any case and spacing', () => {
    const json = { data: { status: 'active' } }
    const bytes = Buffer.from(JSON.stringify(json))
    const type = { 'content-type': 'application/json' }
    expect(capture(gzipSync(bytes)).body({ ...type, 'content-encoding': 'gzip' })).toEqual(json)
    expect(capture(gzipSync(bytes)).body({ ...type, 'content-encoding': ' X-GZIP ' })).toEqual(json)
    expect(capture(deflateSync(bytes)).body({ ...type, 'content-encoding': 'deflate' })).toEqual(
      json,
    )
    expect(capture(brotliCompressSync(bytes)).body({ ...type, 'content-encoding': 'br' })).toEqual(
      json,
    )
    expect(capture(bytes).body({ ...type, 'content-encoding': 'identity' })).toEqual(json)
  })

  it('says what it could not decode, an encoding it does not know, or a cut encoded body', () => {
    expect(capture('not gzip').body({ 'content-encoding': 'gzip' })).toBe(
      '(gzip body, not decoded)',
    )
    expect(capture(deflateSync('x')).body({ 'content-encoding': 'gzip' })).toBe(
      '(gzip body, not decoded)',
    )
    expect(capture('{"a":1}').body({ 'content-encoding': 'zstd' })).toBe('(zstd body, not decoded)')
    const cut = capture(Buffer.alloc(RECORD_BODY_LIMIT + 1))
    expect(cut.body({ 'content-encoding': 'gzip' })).toBe(
      `(gzip body over ${RECORD_BODY_LIMIT} bytes, not kept)`,
    )
  })

  it('does not decode past 1 MiB: a small gzip of a bigger body is not decoded', () => {
    const bomb = gzipSync(Buffer.alloc(RECORD_BODY_LIMIT + 1, ' '))
    expect(bomb.length).toBeLessThan(RECORD_BODY_LIMIT)
    expect(capture(bomb).body({ 'content-encoding': 'gzip' })).toBe('(gzip body, not decoded)')
  })
})
