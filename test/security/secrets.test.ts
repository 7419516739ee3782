/**
 * Secrets on every read path: the webhook log, the
 * request journal that records its reads, the dashboard panel show no full card number, cvv2 or
 * token, while the receiver still gets the exact bytes, signed over them. The console log lines
 * (json and pretty) and the banner are checked on the built CLI in test/cli/cli.test.ts.
 */
import { createHmac } from 'node:crypto'
import { afterEach, describe, expect, it } from 'vitest'
import { maskToken } from '../../src/lib/masking.js'
import { newSandbox } from '../helpers.js'
import { startReceiver, until } from '../webhooks/receiver.js'

const cleanups: (() => unknown)[] = []
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup()
})

describe('secrets on every read path', () => {
  const TOKEN = 'masking-token-7a3c'
  const as = { token: TOKEN }
  /** cvv2 followed by a digit, through quotes, escapes, colons and spaces (JSON or HTML). */
  const CVV2_SHOWN = /cvv2(?:&quot;|&#34;|["\\:\s])*\d/

  it('masks card_creation.successful in the webhook log, the journal and the dashboard, while the receiver gets the exact signed bytes', async () => {
    const receiver = await startReceiver()
    const s = newSandbox()
    cleanups.push(
      () => receiver.close(),
      () => s.close(),
    )
    await s.call('PUT', '/__sandbox/webhook', { url: receiver.url }, as)
    const { reference } = await s.issuedCard('visa', TOKEN)
    await until(() => receiver.requests.some((r) => r.body.includes('card_creation.successful')))
    const sent = receiver.requests.find((r) => r.body.includes('card_creation.successful'))!
    // the API itself shows the card in full (freeze answers with it)
    const card = (await s.call('POST', '/v1/cards/freeze', { reference }, as)).body.data.card
    const cardNumber: string = card.card_number
    expect(cardNumber).toMatch(/^\d{16}$/)

    // the receiver: exact bytes, in clear, signed over them with the token
    const data = JSON.parse(sent.body).data
    expect(data.card_number).toBe(cardNumber)
    expect(data.cvv2).toBe(card.cvv2)
    expect(sent.headers['x-alal-signature']).toBe(
      createHmac('sha512', TOKEN).update(sent.body).digest('hex'),
    )

    // the webhook log
    const log = await s.call('GET', '/__sandbox/webhooks', undefined, as)
    const event = log.body.data.find((e: { type: string }) => e.type === 'card_creation.successful')
    expect(JSON.parse(event.body).data).toMatchObject({
      reference,
      card_number: '*'.repeat(12) + cardNumber.slice(-4),
      cvv2: '***',
    })
    expect(JSON.stringify(log.body)).not.toContain(cardNumber)
    expect(JSON.stringify(log.body)).not.toMatch(CVV2_SHOWN)

    // the journal, which recorded that read (and a read of the secret, the token by default)
    await s.call('GET', '/__sandbox/webhook', undefined, as)
    const journal = await s.call('GET', '/__sandbox/requests', undefined, as)
    const logRead = journal.body.data.find(
      (e: { path: string }) => e.path === '/__sandbox/webhooks',
    )
    expect(logRead.response.body.data.length).toBeGreaterThan(0)
    const secretRead = journal.body.data.find(
      (e: { path: string }) => e.path === '/__sandbox/webhook',
    )
    expect(secretRead.response.body.data.secret).toBe(maskToken(TOKEN))
    const journalText = JSON.stringify(journal.body)
    expect(journalText).not.toContain(cardNumber)
    expect(journalText).not.toMatch(CVV2_SHOWN)
    expect(journalText).not.toContain(TOKEN)

    // the dashboard panel: the webhook log with bodies, the journal, the tenant's header
    const panel = await s.app.request('/__sandbox/ui/panel', {
      headers: { Authorization: `Bearer ${TOKEN}` },
    })
    expect(panel.status).toBe(200)
    const html = await panel.text()
    expect(html).toContain('card_creation.successful')
    expect(html).toContain(cardNumber.slice(-4))
    expect(html).not.toContain(cardNumber)
    expect(html).not.toMatch(CVV2_SHOWN)
    expect(html).not.toContain(TOKEN)
    expect(html).toContain(maskToken(TOKEN))
  })

  it('masks the tenant token a posted scenario matches on, in the journal and the dashboard, while the rule keeps it', async () => {
    const s = newSandbox()
    cleanups.push(() => s.close())
    const scenario = {
      name: 'this-tenant-down',
      rules: [
        { match: { method: 'GET', path: '/v1/cards', tenant: TOKEN }, respond: { status: 503 } },
      ],
    }
    expect((await s.call('POST', '/__sandbox/scenarios', scenario, as)).status).toBe(200)
    // the rule still matches on the exact token
    expect((await s.call('GET', '/v1/cards', undefined, as)).status).toBe(503)

    const listed = await s.call('GET', '/__sandbox/scenarios', undefined, as)
    expect(listed.body.data.map((x: { name: string }) => x.name)).toContain('this-tenant-down')
    expect(JSON.stringify(listed.body)).not.toContain(TOKEN)
    const journal = await s.call('GET', '/__sandbox/requests', undefined, as)
    const posted = journal.body.data.find(
      (e: { method: string; path: string }) =>
        e.method === 'POST' && e.path === '/__sandbox/scenarios',
    )
    expect(posted.request.body.rules[0].match.tenant).toBe(maskToken(TOKEN))
    expect(JSON.stringify(journal.body)).not.toContain(TOKEN)

    const panel = await s.app.request('/__sandbox/ui/panel', {
      headers: { Authorization: `Bearer ${TOKEN}` },
    })
    const html = await panel.text()
    expect(html).toContain('this-tenant-down')
    expect(html).not.toContain(TOKEN)
  })
})
