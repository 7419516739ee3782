/**
 * Client contract of the official SDKs at the commits of sdk-methods.ts: each method's request
 * is sent over HTTP as the SDK sends it (its path, body and headers), to a sandbox with
 * `--sdk-compat` off and one with it on, and every key the SDK reads is looked up in the
 * answer. A method works when it is answered 200 with every key there, of its type; one that
 * fails fails at the first check its bug names (sdk-methods.ts `shows`). The counts of working
 * methods per SDK are asserted exactly, so a sandbox change that breaks or mends one fails here.
 */
import { randomUUID } from 'node:crypto'
import { request } from 'node:http'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { startSandbox, type RunningSandbox } from '../../src/server/sandbox.js'
import {
  SDK_COMMITS,
  SDK_HEADERS,
  SDK_METHODS,
  WORKING,
  type Made,
  type Read,
  type SdkMethod,
  type SdkName,
} from './sdk-methods.js'

type Answer = { status: number; body: any }

const sandboxes: Record<'off' | 'on', RunningSandbox | undefined> = {
  off: undefined,
  on: undefined,
}
beforeAll(async () => {
  const start = (sdkCompat: boolean) =>
    startSandbox({ port: 0, clock: 'manual', log: 'silent', sdkCompat })
  ;[sandboxes.off, sandboxes.on] = await Promise.all([start(false), start(true)])
})
afterAll(async () => {
  await Promise.all([sandboxes.off?.close(), sandboxes.on?.close()])
})

/** One request over a socket with exactly these headers (node adds Host and, with a body, its length). */
function send(
  sandbox: RunningSandbox,
  method: string,
  path: string,
  headers: Record<string, string>,
  body?: unknown,
): Promise<Answer> {
  const payload = body === undefined ? undefined : JSON.stringify(body)
  return new Promise((resolve, reject) => {
    const req = request(`${sandbox.url}${path}`, { method, headers }, (res) => {
      let text = ''
      res.on('data', (chunk: Buffer) => (text += chunk.toString()))
      res.on('end', () => {
        try {
          resolve({ status: res.statusCode!, body: JSON.parse(text) })
        } catch {
          reject(new Error(`${method} ${path} answered ${res.statusCode}: ${text.slice(0, 200)}`))
        }
      })
    })
    req.on('error', reject)
    req.end(payload)
  })
}

/** The resources a method names, made through the API and the control plane, in a new tenant. */
async function make(sandbox: RunningSandbox, token: string): Promise<Made> {
  const call = async (method: string, path: string, body?: unknown) => {
    const headers: Record<string, string> = { Authorization: `Bearer ${token}` }
    if (body !== undefined) headers['Content-Type'] = 'application/json'
    const res = await send(sandbox, method, path, headers, body)
    if (res.status !== 200) throw new Error(`${method} ${path}: ${JSON.stringify(res.body)}`)
    return res.body
  }
  const issuedCard = async (user: string) => {
    const created = await call('POST', '/v1/cards/create', {
      card_user_reference: user,
      card_brand: 'visa',
      card_type: 'virtual',
    })
    const reference: string = (created.data?.card ?? created.card).reference
    await call('POST', `/__sandbox/cards/${reference}/transition`, { to: 'issued' })
    await call('POST', `/__sandbox/cards/${reference}/fund`, { amount: 1_000_000 })
    return reference
  }
  const created = await call('POST', '/v1/card-users/create', {
    first_name: 'Awa',
    last_name: 'Diop',
    address: 'Dakar',
    phone: '+221770000001',
    email: 'awa@example.com',
    id_no: '1234567890123',
    selfie_image: 'https://img.example.com/selfie.jpg',
    id_image: 'https://img.example.com/id.jpg',
    back_id_image: 'https://img.example.com/back.jpg',
  })
  const user: string = created.data.userCard.reference
  await call('POST', `/__sandbox/card-users/${user}/transition`, { to: 'passed' })
  const widget = await call('POST', '/v1/card-users/create', { phone: '+221770000002' })
  const failedUser: string = (widget.userCard ?? widget.data.userCard).reference
  await call('POST', `/__sandbox/card-users/${failedUser}/transition`, { to: 'failed' })
  const card = await issuedCard(user)
  const frozenCard = await issuedCard(user)
  await call('POST', '/v1/cards/freeze', { reference: frozenCard })
  const toWallet = (reference?: string) =>
    call('POST', '/v1/transactions/create/card-to-wallet', {
      amount: 100,
      card_reference: card,
      phone: '+221770000001',
      network: 'wave-sn',
      ...(reference !== undefined && { reference }),
    })
  const sent = await toWallet('sdk-order-1')
  const disputed = await toWallet()
  const slug: string = disputed.data.transaction.slug
  const dispute = await call('POST', '/v1/disputes/create', {
    transaction_slug: slug,
    reason: 'duplicate',
    explanation: 'Charged twice',
  })
  const disburse = await call('POST', '/v1/disburses/create', {
    amount: 5000,
    network: 'wave-sn',
    customer: { full_name: 'Awa Diop', email: 'awa@example.com', phone: '+221770000001' },
  })
  return {
    user,
    failedUser,
    linkReference: randomUUID(),
    card,
    frozenCard,
    slug,
    transactionReference: sent.data.transaction.reference,
    dispute: dispute.data[0].slug,
    disburse: (disburse.data?.disburse ?? disburse.disburse).reference,
  }
}

