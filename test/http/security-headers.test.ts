/**
 * Hardening headers: every page gets a Content-Security-Policy that runs only its own inline
 * scripts (by hash), nosniff and no-referrer; pages deny framing except the verify page, which
 * the widget frames on the client's origin; JSON answers get nosniff. In-process; the browser
 * checks that no page's own script is blocked (test/ui/browser.test.ts).
 */
import { createHash } from 'node:crypto'
import { describe, expect, it } from 'vitest'
import { newSandbox, TOKEN } from '../helpers.js'

const auth = { Authorization: `Bearer ${TOKEN}` }

async function pages() {
  const s = newSandbox()
  const user = await s.call('POST', '/v1/card-users/create', { phone: '+221770000009' })
  const payment = await s.call('POST', '/v1/payments/create', {
    amount: 5000,
    network: 'wave-sn',
    customer: { full_name: 'Awa Diop', phone: '+221770000001' },
  })
  const card = await s.issuedCard()
  const token = await s.call('POST', '/v1/cards/auth/access_token', { reference: card.reference })
  return {
    s,
    denied: {
      dashboard: '/__sandbox/ui',
      panel: '/__sandbox/ui/panel',
      docs: '/__sandbox/docs',
      checkout: `/__sandbox/checkout/${payment.body.data.payment.reference}`,
    },
    framed: {
      verify: `/__sandbox/verify/${user.body.userCard.reference}`,
      'verify (unknown)': '/__sandbox/verify/6f1c2a7e-1111-4222-8333-944444444444',
      'card reveal': new URL(token.body.data.embedded_ui as string).pathname,
      'card reveal (unknown)': `/__sandbox/card-reveal/${'x'.repeat(50)}`,
    },
  }
}

/** The `script-src` sources of a policy. */
function scriptSources(policy: string): string[] {
  const directive = policy.split(';').find((d) => d.trim().startsWith('script-src'))
  return directive ? directive.trim().split(/\s+/).slice(1) : []
}

function inlineScripts(html: string): string[] {
  return [...html.matchAll(/<script>([\s\S]*?)<\/script>/g)].map((m) => m[1])
}

describe('HTML pages', () => {
  it('allow only their own inline scripts, by hash, and nothing from elsewhere', async () => {
    const { s, denied, framed } = await pages()
    for (const [name, path] of Object.entries({ ...denied, ...framed })) {
      const res = await s.app.request(path, { headers: auth })
      expect(res.headers.get('content-type'), name).toMatch(/^text\/html/)
      const policy = res.headers.get('content-security-policy') ?? ''
      expect(policy, name).toContain("default-src 'none'")
      expect(policy, name).toContain("connect-src 'self'")
      expect(policy, name).toContain("base-uri 'none'")
      const sources = scriptSources(policy)
      expect(sources.length, name).toBeGreaterThan(0)
      for (const source of sources) expect(source, name).toMatch(/^'sha256-[A-Za-z0-9+/]+=*'$/)
      const html = await res.text()
      expect(html, name).not.toMatch(/<script[^>]*\ssrc=|\son[a-z]+=/i) // no src, no handler attribute
      for (const script of inlineScripts(html)) {
        const hash = createHash('sha256').update(script).digest('base64')
        expect(sources, `${name}: its script's hash`).toContain(`'sha256-${hash}'`)
      }
      expect(res.headers.get('x-content-type-options'), name).toBe('nosniff')
      expect(res.headers.get('referrer-policy'), name).toBe('no-referrer')
    }
  })

  it('deny framing (dashboard, panel, docs, checkout)', async () => {
    const { s, denied } = await pages()
    for (const [name, path] of Object.entries(denied)) {
      const res = await s.app.request(path, { headers: auth })
      expect(res.status, name).toBe(200)
      expect(res.headers.get('content-security-policy'), name).toContain("frame-ancestors 'none'")
      expect(res.headers.get('x-frame-options'), name).toBe('DENY')
      // a form on the page may post only to the sandbox
      expect(res.headers.get('content-security-policy'), name).toContain("form-action 'self'")
    }
  })

  it('let the card-reveal page load the styles, fonts and images of its css_url’s origin only', async () => {
    const { s } = await pages()
    const card = await s.issuedCard()
    const token = await s.call('POST', '/v1/cards/auth/access_token', {
      reference: card.reference,
      css_url: 'https://cdn.example.com:8443/themes/card.css?v=2#x',
    })
    const res = await s.app.request(new URL(token.body.data.embedded_ui).pathname)
    const directives = (res.headers.get('content-security-policy') ?? '').split('; ')
    expect(directives).toContain("style-src 'unsafe-inline' https://cdn.example.com:8443")
    expect(directives).toContain("img-src 'self' data: https://cdn.example.com:8443")
    expect(directives).toContain('font-src https://cdn.example.com:8443')
    expect(directives).toContain("default-src 'none'")
    expect(directives).toContain("base-uri 'none'")
    expect(directives.find((d) => d.startsWith('script-src'))).toMatch(/^script-src 'sha256-/)
    expect(directives.some((d) => d.startsWith('frame-ancestors'))).toBe(false)
    expect(res.headers.get('x-frame-options')).toBeNull()
    expect(res.headers.get('referrer-policy')).toBe('no-referrer')
    expect(res.headers.get('x-content-type-options')).toBe('nosniff')
    // no other page gets the origin
    const plain = await s.app.request('/__sandbox/ui')
    expect(plain.headers.get('content-security-policy')).not.toContain('cdn.example.com')
  })

  it('let the verify and card-reveal pages be framed: clients show them in their own app', async () => {
    const { s, framed } = await pages()
    for (const [name, path] of Object.entries(framed)) {
      const res = await s.app.request(path)
      expect(res.headers.get('content-security-policy'), name).not.toContain('frame-ancestors')
      expect(res.headers.get('x-frame-options'), name).toBeNull()
    }
  })
})

describe('other answers', () => {
  it('every route of the route table answers with nosniff, whatever it answers', async () => {
    const s = newSandbox()
    const routes = s.app.routes.filter((r) => r.method !== 'ALL')
    expect(routes.length).toBeGreaterThan(40)
    for (const { method, path } of routes) {
      const url = path.replace(/:[a-z_]+/gi, '6f1c2a7e-1111-4222-8333-944444444444')
      const withBody = method === 'POST' || method === 'PUT'
      const res = await s.app.request(url, {
        method,
        headers: withBody ? { ...auth, 'Content-Type': 'application/json' } : auth,
        body: withBody ? '{}' : undefined,
      })
      expect(res.headers.get('x-content-type-options'), `${method} ${path} → ${res.status}`).toBe(
        'nosniff',
      )
    }
  })

  it('JSON, errors and widget.js get nosniff', async () => {
    const s = newSandbox()
    for (const [path, headers] of [
      ['/v1/cards', auth],
      ['/v1/cards', {}], // 401
      ['/nowhere', {}], // 404
      ['http://evil.example/v1/cards', auth], // 403
      ['/__sandbox/health', {}],
      ['/__sandbox/openapi.json', {}],
      ['/__sandbox/widget.js', {}],
    ] as const) {
      const res = await s.app.request(path, { headers })
      expect(res.headers.get('x-content-type-options'), path).toBe('nosniff')
    }
    const widget = await s.app.request('/__sandbox/widget.js')
    expect(widget.headers.get('content-type')).toMatch(/^application\/javascript/)
  })
})
