/**
 * The hosted verification widget (SPEC §4.2, PRODUCT §8). `/__sandbox/widget.js` defines
 * `window.CardSandboxWidget.mount(options)`, which opens `/__sandbox/verify/{reference}` in an
 * overlay. There the person types their identity and, this being a sandbox, chooses whether
 * verification passes or fails; the page posts each step to the script, which calls the
 * options' onNavigationUpdate, onExit, onError and onComplete. Completing it moves the card user
 * on and sends the webhook, as the real service does.
 */
import { Hono } from 'hono'
import { html } from 'hono/html'
import { z } from 'zod'
import type { CardUser } from '../db/schema.js'
import { findCardUser } from '../domain/card-users.js'
import { notFound } from '../domain/errors.js'
import { completeVerification } from '../domain/hosted-pages.js'
import type { AppEnv } from '../wiring/env.js'
import { ok } from '../http/envelope.js'
import { cardUserJson } from '../http/v1/card-users.js'
import { describeRoute } from '../http/route-meta.js'
import { validate } from '../http/validate.js'
import { withExample } from '../http/v1/schemas.js'
import { page, statusBadge } from './layout.js'
import { actAsOwner } from './owner.js'

/** The script's global; the real one carries the maker's brand (SPEC §4.2 does not name it). */
export const WIDGET_GLOBAL = 'CardSandboxWidget'

const HEX_COLOUR = /^#(?:[0-9a-f]{3}|[0-9a-f]{6})$/i
const DEFAULT_COLOUR = '#0f6e5a'

const identityField = z.string().trim().min(1).max(255)

export const verificationBody = withExample(
  z.object({
    outcome: z.enum(['passed', 'failed']),
    first_name: identityField,
    last_name: identityField,
    address: identityField,
    id_no: identityField,
    email: z.email().max(255).optional(),
  }),
  {
    outcome: 'passed',
    first_name: 'Fatou',
    last_name: 'Sow',
    address: '3 Avenue Cheikh Anta Diop, Dakar',
    id_no: 'SN-998877',
  },
)

const referenceParam = z.object({ reference: z.uuid() })
const CARD_USERS = ['card-users'] as const

export const widgetApi = new Hono<AppEnv>()
  .get('/widget.js', describeRoute({ auth: 'none', summary: 'Hosted verification widget' }), (c) =>
    c.body(WIDGET_SCRIPT, 200, {
      'Content-Type': 'application/javascript; charset=utf-8',
      'Cache-Control': 'no-cache',
    }),
  )
  .get(
    '/verify/:reference',
    describeRoute({ auth: 'none', summary: 'Verification page the widget opens' }),
    async (c) => {
      const colour = c.req.query('color') ?? ''
      const accent = HEX_COLOUR.test(colour) ? colour : DEFAULT_COLOUR
      const reference = c.req.param('reference')
      const owner = await actAsOwner(c, CARD_USERS, reference)
      const user = owner && (await findCardUser(owner.ctx, reference, 'reference'))
      return c.html(verificationPage(reference, user, accent), user ? 200 : 404)
    },
  )
  .post(
    '/verify/:reference',
    describeRoute({ auth: 'none', summary: 'Complete a widget verification (pass or fail)' }),
    validate('param', referenceParam),
    validate('json', verificationBody),
    async (c) => {
      const { reference } = c.req.valid('param')
      const { outcome, ...identity } = c.req.valid('json')
      const owner = await actAsOwner(c, CARD_USERS, reference)
      if (!owner) throw notFound('reference', 'card user', reference)
      const user = await completeVerification(owner.ctx, reference, identity, outcome)
      c.get('deps').deliverer.kick()
      return ok(c, `Verification ${user.status}`, {
        data: { reference, status: user.status, userCard: cardUserJson(user) },
      })
    },
  )

function verificationPage(reference: string, user: CardUser | undefined, accent: string) {
  const body = html`<main
    class="widget"
    data-reference="${reference}"
    data-status="${user?.status ?? 'unknown'}"
    style="--accent: ${accent}"
  >
    <header>
      <h1>Verify your identity</h1>
      <p class="muted">card-sandbox · test mode: nothing here is checked</p>
      <button type="button" class="close" data-exit aria-label="Close">×</button>
    </header>
    ${user ? verificationSteps(user) : unknownUser()}
  </main>`
  return page('Identity verification', body, { style: WIDGET_STYLE, script: VERIFY_PAGE_SCRIPT })
}

function unknownUser() {
  return html`<section data-step="error" class="step">
    <p>No card user has this reference. Create one with <code>POST /v1/card-users/create</code>.</p>
  </section>`
}

function verificationSteps(user: CardUser) {
  if (user.status !== 'pending') {
    return html`<section data-step="result" class="step">
      <p>This verification is already ${statusBadge(user.status)}.</p>
    </section>`
  }
  return html`<form data-step="identity" class="step">
      <p class="muted">Phone ${user.phone}</p>
      <label>First name <input name="first_name" required value="${user.firstName ?? ''}" /></label>
      <label>Last name <input name="last_name" required value="${user.lastName ?? ''}" /></label>
      <label>Address <input name="address" required value="${user.address ?? ''}" /></label>
      <label>ID number <input name="id_no" required value="${user.idNo ?? ''}" /></label>
      <label>Email <input name="email" type="email" value="${user.email ?? ''}" /></label>
      <button class="primary" type="submit">Continue</button>
    </form>
    <form data-step="review" class="step" hidden>
      <p>In the sandbox you choose how verification ends.</p>
      <label class="choice">
        <input type="radio" name="outcome" value="passed" checked /> Pass verification
      </label>
      <label class="choice">
        <input type="radio" name="outcome" value="failed" /> Fail verification
      </label>
      <div class="row">
        <button type="button" data-back>Back</button>
        <button class="primary" type="submit">Submit</button>
      </div>
    </form>
    <section data-step="result" class="step" hidden>
      <p data-result></p>
    </section>`
}

