import { describe, expect, it } from 'vitest'
import { requestHeaders } from '../../src/journal/entry.js'
import {
  createJournal,
  MAX_BODY_CHARS,
  MAX_BYTES_PER_TENANT,
  MAX_ENTRIES_PER_TENANT,
  MAX_TENANTS,
  type Arrival,
} from '../../src/journal/journal.js'

const arrival = (tenantId: string, path: string, body: string | null = null): Arrival => ({
  tenantId,
  at: 0,
  wallAt: 0,
  method: 'POST',
  path,
  query: '',
  status: 200,
  latencyMs: 1,
  headers: ['Host', 'localhost', 'Authorization', 'Bearer a-long-token-1234'],
  requestBody: body,
  responseBody: null,
})

const paths = (records: { path: string }[]) => records.map((r) => r.path)

describe('the request journal', () => {
  it('keeps the last entries of a tenant, newest first, once the ring has gone round', () => {
    const journal = createJournal()
    const total = MAX_ENTRIES_PER_TENANT * 2 + 3
    for (let i = 0; i < total; i++) journal.record(arrival('t', `/${i}`))
    const kept = journal.find('t')
    expect(kept).toHaveLength(MAX_ENTRIES_PER_TENANT)
    expect(kept[0].path).toBe(`/${total - 1}`)
    expect(kept.at(-1)!.path).toBe(`/${total - MAX_ENTRIES_PER_TENANT}`)
    expect(kept[0].seq - kept[1].seq).toBe(1)
  })

  it('drops the oldest bodies past its byte budget, but keeps the newest entry whatever its size', () => {
    const journal = createJournal()
    const body = 'x'.repeat(MAX_BODY_CHARS)
    const fit = Math.floor(MAX_BYTES_PER_TENANT / (MAX_BODY_CHARS + 256))
    for (let i = 0; i < fit + 10; i++) journal.record(arrival('t', `/${i}`, body))
    const kept = journal.find('t')
    expect(kept).toHaveLength(fit)
    expect(kept[0].path).toBe(`/${fit + 9}`)
    expect(kept.at(-1)!.path).toBe('/10')
  })

  it('cuts a body at MAX_BODY_CHARS and masks secrets and the bearer token before keeping them', () => {
    const journal = createJournal()
    const secret = `{"card_number":"4111111111111111","cvv2":"123","x":"${'y'.repeat(MAX_BODY_CHARS)}"}`
    const headers = ['authorization', 'Bearer a-long-token-1234', 'X-Other', 'kept']
    journal.record({ ...arrival('t', '/'), headers, requestBody: secret })
    const [kept] = journal.find('t')
    expect(kept.requestBody).toHaveLength(MAX_BODY_CHARS)
    expect(kept.requestBody).toContain('"card_number":"************1111","cvv2":"***"')
    expect(requestHeaders(kept)).toEqual({
      authorization: 'Bearer *************1234',
      'x-other': 'kept',
    })
    // the caller's list is not touched
    expect(headers[1]).toBe('Bearer a-long-token-1234')
  })

  it('masks the same body again when it comes back, and a different one afresh', () => {
    const journal = createJournal()
    const one = '{"card_number":"4111111111111111"}'
    const two = '{"card_number":"5200000000001096"}'
    const bodies = [one, one, two, one].map((body) => {
      journal.record({ ...arrival('t', '/'), responseBody: body })
      return journal.find('t')[0].responseBody
    })
    expect(bodies).toEqual([
      '{"card_number":"************1111"}',
      '{"card_number":"************1111"}',
      '{"card_number":"************1096"}',
      '{"card_number":"************1111"}',
    ])
  })

  it('keeps the journals of the MAX_TENANTS most recently active tenants', () => {
    const journal = createJournal()
    for (let i = 0; i < MAX_TENANTS; i++) journal.record(arrival(`t${i}`, '/'))
    journal.record(arrival('t0', '/again'))
    journal.record(arrival('new', '/'))
    expect(paths(journal.find('t0'))).toEqual(['/again', '/'])
    expect(journal.find('t1')).toEqual([])
    expect(paths(journal.find('new'))).toEqual(['/'])
  })

  it('forgets a cleared tenant, and starts it again from empty', () => {
    const journal = createJournal()
    journal.record(arrival('t', '/a'))
    journal.clear('t')
    expect(journal.find('t')).toEqual([])
    journal.record(arrival('t', '/b'))
    expect(paths(journal.find('t'))).toEqual(['/b'])
  })
})

