/**
 * The dashboard, the verification widget and the checkout page in a real browser: Debian's
 * chromium driven by playwright-core, against a sandbox on a real port. `.ci/run` installs
 * chromium when it is missing; set CHROMIUM_PATH to use another build. Screenshots go to
 * test/artifacts/ (git-ignored).
 */
import { existsSync, mkdirSync } from 'node:fs'
import { createServer, type Server } from 'node:http'
import type { AddressInfo } from 'node:net'
import { fileURLToPath } from 'node:url'
import { chromium, type Browser, type Page } from 'playwright-core'
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest'
import { startSandbox, type RunningSandbox } from '../../src/server/sandbox.js'
import { fullIdentity } from '../helpers.js'
import { startReceiver, until } from '../webhooks/receiver.js'

const CHROMIUM = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium'
const ARTIFACTS = fileURLToPath(new URL('../artifacts/', import.meta.url))
const TOKEN = 'browser-token'

let browser: Browser
let sandbox: RunningSandbox
let page: Page
/** What chromium reports about the Content-Security-Policy (console and violation events). */
let cspReports: string[]
/** Every URL the page requested. */
let requested: string[]

const HAS_CHROMIUM = existsSync(CHROMIUM)
if (!HAS_CHROMIUM) {
  console.log(
    `browser tests skipped: no chromium at ${CHROMIUM} (apt-get install chromium, or set CHROMIUM_PATH)`,
  )
}

