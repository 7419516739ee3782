/**
 * The dashboard's one browser script, served inline in the shell (PRODUCT §8). The
 * Content-Security-Policy allows it by its sha256, computed once at start
 * (http/middleware/security-headers.ts), so the text must stay a constant.
 */
/**
 * Opens a tenant from the token form (kept in sessionStorage), polls its panel every second,
 * and turns buttons and forms into control-plane calls with its token.
 */
export const DASHBOARD_SCRIPT = `
(function () {
  var KEY = 'card-sandbox-token'
  var form = document.getElementById('open-tenant')
  var input = document.getElementById('token')
  var closer = document.getElementById('close-tenant')
  var welcome = document.getElementById('welcome')
  var panel = document.getElementById('panel')
  var toast = document.getElementById('toast')
  var token = null
  var shown = ''
  var timer = null
  function headers(json) {
    var h = { Authorization: 'Bearer ' + token }
    if (json) h['Content-Type'] = 'application/json'
    return h
  }
  function open(value) {
    token = value
    sessionStorage.setItem(KEY, value)
    welcome.hidden = true
    closer.hidden = false
    panel.hidden = false
    panel.innerHTML = '<p class="muted">Loading...</p>'
    shown = ''
    refresh(true)
    clearInterval(timer)
    timer = setInterval(refresh, 1000)
  }
  function close(message) {
    token = null
    sessionStorage.removeItem(KEY)
    clearInterval(timer)
    panel.hidden = true
    panel.innerHTML = ''
    shown = ''
    closer.hidden = true
    welcome.hidden = false
    if (message) say(message, true)
  }
  function busy() {
    var active = document.activeElement
    return active && panel.contains(active) && active.tagName === 'INPUT' ||
      panel.querySelector('details[open]') !== null
  }
  function refresh(force) {
    if (!token || (!force && busy())) return Promise.resolve()
    var asked = token
    return fetch('/__sandbox/ui/panel', { headers: headers(false), cache: 'no-store' })
      .then(function (res) {
        if (asked !== token) return
        if (res.status === 401) return close('The sandbox does not let this token in (--tokens).')
        return res.text().then(function (text) {
          if (asked !== token) return
          if (text !== shown) { shown = text; panel.innerHTML = text }
          panel.dataset.loaded = String(Date.now())
        })
      })
      .catch(function () {})
  }
  function say(message, failed) {
    toast.textContent = message
    toast.className = failed ? 'error' : ''
    toast.hidden = false
    clearTimeout(say.timer)
    say.timer = setTimeout(function () { toast.hidden = true }, 4000)
  }
  function send(route, body) {
    var parts = route.split(' ')
    return fetch(parts[1], { method: parts[0], headers: headers(body !== undefined),
      body: body === undefined ? undefined : JSON.stringify(body) })
      .then(function (res) { return res.json().then(function (json) { return { ok: res.ok, json: json } }) })
      .then(function (answer) {
        var errors = answer.json.errors ? ' ' + JSON.stringify(answer.json.errors) : ''
        say(answer.json.message + errors, !answer.ok)
        return refresh(true)
      })
  }
  form.addEventListener('submit', function (event) {
    event.preventDefault()
    var value = input.value.trim()
    input.value = ''
    if (value) open(value)
  })
  closer.addEventListener('click', function () { close() })
  panel.addEventListener('click', function (event) {
    var button = event.target.closest('button[data-call]')
    if (!button) return
    button.disabled = true
    send(button.dataset.call, button.dataset.body ? JSON.parse(button.dataset.body) : undefined)
  })
  panel.addEventListener('submit', function (event) {
    var form = event.target.closest('form[data-call]')
    if (!form) return
    event.preventDefault()
    var body = {}
    Array.prototype.forEach.call(form.elements, function (field) {
      if (!field.name) return
      body[field.name] = field.type === 'number' ? Number(field.value) : field.value
    })
    document.activeElement && document.activeElement.blur()
    send(form.dataset.call, body)
  })
  var kept = sessionStorage.getItem(KEY)
  if (kept) open(kept)
})()
`