const WIDGET_STYLE = `
.widget { max-width: 420px; margin: 0 auto; padding: 20px; background: #fff; min-height: 100vh; position: relative; }
.widget header { margin-bottom: 16px; }
.close { position: absolute; top: 12px; right: 12px; border: 0; font-size: 20px; }
.step { display: flex; flex-direction: column; gap: 10px; }
.step label { display: flex; flex-direction: column; gap: 4px; }
.step label.choice { flex-direction: row; align-items: center; gap: 8px; }
.row { display: flex; gap: 8px; justify-content: flex-end; }
button.primary { background: var(--accent); border-color: var(--accent); }
`

/** Runs in the verification page: steps, the submission, and messages to the widget script. */
export const VERIFY_PAGE_SCRIPT = `
(function () {
  var main = document.querySelector('main.widget')
  var reference = main.dataset.reference
  function tell(type, payload) {
    if (window.parent !== window) {
      window.parent.postMessage({ source: 'card-sandbox-widget', type: type, payload: payload }, '*')
    }
  }
  function show(step) {
    document.querySelectorAll('[data-step]').forEach(function (el) { el.hidden = el.dataset.step !== step })
    tell('navigation', { reference: reference, step: step })
  }
  var current = document.querySelector('[data-step]:not([hidden])')
  if (current) {
    if (current.dataset.step === 'error') tell('error', { reference: reference, code: 'not_found', message: 'No card user has this reference.' })
    else if (current.dataset.step === 'result') tell('error', { reference: reference, code: 'already_completed', message: 'This verification is already ' + main.dataset.status + '.' })
    else tell('navigation', { reference: reference, step: current.dataset.step })
  }
  document.querySelector('[data-exit]').addEventListener('click', function () {
    var step = document.querySelector('[data-step]:not([hidden])')
    tell('exit', { reference: reference, step: step ? step.dataset.step : null })
  })
  var identity = document.querySelector('form[data-step=identity]')
  var review = document.querySelector('form[data-step=review]')
  if (!identity) return
  identity.addEventListener('submit', function (event) { event.preventDefault(); show('review') })
  review.querySelector('[data-back]').addEventListener('click', function () { show('identity') })
  review.addEventListener('submit', function (event) {
    event.preventDefault()
    var body = {}
    new FormData(identity).forEach(function (value, name) { if (value !== '') body[name] = value })
    body.outcome = new FormData(review).get('outcome')
    review.querySelector('[type=submit]').disabled = true
    fetch(location.pathname, { method: 'POST', headers: { 'Content-Type': 'application/json' }, body: JSON.stringify(body) })
      .then(function (res) { return res.json().then(function (json) { return { ok: res.ok, json: json } }) })
      .then(function (answer) {
        if (!answer.ok) {
          review.querySelector('[type=submit]').disabled = false
          tell('error', { reference: reference, code: 'rejected', message: answer.json.message, errors: answer.json.errors })
          return
        }
        var status = answer.json.data.status
        document.querySelector('[data-result]').textContent = status === 'passed' ? 'Identity verified.' : 'Verification failed.'
        show('result')
        tell('complete', { reference: reference, status: status, userCard: answer.json.data.userCard })
      })
      .catch(function (error) { tell('error', { reference: reference, code: 'network', message: String(error) }) })
  })
})()
`

/** Served as /__sandbox/widget.js: the global with mount(options) (SPEC §4.2). */
const WIDGET_SCRIPT = `/* card-sandbox hosted verification widget: ${WIDGET_GLOBAL}.mount(options) */
(function () {
  var script = document.currentScript
  var origin = script && script.src ? new URL(script.src).origin : location.origin
  function noop() {}
  function mount(options) {
    options = options || {}
    var on = {
      navigation: options.onNavigationUpdate || noop,
      exit: options.onExit || noop,
      error: options.onError || noop,
      complete: options.onComplete || noop
    }
    if (typeof options.reference !== 'string' || options.reference === '') {
      on.error({ code: 'invalid_options', message: 'mount() needs the card user reference.' })
      return { unmount: noop }
    }
    var overlay = document.createElement('div')
    overlay.setAttribute('data-card-sandbox-widget', '')
    overlay.style.cssText = 'position:fixed;inset:0;background:rgba(16,24,40,.5);display:flex;align-items:center;justify-content:center;z-index:2147483647'
    var frame = document.createElement('iframe')
    frame.title = 'Identity verification'
    frame.src = origin + '/__sandbox/verify/' + encodeURIComponent(options.reference) +
      (options.color ? '?color=' + encodeURIComponent(options.color) : '')
    frame.style.cssText = 'width:420px;max-width:95vw;height:640px;max-height:95vh;border:0;border-radius:12px;background:#fff'
    overlay.appendChild(frame)
    document.body.appendChild(overlay)
    function unmount() {
      window.removeEventListener('message', onMessage)
      if (overlay.parentNode) overlay.parentNode.removeChild(overlay)
    }
    function onMessage(event) {
      var message = event.data
      if (event.source !== frame.contentWindow || event.origin !== origin) return
      if (!message || message.source !== 'card-sandbox-widget') return
      if (message.type === 'navigation') on.navigation(message.payload)
      else if (message.type === 'error') on.error(message.payload)
      else if (message.type === 'exit') { unmount(); on.exit(message.payload) }
      else if (message.type === 'complete') { unmount(); on.complete(message.payload) }
    }
    window.addEventListener('message', onMessage)
    return { unmount: unmount }
  }
  window.${WIDGET_GLOBAL} = { mount: mount }
})()
`
