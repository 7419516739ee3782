/**
 * The hosted pages' endpoints in-process: what the widget's and the checkout's buttons send.
 * The same pages are clicked through in a real browser in test/ui/browser.test.ts.
 */
import { join } from 'node:path'
import { describe, expect, it } from 'vitest'
import { newSandbox } from '../helpers.js'
import { tempDir } from '../temp-dir.js'

type Sandbox = ReturnType<typeof newSandbox>

async function widgetUser(s: Sandbox) {
  const res = await s.call('POST', '/v1/card-users/create', { phone: '+221770000009' })
  return res.body.userCard.reference as string
}

async function payment(s: Sandbox, amount = 5000) {
  const res = await s.call('POST', '/v1/payments/create', {
    amount,
    partner_reference: 'order-7',
    network: 'wave-sn',
    customer: { full_name: 'Awa Diop', email: 'awa@example.com', phone: '+221770000001' },
  })
  return res.body.data.payment
}

const identity = { first_name: 'Awa', last_name: 'Diop', address: '1 Rue A, Dakar', id_no: 'SN123' }

describe('the verification widget', () => {
  it('serves widget.js defining CardSandboxWidget.mount', async () => {
    const s = newSandbox()
    const res = await s.app.request('/__sandbox/widget.js')
    expect(res.status).toBe(200)
    expect(res.headers.get('content-type')).toMatch(/^application\/javascript/)
    const script = await res.text()
    expect(script).toContain('window.CardSandboxWidget = { mount: mount }')
    for (const option of ['onNavigationUpdate', 'onExit', 'onError', 'onComplete'])
      expect(script).toContain(`options.${option}`)
  })

  it('keeps what the person typed, passes the user and writes the webhook', async () => {
    const s = newSandbox()
    const reference = await widgetUser(s)
    const page = await s.app.request(`/__sandbox/verify/${reference}?color=%23ff0066`)
    expect(page.status).toBe(200)
    const text = await page.text()
    expect(text).toContain('--accent: #ff0066')
    expect(text).toContain('+221770000009')

    const done = await s.call('POST', `/__sandbox/verify/${reference}`, {
      ...identity,
      email: 'awa@example.com',
      outcome: 'passed',
    })
    expect(done.status, JSON.stringify(done.body)).toBe(200)
    expect(done.body.data).toMatchObject({ reference, status: 'passed' })

    const users = await s.call('GET', '/v1/card-users')
    const user = users.body.data[0].data.find((u: any) => u.reference === reference)
    expect(user).toMatchObject({
      first_name: 'Awa',
      last_name: 'Diop',
      id_no: 'SN123',
      email: 'awa@example.com',
    })
    const hooks = await s.call('GET', '/__sandbox/webhooks')
    expect(hooks.body.data.map((e: any) => e.type)).toContain('card_user_verification.successful')
    const journal = await s.call('GET', '/__sandbox/requests?method=POST&path=/__sandbox/verify/*')
    expect(journal.body.data).toHaveLength(1)
  })

  it('fails the user when the person chooses to, and refuses a second completion (409)', async () => {
    const s = newSandbox()
    const reference = await widgetUser(s)
    const failed = await s.call('POST', `/__sandbox/verify/${reference}`, {
      ...identity,
      outcome: 'failed',
    })
    expect(failed.body.data.status).toBe('failed')
    const again = await s.call('POST', `/__sandbox/verify/${reference}`, {
      ...identity,
      outcome: 'passed',
    })
    expect(again.body).toEqual({
      message: "This card user's verification is already failed.",
      statusCode: 409,
      from: 'failed',
      to: 'passed',
      allowed: [],
    })
  })

  it('names missing fields (422) and unknown references (404)', async () => {
    const s = newSandbox()
    const reference = await widgetUser(s)
    const missing = await s.call('POST', `/__sandbox/verify/${reference}`, { outcome: 'passed' })
    expect(missing.status).toBe(422)
    expect(Object.keys(missing.body.errors).sort()).toEqual([
      'address',
      'first_name',
      'id_no',
      'last_name',
    ])
    const unknown = '6f1c2a7e-1111-4222-8333-944444444444'
    expect(
      (await s.call('POST', `/__sandbox/verify/${unknown}`, { ...identity, outcome: 'passed' }))
        .status,
    ).toBe(404)
    expect((await s.app.request(`/__sandbox/verify/${unknown}`)).status).toBe(404)
    expect((await s.app.request('/__sandbox/verify/not-a-uuid')).status).toBe(404)
  })
})

