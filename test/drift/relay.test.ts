/** relay.ts's pure parts, called directly: the upstream's base URL checked, the headers forwarded. */
import { describe, expect, it } from 'vitest'
import { forwardHeaders, upstreamBase } from '../../src/drift/relay.js'

describe('upstreamBase', () => {
  it('says what is not a URL at all', () => {
    expect(() => upstreamBase('api.example.com/v1')).toThrow(
      new Error('upstream must be an http(s) URL (got "api.example.com/v1")'),
    )
  })

  it('takes http and https only, the whole scheme', () => {
    expect(() => upstreamBase('xhttp://api.example.com/v1')).toThrow(
      new Error('upstream must be an http(s) URL (got "xhttp://api.example.com/v1")'),
    )
    expect(upstreamBase('https://api.example.com/v1').href).toBe('https://api.example.com/v1')
  })

  it('drops every trailing slash, and only those', () => {
    expect(upstreamBase('http://127.0.0.1:8080/api/v1//').pathname).toBe('/api/v1')
  })
})

describe('forwardHeaders', () => {
  it('keeps names as sent and repeats as a list; drops Host, hop-by-hop, proxy-* and what Connection names', () => {
    expect(
      forwardHeaders([
        'Host',
        'proxy.local',
        'Accept',
        'x-token',
        'X-Token',
        'abc',
        'X-Tag',
        'a',
        'X-Tag',
        'b',
        'X-Tag',
        'c',
        'Connection',
        'keep-alive, X-Drop , ',
        'X-Drop',
        '1',
        'Keep-Alive',
        'timeout=5',
        'Proxy-Authorization',
        'Basic eDp5',
        'Transfer-Encoding',
        'chunked',
      ]),
    ).toStrictEqual({ Accept: 'x-token', 'X-Token': 'abc', 'X-Tag': ['a', 'b', 'c'] })
  })
})