describe('the request journal: every field, the budget at its edge, the filters', () => {
  it('keeps every field of every record in order, after the ring has gone round', () => {
    const journal = createJournal()
    const total = MAX_ENTRIES_PER_TENANT + 5
    for (let i = 0; i < total; i++)
      journal.record({
        ...arrival('t', `/p${i}`),
        method: i % 2 ? 'GET' : 'POST',
        at: 1000 + i,
        wallAt: 2000 + i,
        status: 200 + (i % 3),
        latencyMs: i / 4,
        query: `?i=${i}`,
        requestBody: `req ${i}`,
        responseBody: `res ${i}`,
      })
    const kept = journal.find('t')
    expect(kept).toHaveLength(MAX_ENTRIES_PER_TENANT)
    kept.forEach((record, k) => {
      const i = total - 1 - k
      expect(record).toEqual({
        seq: i + 1,
        at: 1000 + i,
        wallAt: 2000 + i,
        status: 200 + (i % 3),
        latencyMs: i / 4,
        method: i % 2 ? 'GET' : 'POST',
        path: `/p${i}`,
        query: `?i=${i}`,
        headers: 'Host\nlocalhost\nAuthorization\nBearer *************1234',
        requestBody: `req ${i}`,
        responseBody: `res ${i}`,
      })
    })
  })

  it('keeps records whose bodies fill the byte budget exactly, and drops one past it', () => {
    const journal = createJournal()
    // each record counts its two bodies and 256: 32 of 128 KiB are the 4 MiB budget
    const size = MAX_BYTES_PER_TENANT / 32
    const record = (i: number, extra = 0) =>
      journal.record({
        ...arrival('t', `/${i}`),
        requestBody: 'q'.repeat(MAX_BODY_CHARS),
        responseBody: 'r'.repeat(size - MAX_BODY_CHARS - 256 + extra),
      })
    for (let i = 0; i < 32; i++) record(i)
    expect(journal.find('t')).toHaveLength(32)
    record(32, 1)
    expect(paths(journal.find('t')).at(-1)).toBe('/2')
  })

  it('records each request’s own headers, none, fewer than the last, or another Authorization', () => {
    const journal = createJournal()
    const headersOf = (headers: string[]) => {
      journal.record({ ...arrival('t', '/'), headers })
      return requestHeaders(journal.find('t')[0])
    }
    expect(headersOf([])).toEqual({})
    expect(journal.find('t')[0].headers).toBe('')
    expect(headersOf(['Host', 'a', 'Accept', 'json'])).toEqual({ host: 'a', accept: 'json' })
    expect(headersOf(['Host', 'a'])).toEqual({ host: 'a' })
    expect(headersOf(['Host', 'b'])).toEqual({ host: 'b' })
    expect(
      headersOf(['Cache-Control', 'no-cache', 'AUTHORIZATION', 'Bearer tok-abcdefgh']),
    ).toEqual({ 'cache-control': 'no-cache', authorization: 'Bearer ********efgh' })
  })

  it('keeps an empty body as none', () => {
    const journal = createJournal()
    journal.record({ ...arrival('t', '/'), requestBody: '', responseBody: '' })
    expect(journal.find('t')[0]).toMatchObject({ requestBody: null, responseBody: null })
  })

  it('filters by method in any case, by a path with * and dots as dots, by a status or its class', () => {
    const journal = createJournal()
    const seed: [string, string, number][] = [
      ['GET', '/v1/cards/c.1', 200],
      ['POST', '/v1/cards/cX1', 201],
      ['GET', '/v1/payments', 404],
      ['POST', '/v1/cards/create', 503],
    ]
    for (const [method, path, status] of seed)
      journal.record({ ...arrival('t', path), method, status })
    const found = (filter: object) => paths(journal.find('t', filter))
    expect(found({ method: 'get' })).toEqual(['/v1/payments', '/v1/cards/c.1'])
    expect(found({ path: '/v1/cards/c.1' })).toEqual(['/v1/cards/c.1'])
    expect(found({ path: '/v1/cards/*' })).toEqual([
      '/v1/cards/create',
      '/v1/cards/cX1',
      '/v1/cards/c.1',
    ])
    expect(found({ path: '/v1/cards' })).toEqual([])
    expect(found({ status: '201' })).toEqual(['/v1/cards/cX1'])
    expect(found({ status: '2xx' })).toEqual(['/v1/cards/cX1', '/v1/cards/c.1'])
    expect(found({ status: '5XX' })).toEqual(['/v1/cards/create'])
    expect(found({ status: '24xx' })).toEqual([])
    expect(found({ status: '2xx1' })).toEqual([])
    expect(found({ method: 'POST', status: '2xx' })).toEqual(['/v1/cards/cX1'])
    expect(journal.find('nobody', {})).toEqual([])
  })
})
