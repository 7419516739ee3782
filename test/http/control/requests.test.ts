import { describe, expect, it } from 'vitest'
import { MAX_ENTRIES_PER_TENANT } from '../../../src/journal/journal.js'
import { MAX_JSON_DEPTH } from '../../../src/lib/json-depth.js'
import { maskJsonSecrets } from '../../../src/lib/masking.js'
import { parseFlags } from '../../../src/cli/flags.js'
import { newSandbox, TOKEN } from '../../helpers.js'

describe('GET /__sandbox/requests (the request journal)', () => {
  it('records what the client sent and what it got, newest first, with the tenant clock', async () => {
    const s = newSandbox()
    const started = performance.now()
    const user = await s.verifiedUser()
    await s.call('POST', '/v1/cards/create', {
      card_user_reference: user,
      card_brand: 'visa',
      card_type: 'virtual',
    })
    await s.call('GET', '/v1/cards?per_page=5')
    const elapsedMs = performance.now() - started

    const journal = await s.call('GET', '/__sandbox/requests')
    expect(journal.status).toBe(200)
    expect(journal.body.data.map((e: any) => `${e.method} ${e.path} ${e.status}`)).toEqual([
      'GET /v1/cards 200',
      'POST /v1/cards/create 200',
      `POST /__sandbox/card-users/${user}/transition 200`,
      'POST /v1/card-users/create 200',
    ])
    const [list, create] = journal.body.data
    expect(list.query).toBe('?per_page=5')
    expect(create.query).toBe('') // no query: not the path's last character
    // in milliseconds, each within the time the four requests took as this test saw it (no bound
    // of its own: a loaded machine takes seconds)
    for (const entry of journal.body.data) {
      expect(entry.latency_ms).toBeGreaterThanOrEqual(0)
      expect(entry.latency_ms).toBeLessThanOrEqual(elapsedMs)
    }
    expect(create.request.body).toEqual({
      card_user_reference: user,
      card_brand: 'visa',
      card_type: 'virtual',
    })
    expect(create.request.headers['content-type']).toBe('application/json')
    expect(create.response.body.message).toBe('Card is being generated')
    expect(create.latency_ms).toBeGreaterThanOrEqual(0)
    const clock = await s.call('GET', '/__sandbox/clock')
    expect(create.at).toBe(new Date(clock.body.data.now).toISOString())
    expect(journal.body.meta).toMatchObject({ total: 4, current_page: 1 })
  })

  it('records the wall time of each request beside its sandbox time', async () => {
    const s = newSandbox()
    const before = Date.now()
    await s.call('GET', '/v1/cards')
    await new Promise((resolve) => setTimeout(resolve, 30))
    await s.call('GET', '/v1/card-users')
    const after = Date.now()
    const [second, first] = (await s.call('GET', '/__sandbox/requests')).body.data
    // the manual clock stood still; the machine's did not
    expect(second.at).toBe(first.at)
    expect(Date.parse(first.wall_at)).toBeGreaterThanOrEqual(before)
    expect(Date.parse(second.wall_at) - Date.parse(first.wall_at)).toBeGreaterThanOrEqual(30)
    expect(Date.parse(second.wall_at)).toBeLessThanOrEqual(after)
    expect(second.wall_at).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/)
  })

  it('masks card numbers, cvv2 and the bearer token', async () => {
    const s = newSandbox()
    const card = await s.issuedCard()
    await s.call('POST', '/v1/cards/freeze', { reference: card.reference })
    await s.call('GET', '/v1/cards', undefined, { token: 'a-long-token-9876' })
    const shown = await s.call('POST', '/v1/cards/unfreeze', { reference: card.reference })

    const journal = await s.call('GET', '/__sandbox/requests?path=/v1/cards/unfreeze')
    const entry = journal.body.data[0]
    const number: string = shown.body.data.card.card_number
    expect(entry.response.body.data.card.card_number).toBe('*'.repeat(12) + number.slice(-4))
    expect(entry.response.body.data.card.cvv2).toBe('***')
    expect(JSON.stringify(journal.body)).not.toContain(number)
    expect(entry.request.headers.authorization).toBe('Bearer ******oken')

    const other = await s.call('GET', '/__sandbox/requests', undefined, {
      token: 'a-long-token-9876',
    })
    expect(other.body.data[0].request.headers.authorization).toBe('Bearer *************9876')
  })

  it('masks card numbers and cvv2 in what the client sent, too', async () => {
    const s = newSandbox()
    // a client that posts card data where it should not (refused, and recorded)
    const sent = await s.call('POST', '/v1/cards/freeze', {
      reference: 'not-a-uuid',
      card: { card_number: '4111111111111111', cvv2: 123 },
    })
    expect(sent.status).toBe(422)
    const [entry] = (await s.call('GET', '/__sandbox/requests')).body.data
    expect(entry.path).toBe('/v1/cards/freeze')
    expect(entry.request.body).toEqual({
      reference: 'not-a-uuid',
      card: { card_number: '************1111', cvv2: '***' },
    })
  })

  it('filters by method, path (with *) and status (exact or class)', async () => {
    const s = newSandbox()
    await s.call('POST', '/v1/cards/create', {})
    await s.call('GET', '/v1/cards')
    await s.call('GET', '/v1/transactions')
    const paths = async (query: string) =>
      (await s.call('GET', `/__sandbox/requests?${query}`)).body.data.map(
        (e: any) => `${e.method} ${e.path} ${e.status}`,
      )

    expect(await paths('method=post')).toEqual(['POST /v1/cards/create 422'])
    expect(await paths('path=/v1/cards*')).toEqual([
      'GET /v1/cards 200',
      'POST /v1/cards/create 422',
    ])
    expect(await paths('status=4xx')).toEqual(['POST /v1/cards/create 422'])
    expect(await paths('status=200&method=GET&path=*/transactions')).toEqual([
      'GET /v1/transactions 200',
    ])
    expect(await paths('per_page=1&page=2')).toEqual(['GET /v1/cards 200'])
    const bad = await s.call('GET', '/__sandbox/requests?status=abc&method=%20')
    expect(bad.status).toBe(422)
    expect(Object.keys(bad.body.errors).sort()).toEqual(['method', 'status'])
  })

  it('keeps each tenant to itself, and is emptied by a reset or DELETE', async () => {
    const s = newSandbox()
    await s.call('GET', '/v1/cards')
    await s.call('GET', '/v1/disputes', undefined, { token: 'other' })
    const mine = await s.call('GET', '/__sandbox/requests')
    expect(mine.body.data.map((e: any) => e.path)).toEqual(['/v1/cards'])

    await s.call('POST', '/__sandbox/reset')
    expect((await s.call('GET', '/__sandbox/requests')).body.data).toEqual([])
    await s.call('DELETE', '/__sandbox/requests', undefined, { token: 'other' })
    expect(
      (await s.call('GET', '/__sandbox/requests', undefined, { token: 'other' })).body.data,
    ).toEqual([])
  })

  it('is bounded: only the last entries are kept', async () => {
    const s = newSandbox()
    for (let i = 0; i < MAX_ENTRIES_PER_TENANT + 5; i++)
      await s.call('GET', `/v1/cards?page=${i + 1}`)
    const journal = await s.call('GET', '/__sandbox/requests?per_page=1')
    expect(journal.body.meta.total).toBe(MAX_ENTRIES_PER_TENANT)
    expect(journal.body.data[0].query).toBe(`?page=${MAX_ENTRIES_PER_TENANT + 5}`)
    const last = await s.call(
      'GET',
      `/__sandbox/requests?per_page=1&page=${MAX_ENTRIES_PER_TENANT}`,
    )
    expect(last.body.data[0].query).toBe('?page=6')
  })

  it('keeps a body nested 5,000 deep as its text, and the journal and the dashboard still answer', async () => {
    const s = newSandbox()
    const nested = '{"a":'.repeat(5000) + '1' + '}'.repeat(5000)
    const refused = await s.call('POST', '/v1/cards/create', undefined, {
      raw: nested,
      headers: { 'Content-Type': 'application/json' },
    })
    expect(refused.status).toBe(422)

    const journal = await s.call('GET', '/__sandbox/requests')
    expect(journal.status).toBe(200)
    expect(journal.body.data[0].request.body).toBe(nested)
    const panel = await s.app.request('/__sandbox/ui/panel', {
      headers: { Authorization: 'Bearer test-token' },
    })
    expect(panel.status).toBe(200)
    expect(await panel.text()).toContain('{&quot;a&quot;:{&quot;a&quot;:')
  })

  it(`parses a body back up to ${MAX_JSON_DEPTH} levels deep, and shows a deeper one as text`, async () => {
    const s = newSandbox()
    const nested = (levels: number) => `{"a":${'['.repeat(levels - 1)}${']'.repeat(levels - 1)}}`
    for (const raw of [nested(MAX_JSON_DEPTH), nested(MAX_JSON_DEPTH + 1)])
      await s.call('POST', '/v1/cards/create', undefined, {
        raw,
        headers: { 'Content-Type': 'application/json' },
      })
    const [deeper, deepest] = (await s.call('GET', '/__sandbox/requests')).body.data
    expect(deeper.request.body).toBe(nested(MAX_JSON_DEPTH + 1))
    expect(deepest.request.body).toEqual(JSON.parse(nested(MAX_JSON_DEPTH)))
  })

  it('does not record requests without a tenant', async () => {
    const s = newSandbox({ tokens: [TOKEN] })
    const refused = [
      await s.call('GET', '/v1/cards', undefined, { token: null }),
      await s.call('GET', '/v1/cards', undefined, { token: 'not-allowed' }),
    ]
    expect(refused.map((res) => res.status)).toEqual([401, 401])
    await s.call('GET', '/v1/payments')
    expect((await s.call('GET', '/__sandbox/requests')).body.data.map((e: any) => e.path)).toEqual([
      '/v1/payments',
    ])
  })
})