describe.skipIf(!HAS_CHROMIUM)('in chromium', () => {
  beforeAll(async () => {
    mkdirSync(ARTIFACTS, { recursive: true })
    browser = await chromium.launch({
      executablePath: CHROMIUM,
      headless: true,
      args: [
        '--no-sandbox',
        '--disable-gpu',
        '--disable-quic',
        '--no-first-run',
        '--disable-background-networking',
        '--disable-component-update',
        '--disable-sync',
      ],
    })
  }, 30_000)

  afterAll(async () => {
    await browser?.close()
  })

  beforeEach(async () => {
    sandbox = await startSandbox({ port: 0, clock: 'manual', seed: 7 })
    page = await browser.newPage({ viewport: { width: 1400, height: 1000 } })
    cspReports = []
    requested = []
    page.on('console', (message) => {
      if (/Content Security Policy|Refused to/i.test(message.text()))
        cspReports.push(message.text())
    })
    page.on('request', (request) => void requested.push(request.url()))
    // in every frame, before its own scripts: a blocked script, style or fetch is reported here
    await page.exposeFunction('reportCsp', (report: string) => void cspReports.push(report))
    await page.addInitScript(() =>
      (globalThis as any).document.addEventListener('securitypolicyviolation', (event: any) =>
        (globalThis as any).reportCsp(`${event.violatedDirective} blocked ${event.blockedURI}`),
      ),
    )
  })

  afterEach(async () => {
    // no page's own script, style or request was blocked by its Content-Security-Policy
    expect(cspReports).toEqual([])
    await page.close()
    await sandbox.close()
  })

  async function api(method: string, path: string, body?: unknown) {
    const res = await fetch(`${sandbox.url}${path}`, {
      method,
      headers: { Authorization: `Bearer ${TOKEN}`, 'Content-Type': 'application/json' },
      body: body === undefined ? undefined : JSON.stringify(body),
    })
    return { status: res.status, body: (await res.json()) as any }
  }

  /** expect.poll with room for a loaded machine (the whole suite runs beside the browser). */
  function eventually<T>(read: () => Promise<T> | T) {
    return expect.poll(read, { timeout: 10_000, interval: 50 })
  }

  /** The status badge of the dashboard row of `reference`. */
  function statusIn(reference: string) {
    return page.locator(`tr[data-reference="${reference}"] .status`).first()
  }

  /** Opens the dashboard shell and the tenant of `token` through its form, as a person does. */
  async function openDashboard(token: string) {
    await page.goto(`${sandbox.url}/__sandbox/ui`)
    await page.locator('#token').fill(token)
    await page.locator('#open-tenant button[type=submit]').click()
    await eventually(() => page.locator('#panel .tenant').count()).toBe(1)
  }

  describe('the dashboard', () => {
    it('opens a tenant by its pasted token, keeps it in the tab, never in a URL or the page', async () => {
      await api('GET', '/v1/cards') // the tenant exists: the shell lists it, masked
      await page.goto(`${sandbox.url}/__sandbox/ui`)
      await expect(page.locator('[data-section=Tenants] code').textContent()).resolves.toBe(
        '*********oken',
      )
      await openDashboard(TOKEN)
      expect(await page.locator('#panel .tenant code').first().textContent()).toBe('*********oken')
      expect(
        await page.evaluate(() => (globalThis as any).sessionStorage.getItem('card-sandbox-token')),
      ).toBe(TOKEN)
      expect(await page.content()).not.toContain(TOKEN)

      // a reload reopens it from sessionStorage; "Close tenant" forgets it
      await page.reload()
      await eventually(() => page.locator('#panel .tenant').count()).toBe(1)
      await page.locator('#close-tenant').click()
      expect(
        await page.evaluate(() => (globalThis as any).sessionStorage.getItem('card-sandbox-token')),
      ).toBeNull()
      expect(await page.locator('#panel').isHidden()).toBe(true)
      await page.reload()
      await page.waitForLoadState('load')
      expect(await page.locator('#panel').isHidden()).toBe(true)

      expect(requested.length).toBeGreaterThan(2)
      for (const url of requested) expect(url).not.toContain(TOKEN)
    })

    it('tells the person when --tokens keeps the pasted token out', async () => {
      await sandbox.close()
      sandbox = await startSandbox({ port: 0, clock: 'manual', seed: 7, tokens: ['only-this-one'] })
      await page.goto(`${sandbox.url}/__sandbox/ui`)
      await page.locator('#token').fill('not-that-one')
      await page.locator('#open-tenant button[type=submit]').click()
      await eventually(() => page.locator('#toast').textContent()).toContain('--tokens')
      expect(await page.locator('#panel').isHidden()).toBe(true)
      expect(
        await page.evaluate(() => (globalThis as any).sessionStorage.getItem('card-sandbox-token')),
      ).toBeNull()
    })

    it('verifies a user, issues a card and replays a webhook with clicks', async () => {
      const receiver = await startReceiver([500, 200])
      try {
        await api('PUT', '/__sandbox/webhook', { url: receiver.url })
        const created = await api('POST', '/v1/card-users/create', fullIdentity())
        const user: string = created.body.data.userCard.reference

        await openDashboard(TOKEN)
        await eventually(() => statusIn(user).textContent()).toBe('pending')
        await page.locator(`tr[data-reference="${user}"] button`, { hasText: '→ passed' }).click()
        await eventually(() => statusIn(user).textContent()).toBe('passed')

        // the app under test issues a card while the dashboard is open: it shows up by itself
        const card = await api('POST', '/v1/cards/create', {
          card_user_reference: user,
          card_brand: 'visa',
          card_type: 'virtual',
        })
        const cardReference: string = card.body.data.card.reference
        await eventually(() => statusIn(cardReference).textContent()).toBe('issuing')
        await page
          .locator(`tr[data-reference="${cardReference}"] button`, { hasText: '→ issued' })
          .click()
        await eventually(() => statusIn(cardReference).textContent()).toBe('issued')

        // the verification webhook was answered 500 once; replay it from its row
        await until(() => receiver.requests.length >= 1, 10_000, 'first delivery')
        const event = page.locator('tr[data-event]', { hasText: 'card_user_verification' })
        await eventually(() => event.locator('.attempts li').count()).toBeGreaterThanOrEqual(1)
        const delivered = receiver.requests.length
        await event.locator('button', { hasText: 'Replay' }).click()
        await until(() => receiver.requests.length > delivered, 10_000, 'replayed delivery')
        const ids = receiver.requests.map((r) => r.headers['x-alal-event-id'])
        expect(ids.at(-1)).toBe(ids[0])
        await eventually(() => event.locator('.status').textContent()).toBe('delivered')

        await page.screenshot({ path: `${ARTIFACTS}dashboard.png`, fullPage: true })
        const users = await api('GET', '/v1/card-users')
        expect(users.body.data[0].data[0]).toMatchObject({ reference: user, status: 'passed' })
      } finally {
        await receiver.close()
      }
    })
  })

  describe('layout', () => {
    /**
     * A tenant with a row in every table, a webhook and requests, and the rows with the most
     * actions: a pending payment (three moves and its checkout link), an issued card (a move and
     * the fund form), a submitted dispute (two moves).
     */
    async function busyTenant() {
      await api('PUT', '/__sandbox/webhook', { url: 'http://127.0.0.1:9/a/rather/long/hook/path' })
      await api('POST', '/v1/card-users/create', fullIdentity({ phone: '+221770000002' }))
      const user = (await api('POST', '/v1/card-users/create', fullIdentity())).body.data.userCard
        .reference as string
      await api('POST', `/__sandbox/card-users/${user}/transition`, { to: 'passed' })
      const create = { card_user_reference: user, card_brand: 'visa', card_type: 'virtual' }
      await api('POST', '/v1/cards/create', create)
      const card = (await api('POST', '/v1/cards/create', create)).body.data.card
        .reference as string
      await api('POST', `/__sandbox/cards/${card}/transition`, { to: 'issued' })
      await api('POST', `/__sandbox/cards/${card}/fund`, { amount: 90_000 })
      await api('POST', '/v1/transactions/create/card-to-bank', {
        amount: 1_500,
        card_reference: card,
        bank_id: 'B',
        bank_name: 'BICICI',
      })
      const topUp = await api('POST', '/v1/transactions/create', {
        action: 'recharge',
        amount: 700,
        card_reference: card,
      })
      const dispute = await api('POST', '/v1/disputes/create', {
        transaction_slug: topUp.body.data.transaction.slug,
        reason: 'duplicate',
      })
      const disputeReference = dispute.body.data[0].slug as string
      await api('POST', `/__sandbox/disputes/${disputeReference}/transition`, { to: 'submitted' })
      const customer = { full_name: 'Moussa Ba', phone: '+221770000042' }
      const pay = { amount: 1_250_000, network: 'orange-money-sn', customer }
      await api('POST', '/v1/payments/create', pay)
      await api('POST', '/v1/disburses/create', { amount: 7_000, network: 'wave-sn', customer })
    }

    /**
     * What is wrong with the open dashboard's layout at this width, measured on element boxes:
     * a button taller than one line of its text, a reference or id on more than one line, a
     * panel whose content is wider than its box, a page wider than the screen.
     */
    async function layoutProblems(width: number) {
      const problems: string[] = []
      /** The height of one line of an element's text, and of the element on one line. */
      const linesOf = (selector: string) =>
        page.locator(selector).evaluateAll((elements) =>
          elements.map((el: any) => {
            const style = (globalThis as any).getComputedStyle(el)
            const px = (name: string) => parseFloat(style.getPropertyValue(name)) || 0
            // `normal` is about 1.2 times the font size
            const line = px('line-height') || 1.2 * px('font-size')
            const box =
              px('padding-top') +
              px('padding-bottom') +
              px('border-top-width') +
              px('border-bottom-width')
            return { line, oneLine: line + box }
          }),
        )
      for (const [selector, what] of [
        ['#panel button:visible', 'button'],
        ['#panel code:visible', 'id'],
      ] as const) {
        const elements = await page.locator(selector).all()
        const lines = await linesOf(selector)
        expect(elements.length, selector).toBe(lines.length)
        for (const [i, element] of elements.entries()) {
          const box = await element.boundingBox()
          const { line, oneLine } = lines[i]
          // a second line would add a whole line's height; half of one is room for rounding
          // and for a button stretched to the height of the field beside it
          if (box && box.height >= oneLine + line / 2)
            problems.push(
              `${width} px: ${what} "${(await element.textContent())?.trim()}" is ${box.height} px tall, one line is ${oneLine}`,
            )
        }
      }
      for (const section of await page.locator('#panel section').all()) {
        const [scroll, client, name] = await section.evaluate((el: any) => [
          el.scrollWidth,
          el.clientWidth,
          el.dataset.section ?? el.className,
        ])
        if (scroll > client)
          problems.push(`${width} px: panel ${name} holds ${scroll} px in ${client} px`)
      }
      const pageWidth = await page.evaluate(
        () => (globalThis as any).document.documentElement.scrollWidth,
      )
      if (pageWidth > width) problems.push(`${width} px: the page is ${pageWidth} px wide`)
      return problems
    }

    /**
     * The rows of the open dashboard whose action buttons (moves, a form, a link) take more than
     * one line: on one line, every one of them starts above where each of the others ends.
     */
    async function wrappedActions(width: number) {
      const cells = await page.locator('#panel td.actions:visible').evaluateAll((tds) =>
        tds.map((td: any) => {
          const boxes = [...td.children].map((el: any) => el.getBoundingClientRect())
          const row = td.closest('tr')
          return {
            row: `${row.closest('section').dataset.section} ${row.dataset.reference ?? row.dataset.event}`,
            lowestTop: Math.max(...boxes.map((b: any) => b.top)),
            highestBottom: Math.min(...boxes.map((b: any) => b.bottom)),
            actions: boxes.length,
          }
        }),
      )
      return cells
        .filter((cell) => cell.actions > 1 && cell.lowestTop >= cell.highestBottom)
        .map((cell) => `${width} px: the ${cell.actions} actions of ${cell.row} take two lines`)
    }

    it('keeps dashboard buttons and ids on one line and every panel within its box, wide and at 390 px', async () => {
      await busyTenant()
      await openDashboard(TOKEN)
      await eventually(() => page.locator('#panel button', { hasText: '→ issued' }).count()).toBe(1)
      expect(await page.locator('#panel button').count()).toBeGreaterThan(10)
      const problems: string[] = []
      for (const width of [1920, 1400, 1024, 390]) {
        await page.setViewportSize({ width, height: 900 })
        problems.push(...(await layoutProblems(width)))
        if (width >= 1024) problems.push(...(await wrappedActions(width)))
        await page.screenshot({ path: `${ARTIFACTS}dashboard-${width}.png`, fullPage: true })
      }
      expect(problems).toEqual([])
      // a shortened reference keeps the whole one in its title
      const reference = page.locator('#panel tr[data-reference] code[title]').first()
      const title = await reference.getAttribute('title')
      expect(title).toMatch(/^[0-9a-f-]{36}$/)
      expect(await reference.locator('xpath=ancestor::tr').getAttribute('data-reference')).toBe(
        title,
      )
    })

    it('keeps the checkout card clear of the screen edges at 390 px', async () => {
      await page.setViewportSize({ width: 390, height: 844 })
      const created = await api('POST', '/v1/payments/create', {
        amount: 1_250_000,
        network: 'orange-money-sn',
        customer: { full_name: 'Moussa Ba', phone: '+221770000042' },
      })
      await page.goto(created.body.data.payment.meta.wallet_url)
      const card = await page.locator('main.checkout').boundingBox()
      expect(card).not.toBeNull()
      expect(card!.x).toBeGreaterThanOrEqual(12)
      expect(390 - (card!.x + card!.width)).toBeGreaterThanOrEqual(12)
      expect(card!.y).toBeGreaterThanOrEqual(12)
      expect(
        await page.evaluate(() => (globalThis as any).document.documentElement.scrollWidth),
      ).toBeLessThanOrEqual(390)
      // the buttons stay on one line each, inside the card
      const buttons = page.locator('main.checkout button')
      const heights = await buttons.evaluateAll((els) => els.map((el: any) => el.offsetHeight))
      expect(heights).toHaveLength(2)
      expect(Math.max(...heights)).toBeLessThan(2 * Math.min(...heights))
      for (const button of await buttons.all()) {
        const box = (await button.boundingBox())!
        expect(box.x + box.width).toBeLessThanOrEqual(card!.x + card!.width)
      }
      await page.screenshot({ path: `${ARTIFACTS}checkout-390.png`, fullPage: true })
    })
  })

  describe('the verification widget', () => {
    it('mounts from a page of another origin, walks the steps and calls onComplete', async () => {
      const created = await api('POST', '/v1/card-users/create', { phone: '+221770000123' })
      const reference: string = created.body.userCard.reference
      const host = await serveHostPage(
        `<!doctype html><html><body><h1>My wallet app</h1>
      <script src="${sandbox.url}/__sandbox/widget.js"></script>
      <script>
        window.calls = []
        window.start = (reference) => CardSandboxWidget.mount({
          reference, color: '#7a3cff',
          onNavigationUpdate: (p) => calls.push(['navigation', p]),
          onExit: (p) => calls.push(['exit', p]),
          onError: (p) => calls.push(['error', p]),
          onComplete: (p) => calls.push(['complete', p]),
        })
      </script></body></html>`,
      )
      try {
        await page.goto(host.url)
        await page.evaluate((ref) => (globalThis as any).start(ref), reference)
        const widget = page.frameLocator('iframe[title="Identity verification"]')
        await widget.locator('input[name=first_name]').fill('Fatou')
        await widget.locator('input[name=last_name]').fill('Sow')
        await widget.locator('input[name=address]').fill('3 Avenue Cheikh Anta Diop, Dakar')
        await widget.locator('input[name=id_no]').fill('SN-998877')
        await widget.locator('button', { hasText: 'Continue' }).click()
        await eventually(() => widget.locator('form[data-step=identity]').isVisible()).toBe(false)
        await widget.locator('input[value=passed]').check()
        await page.screenshot({ path: `${ARTIFACTS}widget.png` })
        await widget.locator('button', { hasText: 'Submit' }).click()

        await eventually(() =>
          page.evaluate(() => (globalThis as any).calls.map((c: any) => c[0])),
        ).toContain('complete')
        const calls: [string, any][] = await page.evaluate(() => (globalThis as any).calls)
        expect(calls.filter(([type]) => type === 'navigation').map(([, p]) => p.step)).toEqual([
          'identity',
          'review',
          'result',
        ])
        const complete = calls.find(([type]) => type === 'complete')![1]
        expect(complete).toMatchObject({
          reference,
          status: 'passed',
          userCard: { first_name: 'Fatou', last_name: 'Sow', id_no: 'SN-998877' },
        })
        expect(await page.locator('[data-card-sandbox-widget]').count()).toBe(0)

        const hooks = await api('GET', '/__sandbox/webhooks')
        expect(hooks.body.data[0]).toMatchObject({ type: 'card_user_verification.successful' })
      } finally {
        await host.close()
      }
    })

    it('calls onExit when the person closes it, and onError for an unknown reference', async () => {
      const host = await serveHostPage(
        `<!doctype html><html><body><script src="${sandbox.url}/__sandbox/widget.js"></script>
      <script>
        window.calls = []
        window.start = (reference) => CardSandboxWidget.mount({ reference,
          onExit: (p) => calls.push(['exit', p]), onError: (p) => calls.push(['error', p]) })
      </script></body></html>`,
      )
      try {
        await page.goto(host.url)
        await page.evaluate(() => (globalThis as any).start('6f1c2a7e-1111-4222-8333-944444444444'))
        await eventually(() => page.evaluate(() => (globalThis as any).calls[0]?.[1]?.code)).toBe(
          'not_found',
        )
        await page.frameLocator('iframe').locator('[data-exit]').click()
        await eventually(() =>
          page.evaluate(() => (globalThis as any).calls.map((c: any) => c[0])),
        ).toEqual(['error', 'exit'])
      } finally {
        await host.close()
      }
    })
  })

  describe('the checkout page', () => {
    it("opens from the payment's wallet_url and pays", async () => {
      const created = await api('POST', '/v1/payments/create', {
        amount: 12500,
        partner_reference: 'order-42',
        network: 'orange-money-sn',
        customer: { full_name: 'Moussa Ba', email: 'moussa@example.com', phone: '+221770000042' },
      })
      const payment = created.body.data.payment
      await page.goto(payment.meta.wallet_url)
      await eventually(() => page.locator('.amount').textContent()).toBe('12 500 F CFA')
      await page.locator('button[data-answer=pay]').click()
      await eventually(() => page.locator('[data-status] .status').textContent()).toBe('success')
      await page.screenshot({ path: `${ARTIFACTS}checkout.png` })

      const shown = await api('GET', `/v1/payments/${payment.reference}`)
      expect(JSON.stringify(shown.body)).toContain('"status":"success"')
    })
  })

  describe('the card-reveal page', () => {
    it("shows the card in another site's frame, styled by its css_url, and 410 once expired", async () => {
      const user = await api('POST', '/v1/card-users/create', fullIdentity())
      const reference: string = user.body.data.userCard.reference
      await api('POST', `/__sandbox/card-users/${reference}/transition`, { to: 'passed' })
      const created = await api('POST', '/v1/cards/create', {
        card_user_reference: reference,
        card_brand: 'visa',
        card_type: 'virtual',
      })
      const cardReference: string = created.body.data.card.reference
      await api('POST', `/__sandbox/cards/${cardReference}/transition`, { to: 'issued' })
      const card = (await api('GET', `/v1/cards/${cardReference}`)).body.data.card
      const host = await serveHostPage(
        '<!doctype html><html><body><h1>My wallet app</h1><iframe id="card"></iframe></body></html>',
        '[data-field="card_number"] { color: rgb(200, 0, 0); font-size: 30px; }',
      )
      try {
        const token = await api('POST', '/v1/cards/auth/access_token', {
          reference: cardReference,
          css_url: `${host.url}card.css`,
        })
        expect(token.status).toBe(200)
        await page.goto(host.url)
        await page.evaluate(
          (src) => ((globalThis as any).document.getElementById('card').src = src),
          token.body.data.embedded_ui,
        )
        const frame = page.frameLocator('#card')
        const number = frame.locator('[data-field="card_number"]')
        await eventually(() => number.textContent()).toBe(
          card.card_number.replace(/(\d{4})(?=\d)/g, '$1 '),
        )
        expect(await frame.locator('[data-field="cvv2"]').textContent()).toBe(card.cvv2)
        expect(await frame.locator('[data-field="expiry"]').textContent()).toBe(card.expiry)
        // the client's stylesheet applied inside the frame
        await eventually(() =>
          number.evaluate((el) => (globalThis as any).getComputedStyle(el).color),
        ).toBe('rgb(200, 0, 0)')
        await page.screenshot({ path: `${ARTIFACTS}card-reveal.png` })

        await api('POST', '/__sandbox/clock/advance', { by: '10m' })
        const expired = await page.goto(token.body.data.embedded_ui)
        expect(expired?.status()).toBe(410)
        expect(await page.locator('[data-field="message"]').textContent()).toContain('expired')
        expect(await page.locator('[data-field="cvv2"]').count()).toBe(0)
      } finally {
        await host.close()
      }
    })
  })

  describe('--cors', () => {
    /** What the host page's script got from `fetch` to `url`: status and JSON, or the error. */
    const CALLER = `<!doctype html><html><body><h1>My front-end</h1><script>
    window.call = async (url, init) => {
      try {
        const res = await fetch(url, init)
        return { status: res.status, body: await res.json(), limit: res.headers.get('X-RateLimit-Limit') }
      } catch (error) {
        return { error: String(error) }
      }
    }
  </script></body></html>`

    function callFromPage(url: string, init: Record<string, unknown>) {
      return page.evaluate(([url, init]) => (globalThis as any).call(url, init), [
        url,
        init,
      ] as const)
    }

    const create = (token: string) => ({
      method: 'POST',
      headers: { Authorization: `Bearer ${token}`, 'Content-Type': 'application/json' },
      body: JSON.stringify({ phone: '+221770000777' }),
    })

    it('lets a page on a listed origin call /v1 with its token and read answers and errors', async () => {
      const host = await serveHostPage(CALLER)
      const origin = new URL(host.url).origin
      const open = await startSandbox({ port: 0, clock: 'manual', seed: 7, cors: [origin] })
      try {
        await page.goto(host.url)
        const created = await callFromPage(`${open.baseUrl}/card-users/create`, create(TOKEN))
        expect(created.status).toBe(200)
        expect(created.body.userCard.phone).toBe('+221770000777')
        expect(created.limit).toBe('60') // an exposed header
        const listed = await callFromPage(`${open.baseUrl}/card-users`, {
          headers: { Authorization: `Bearer ${TOKEN}` },
        })
        expect(listed.body.data[0].data.map((u: any) => u.phone)).toEqual(['+221770000777'])
        const refused = await callFromPage(`${open.baseUrl}/cards/create`, {
          ...create(TOKEN),
          body: '{}',
        })
        expect(refused).toMatchObject({ status: 422, body: { statusCode: 422 } })
        const anonymous = await callFromPage(`${open.baseUrl}/cards`, {})
        expect(anonymous).toMatchObject({ status: 401 })
      } finally {
        await open.close()
        await host.close()
      }
    })

    it('leaves the browser to block a page when CORS is off, or its origin is not listed', async () => {
      const host = await serveHostPage(CALLER)
      const other = await startSandbox({ port: 0, cors: ['http://localhost:1'] })
      try {
        await page.goto(host.url)
        for (const target of [sandbox, other]) {
          const blocked = await callFromPage(`${target.baseUrl}/card-users/create`, create(TOKEN))
          expect(blocked.error).toMatch(/Failed to fetch/)
        }
        // the preflight kept the request from being sent: nothing was created
        expect((await api('GET', '/v1/card-users')).body.data[0].data).toEqual([])
      } finally {
        await other.close()
        await host.close()
      }
    })
  })

  describe('framing', () => {
    it('another site cannot frame the dashboard or the checkout page', async () => {
      const created = await api('POST', '/v1/payments/create', {
        amount: 500,
        network: 'wave-sn',
        customer: { full_name: 'Awa Diop', phone: '+221770000001' },
      })
      const checkout: string = created.body.data.payment.meta.wallet_url
      const host = await serveHostPage(
        `<!doctype html><html><body>
      <iframe id="dashboard" src="${sandbox.url}/__sandbox/ui"></iframe>
      <iframe id="checkout" src="${checkout}"></iframe></body></html>`,
      )
      try {
        await page.goto(host.url)
        await page.waitForLoadState('load')
        await eventually(() => cspReports.filter((r) => r.includes('frame-ancestors')).length).toBe(
          2,
        )
        expect(await page.frameLocator('#dashboard').locator('#open-tenant').count()).toBe(0)
        expect(await page.frameLocator('#checkout').locator('.amount').count()).toBe(0)
        cspReports.length = 0 // the two refusals were the point
      } finally {
        await host.close()
      }
    })
  })
})

/** A page of "the client's app", on an origin other than the sandbox's; `css` at /card.css. */
async function serveHostPage(body: string, css = '') {
  const server: Server = createServer((req, res) => {
    if (req.url === '/card.css') res.writeHead(200, { 'Content-Type': 'text/css' }).end(css)
    else res.writeHead(200, { 'Content-Type': 'text/html' }).end(body)
  })
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  const { port } = server.address() as AddressInfo
  return {
    // localhost, not 127.0.0.1: another origin than the sandbox's
    url: `http://localhost:${port}/`,
    close: () => new Promise((resolve) => server.close(resolve)),
  }
}
