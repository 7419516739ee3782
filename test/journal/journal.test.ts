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