describe('--journal off', () => {
  it('keeps nothing: the read answers an empty page that says the journal is off', async () => {
    const s = newSandbox({ journal: false })
    const created = await s.call('POST', '/v1/card-users/create', { first_name: 'Awa' })
    expect(created.status).toBe(422)
    await s.call('GET', '/v1/cards')

    const journal = await s.call('GET', '/__sandbox/requests')
    expect(journal.status).toBe(200)
    expect(journal.body).toEqual({
      message: 'The request journal is off (--journal off): no request is kept.',
      statusCode: 200,
      data: [],
      meta: { current_page: 1, from: null, last_page: 1, per_page: 20, to: null, total: 0 },
    })
  })

  it('changes nothing else: the same answers, byte for byte, as with the journal on', async () => {
    const answers = async (journal: boolean) => {
      const s = newSandbox({ journal })
      const user = await s.verifiedUser()
      const body = { card_user_reference: user, card_brand: 'visa', card_type: 'virtual' }
      const created = await s.call('POST', '/v1/cards/create', body)
      const listed = await s.call('GET', '/v1/cards')
      return [created, listed].map((res) => [res.status, JSON.stringify(res.body)])
    }
    expect(await answers(false)).toEqual(await answers(true))
  })

  it('is said on the dashboard panel', async () => {
    const panel = async (journal: boolean) => {
      const s = newSandbox({ journal })
      await s.call('GET', '/v1/cards')
      const res = await s.app.request('/__sandbox/ui/panel', {
        headers: { Authorization: `Bearer ${TOKEN}` },
      })
      return res.text()
    }
    const off = await panel(false)
    expect(off).toContain('The request journal is off')
    expect(off).not.toContain('data-request=')
    const on = await panel(true)
    expect(on).not.toContain('The request journal is off')
    expect(on).toContain('data-request="req_1"')
  })

  it('is the --journal flag, or CARD_SANDBOX_JOURNAL; on by default', () => {
    const journalOf = (argv: string[], env = {}) => {
      const command = parseFlags(argv, env)
      return command.kind === 'run' ? command.options.journal : undefined
    }
    expect(journalOf([])).toBe(true)
    expect(journalOf(['--journal', 'off'])).toBe(false)
    expect(journalOf([], { CARD_SANDBOX_JOURNAL: 'off' })).toBe(false)
    expect(journalOf(['--journal', 'on'], { CARD_SANDBOX_JOURNAL: 'off' })).toBe(true)
    expect(() => parseFlags(['--journal', 'maybe'])).toThrow('--journal must be one of on, off')
  })
})

describe('maskJsonSecrets', () => {
  it('masks numbers and strings, whatever the spacing, and leaves the rest', () => {
    expect(maskJsonSecrets('{"card_number": "5200000000001096","cvv2":123,"x":"4111"}')).toBe(
      '{"card_number": "************1096","cvv2":"***","x":"4111"}',
    )
    expect(maskJsonSecrets('{"card_number":null}')).toBe('{"card_number":null}')
  })
})