describe('the checkout page', () => {
  it('shows the payment and pays it: the payment succeeds and credits the float', async () => {
    const s = newSandbox()
    const created = await payment(s, 7500)
    const page = await s.app.request(`/__sandbox/checkout/${created.reference}`)
    expect(page.status).toBe(200)
    expect(await page.text()).toContain('7 500 F CFA')
    const paid = await s.call('POST', `/__sandbox/checkout/${created.reference}`, { answer: 'pay' })
    expect(paid.status, JSON.stringify(paid.body)).toBe(200)
    expect(paid.body.data.status).toBe('success')
    const operations = await s.call('GET', '/v1/business/operations')
    expect(operations.body.data).toMatchObject([
      { amount: 7500, kind: 'float_credit', status: 'success' },
    ])
    const again = await s.call('POST', `/__sandbox/checkout/${created.reference}`, {
      answer: 'pay',
    })
    expect(again.status).toBe(409)
  })

  it('declines: the payment fails', async () => {
    const s = newSandbox()
    const created = await payment(s)
    const declined = await s.call('POST', `/__sandbox/checkout/${created.reference}`, {
      answer: 'decline',
    })
    expect(declined.body.data.status).toBe('failed')
    const bad = await s.call('POST', `/__sandbox/checkout/${created.reference}`, {
      answer: 'maybe',
    })
    expect(bad.status).toBe(422)
  })
})

describe('the dashboard panel', () => {
  it('renders the tenant with a button for each allowed move', async () => {
    const s = newSandbox()
    const reference = await widgetUser(s)
    const res = await s.app.request('/__sandbox/ui/panel', {
      headers: { Authorization: 'Bearer test-token' },
    })
    expect(res.status).toBe(200)
    const html = await res.text()
    expect(html).toContain(`data-reference="${reference}"`)
    expect(html).toContain(`data-call="POST /__sandbox/card-users/${reference}/transition"`)
    expect(html).toContain('→ passed')
    expect(html).toContain('POST /__sandbox/clock/advance')
    expect((await s.app.request('/__sandbox/ui/panel')).status).toBe(401)
    // the tenant's own token, masked: a screenshot of the panel gives nothing away
    expect(html).toContain('<code>******oken</code>')
    expect(html).not.toContain('test-token')
  })

  it('shows the API top-ups and the disputes, each with its moves', async () => {
    const s = newSandbox()
    const { reference: card } = await s.issuedCard()
    const topUp = await s.call('POST', '/v1/transactions/create', {
      action: 'recharge',
      amount: 700,
      card_reference: card,
    })
    const slug = topUp.body.data.transaction.slug
    const dispute = await s.call('POST', '/v1/disputes/create', {
      transaction_slug: slug,
      reason: 'duplicate',
    })
    const html = await (
      await s.app.request('/__sandbox/ui/panel', {
        headers: { Authorization: 'Bearer test-token' },
      })
    ).text()
    expect(html).toContain(`data-reference="${slug}"`)
    expect(html).toContain('recharge')
    expect(html).toContain(`data-call="POST /__sandbox/transactions/${slug}/transition"`)
    expect(html).toContain(`data-reference="${dispute.body.data[0].slug}"`)
  })
})

describe('the dashboard request table', () => {
  it("shows each request at its sandbox time and its wall time, as the journal's at and wall_at", async () => {
    const s = newSandbox()
    await s.call('GET', '/v1/cards')
    await s.call('POST', '/__sandbox/clock/advance', { by: '2h' })
    const [advance, first] = (await s.call('GET', '/__sandbox/requests')).body.data
    const html = await (
      await s.app.request('/__sandbox/ui/panel', {
        headers: { Authorization: 'Bearer test-token' },
      })
    ).text()
    expect(html).toContain('<th>sandbox time</th>')
    expect(html).toContain('<th>wall time</th>')
    for (const entry of [first, advance]) {
      const row = html.slice(html.indexOf(`data-request="${entry.id}"`)).split('</tr>')[0]
      const times = [...row.matchAll(/<time datetime="([^"]+)" title="([^"]+)">([^<]+)</g)]
      expect(times.map(([, datetime, title, shown]) => [datetime, title, shown])).toEqual([
        [entry.at, `sandbox time ${entry.at}`, entry.at.slice(11, 19)],
        [entry.wall_at, `wall time ${entry.wall_at}`, entry.wall_at.slice(11, 19)],
      ])
    }
    // on the manual clock the two tell apart what the sandbox time cannot
    expect(first.at).toBe('2026-01-01T00:00:00.000Z')
    expect(first.wall_at).not.toBe(first.at)
  })
})