const typeOf = (value: unknown) =>
  Array.isArray(value) ? 'array' : value === null ? 'null' : typeof value

/**
 * The first of the SDK's reads the answer fails, in its words ('data[].last4 is absent'), or
 * 'works'. A path's `[]` takes each item of a list; a list the test looks into is never empty.
 */
function check(answer: Answer, reads: Read[]): string {
  if (answer.status !== 200) return `status ${answer.status}`
  for (const read of reads) {
    let values: unknown[] = [answer.body]
    let path = ''
    for (const segment of read.key.split('.')) {
      const list = segment.endsWith('[]')
      const name = list ? segment.slice(0, -2) : segment
      const at = path === '' ? name : `${path}.${name}`
      const next: unknown[] = []
      for (const value of values) {
        if (typeOf(value) !== 'object') return `${path} is not an object`
        if (!Object.hasOwn(value as object, name)) return `${at} is absent`
        next.push((value as Record<string, unknown>)[name])
      }
      path = list ? `${at}[]` : at
      if (list) {
        if (next.some((value) => !Array.isArray(value))) return `${at} is not a list`
        values = next.flat()
        if (values.length === 0) return `${at} is an empty list`
      } else values = next
    }
    const allowed = read.type.split('|')
    for (const value of values)
      if (!allowed.includes(typeOf(value)))
        return `${read.key} is ${typeOf(value)}, not ${read.type}`
  }
  return 'works'
}

/** What a method's bugs let through: 'never sends', the first check it fails, or 'works'. */
function declared(method: SdkMethod, sdkCompat: boolean, request = false): string {
  const stopping = method.bugs.filter(
    (bug) => !(sdkCompat && bug.mendedBySdkCompat) && !(request && bug.shows === 'never sends'),
  )
  return stopping[0]?.shows ?? 'works'
}

let tenants = 0
const runs = new Map<string, Promise<string>>()

/**
 * The method's request, sent once per sandbox (a new tenant each, so runs do not meet), and
 * what its reads make of the answer.
 */
function run(method: SdkMethod, flag: 'off' | 'on'): Promise<string> {
  const key = `${flag} ${method.sdk} ${method.method}`
  let outcome = runs.get(key)
  if (!outcome) {
    outcome = (async () => {
      const sandbox = sandboxes[flag]!
      const token = `sdk-tenant-${++tenants}`
      const made = await make(sandbox, token)
      const headers = {
        Authorization: `Bearer ${token}`,
        ...SDK_HEADERS[method.sdk][method.http === 'GET' ? 'get' : 'post'],
      }
      const answer = await send(
        sandbox,
        method.http,
        `/v1${method.path(made)}`,
        headers,
        method.body?.(made),
      )
      return check(answer, method.reads)
    })()
    runs.set(key, outcome)
  }
  return outcome
}

const SDKS = Object.keys(SDK_COMMITS) as SdkName[]

describe.each(SDKS)('the %s SDK', (sdk) => {
  const methods = SDK_METHODS.filter((m) => m.sdk === sdk)

  describe.each(['off', 'on'] as const)('with --sdk-compat %s', (flag) => {
    const title = (m: SdkMethod) => {
      const outcome = declared(m, flag === 'on')
      if (outcome !== 'never sends') return outcome
      return `never sends (the request it would send: ${declared(m, flag === 'on', true)})`
    }
    it.each(methods.map((m) => [m.method, title(m), m] as const))(
      '%s: %s',
      async (_, __, method) => {
        expect(await run(method, flag)).toBe(declared(method, flag === 'on', true))
      },
    )

    it(`has exactly ${WORKING[sdk][flag]} of ${WORKING[sdk].total} methods working`, async () => {
      const outcomes = await Promise.all(
        methods.map(async (m) => {
          const sent = await run(m, flag)
          return m.bugs.some((bug) => bug.shows === 'never sends') ? 'never sends' : sent
        }),
      )
      expect(methods).toHaveLength(WORKING[sdk].total)
      expect(outcomes.filter((outcome) => outcome === 'works')).toHaveLength(WORKING[sdk][flag])
    })
  })

  it('cites the SDK’s file and line at its named commit for every key read and every bug', () => {
    const short = SDK_COMMITS[sdk].commit.slice(0, 7)
    const citation = new RegExp(`^(lib|alal|src)/[\\w/.]+\\.(ts|py|php):\\d+ @ ${short}$`)
    for (const method of methods) {
      expect(method.at).toMatch(citation)
      for (const read of method.reads) expect(read.at, read.key).toMatch(citation)
      for (const bug of method.bugs) expect(bug.at, bug.what).toMatch(citation)
      // a method that fails says why; one that works reads what it needs
      if (method.bugs.length === 0 && sdk !== 'alal-php')
        expect(method.reads.length).toBeGreaterThan(0)
    }
  })
})
