/**
 * The sandbox's icon: `/favicon.svg`, linked from the head of every page, and `/favicon.ico`
 * for what asks it on its own; both public, behind the Host check, with the pages' headers.
 */
import { describe, expect, it } from 'vitest'
import { newSandbox } from '../helpers.js'

async function pagePaths(s: ReturnType<typeof newSandbox>) {
  const user = await s.call('POST', '/v1/card-users/create', { phone: '+221770000009' })
  const payment = await s.call('POST', '/v1/payments/create', {
    amount: 5000,
    network: 'wave-sn',
    customer: { full_name: 'Awa Diop', phone: '+221770000001' },
  })
  const card = await s.issuedCard()
  const token = await s.call('POST', '/v1/cards/auth/access_token', { reference: card.reference })
  return {
    dashboard: '/__sandbox/ui',
    docs: '/__sandbox/docs',
    checkout: `/__sandbox/checkout/${payment.body.data.payment.reference}`,
    verify: `/__sandbox/verify/${user.body.userCard.reference}`,
    'card reveal': new URL(token.body.data.embedded_ui as string).pathname,
  }
}

describe('the favicon', () => {
  it('answers /favicon.ico with a 16×16 ICO and /favicon.svg with an SVG, without a token', async () => {
    const s = newSandbox()
    const ico = await s.app.request('/favicon.ico')
    expect(ico.status).toBe(200)
    expect(ico.headers.get('content-type')).toBe('image/x-icon')
    const bytes = new Uint8Array(await ico.arrayBuffer())
    // ICONDIR: reserved 0, type 1 (icon), one image of 16×16 at 32 bits per pixel
    expect([...bytes.subarray(0, 8)]).toEqual([0, 0, 1, 0, 1, 0, 16, 16])
    const view = new DataView(bytes.buffer, bytes.byteOffset)
    expect(view.getUint16(12, true)).toBe(32)
    expect(view.getUint32(14, true) + view.getUint32(18, true)).toBe(bytes.length)

    const svg = await s.app.request('/favicon.svg')
    expect(svg.status).toBe(200)
    expect(svg.headers.get('content-type')).toBe('image/svg+xml')
    expect(await svg.text()).toMatch(/^<svg xmlns="http:\/\/www\.w3\.org\/2000\/svg"[^]*<\/svg>$/)
  })

  it('carries the pages’ hardening headers and is behind the Host check', async () => {
    const s = newSandbox()
    for (const path of ['/favicon.ico', '/favicon.svg']) {
      const res = await s.app.request(path)
      expect(res.headers.get('x-content-type-options'), path).toBe('nosniff')
      expect(res.headers.get('content-security-policy'), path).toContain("default-src 'none'")
      expect(res.headers.get('x-frame-options'), path).toBe('DENY')
      const foreign = await s.app.request(`http://evil.example${path}`, {
        headers: { Host: 'evil.example' },
      })
      expect(foreign.status, path).toBe(403)
      expect(await foreign.json()).toMatchObject({ statusCode: 403 })
    }
  })

  it('is linked from the head of every page', async () => {
    const s = newSandbox()
    for (const [name, path] of Object.entries(await pagePaths(s))) {
      const res = await s.app.request(path)
      expect(res.status, name).toBe(200)
      const head = (await res.text()).split('</head>')[0]
      expect(head, name).toContain('<link rel="icon" type="image/svg+xml" href="/favicon.svg" />')
    }
  })
})