describe('the dashboard shell', () => {
  it('lists every tenant by masked token, and never prints a token, even one in its URL', async () => {
    const s = newSandbox()
    await s.call('GET', '/v1/cards')
    await s.call('GET', '/v1/cards', undefined, { token: 'a-much-longer-token-9876' })
    await s.call('GET', '/v1/cards', undefined, { token: 'short' })
    for (const url of ['/__sandbox/ui', '/__sandbox/ui?token=test-token']) {
      const res = await s.app.request(url)
      expect(res.status).toBe(200)
      const html = await res.text()
      expect(html).toContain('<code>******oken</code>')
      expect(html).toContain('<code>********************9876</code>')
      expect(html).toContain('<code>*****</code>')
      for (const token of ['test-token', 'a-much-longer-token-9876', 'short'])
        expect(html, url).not.toContain(token)
      // the form's field has no name: submitted without the script, it sends nothing
      expect(html).toMatch(/<input\s+id="token"\s+type="password"/)
      expect(html).not.toMatch(/<input[^>]*name="token"/)
    }
  })
})

describe('the card-reveal page (embedded_ui)', () => {
  async function reveal(s: Sandbox, body: Record<string, unknown> = {}, brand = 'visa') {
    const { reference } = await s.issuedCard(brand)
    const res = await s.call('POST', '/v1/cards/auth/access_token', { reference, ...body })
    const path = new URL(res.body.data.embedded_ui as string).pathname
    return { reference, path, token: res.body.data.access_token as string }
  }

  async function card(s: Sandbox, reference: string) {
    return (await s.call('GET', `/v1/cards/${reference}`)).body.data.card
  }

  it("shows the card's number, expiry and cvv2, uncached", async () => {
    const s = newSandbox()
    const { reference, path } = await reveal(s, {}, 'mastercard')
    const { card_number, cvv2, expiry } = await card(s, reference)
    const res = await s.app.request(path)
    expect(res.status).toBe(200)
    expect(res.headers.get('content-type')).toMatch(/^text\/html/)
    expect(res.headers.get('cache-control')).toBe('no-store')
    const html = await res.text()
    const grouped = card_number.replace(/(\d{4})(?=\d)/g, '$1 ')
    expect(html).toContain(`<dd data-field="card_number">${grouped}</dd>`)
    expect(html).toContain(`<dd data-field="expiry">${expiry}</dd>`)
    expect(html).toContain(`<dd data-field="cvv2">${cvv2}</dd>`)
    expect(html).toContain('mastercard · virtual')
  })

  it('says so while the card has no details yet, and shows them once it has', async () => {
    const s = newSandbox()
    const user = await s.verifiedUser()
    const linked = await s.call('POST', '/v1/cards/link', {
      identifier: 9,
      card_user_reference: user,
    })
    const reference = linked.body.data.card.reference
    const res = await s.call('POST', '/v1/cards/auth/access_token', { reference })
    const path = new URL(res.body.data.embedded_ui).pathname
    const before = await (await s.app.request(path)).text()
    expect(before).toContain('data-field="pending"')
    expect(before).not.toContain('data-field="cvv2"')
    await s.call('POST', '/__sandbox/clock/advance', { by: '1m' })
    const after = await (await s.app.request(path)).text()
    expect(after).toContain(`<dd data-field="cvv2">${(await card(s, reference)).cvv2}</dd>`)
  })

  it('expires 10 minutes later on the tenant clock: a clear 410 page', async () => {
    const s = newSandbox()
    const { path } = await reveal(s)
    await s.call('POST', '/__sandbox/clock/advance', { by: 10 * 60_000 - 1 })
    expect((await s.app.request(path)).status).toBe(200)
    await s.call('POST', '/__sandbox/clock/advance', { by: 1 })
    const res = await s.app.request(path)
    expect(res.status).toBe(410)
    expect(res.headers.get('content-type')).toMatch(/^text\/html/)
    const html = await res.text()
    expect(html).toContain('This card link has expired.')
    expect(html).not.toContain('data-field="cvv2"')
  })

  it('answers an unknown token, a malformed one or a reset tenant’s with a clear 404 page', async () => {
    const s = newSandbox()
    const { path, token } = await reveal(s)
    const other = token.slice(0, -1) + (token.endsWith('a') ? 'b' : 'a')
    for (const unknown of [`/__sandbox/card-reveal/${other}`, '/__sandbox/card-reveal/short']) {
      const res = await s.app.request(unknown)
      expect(res.status, unknown).toBe(404)
      expect(res.headers.get('content-type')).toMatch(/^text\/html/)
      expect(await res.text()).toContain('This card link is not valid.')
    }
    await s.call('POST', '/__sandbox/reset')
    expect((await s.app.request(path)).status).toBe(404)
  })

  it('keeps the token in the database: a restarted sandbox on the same file opens it', async () => {
    const file = join(tempDir('card-reveal-'), 'sandbox.db')
    const first = newSandbox({ db: file })
    const { path } = await reveal(first)
    first.close()
    const second = newSandbox({ db: file })
    try {
      expect((await second.app.request(path)).status).toBe(200)
    } finally {
      second.close()
    }
  })
})
