/**
 * Every /v1 route declares its 200 answer's schema (http/v1/answers.ts, in its route metadata),
 * and what it answers live, in every state the tour below reaches, matches that schema, as
 * the served OpenAPI document and the typed /v1 client say. The schemas are strict: a key the
 * code adds and the schema does not name fails here.
 */
import { beforeAll, describe, expect, it } from 'vitest'
import type { ZodType } from 'zod'
import { compareExchange } from '../../../src/drift/compare.js'
import { documentedRoutes } from '../../../src/http/openapi.js'
import { fullIdentity, newSandbox } from '../../helpers.js'

const sandbox = newSandbox()
const { call } = sandbox

const V1_ROUTES = documentedRoutes(sandbox.app).filter(
  (route) => route.path.startsWith('/v1/') && !route.path.startsWith('/v1/v1/'),
)
const answerOf = new Map(V1_ROUTES.map((r) => [`${r.method} ${r.path}`, r.meta?.answer]))

/** Each live answer of the tour, under the route that gave it (`POST /v1/cards/create`). */
const answers: { route: string; path: string; status: number; body: unknown }[] = []

async function send(route: string, path: string, body?: unknown) {
  const answer = await call(route.split(' ')[0], path, body)
  answers.push({ route, path, status: answer.status, body: answer.body })
  return answer.body
}

/** The reference of the one UUID under `key` anywhere in an answer. */
function find(body: unknown, key: string): string {
  const match = new RegExp(`"${key}":"([0-9a-f-]{36})"`).exec(JSON.stringify(body))
  if (!match) throw new Error(`no ${key} in ${JSON.stringify(body)}`)
  return match[1]
}

beforeAll(async () => {
  await send('POST /v1/card-users/create', '/v1/card-users/create', { phone: '+221770000002' })
  const user = find(
    await send('POST /v1/card-users/create', '/v1/card-users/create', fullIdentity()),
    'reference',
  )
  await send('POST /v1/card-users/resubmit', '/v1/card-users/resubmit', {
    card_user_reference: user,
    phone: '+221770000003',
  })
  await send('GET /v1/card-users', '/v1/card-users')
  await call('POST', `/__sandbox/card-users/${user}/transition`, { to: 'passed' })
  await send('GET /v1/card-users', '/v1/card-users')
  await send('GET /v1/card-users/:reference', `/v1/card-users/${user}`)

  const order = { card_user_reference: user, card_type: 'virtual' }
  const card = find(
    await send('POST /v1/cards/create', '/v1/cards/create', { ...order, card_brand: 'visa' }),
    'reference',
  )
  await send('GET /v1/cards/:reference', `/v1/cards/${card}`)
  await call('POST', `/__sandbox/cards/${card}/transition`, { to: 'issued' })
  const other = find(
    await send('POST /v1/cards/create', '/v1/cards/create', { ...order, card_brand: 'gim' }),
    'reference',
  )
  await call('POST', `/__sandbox/cards/${other}/transition`, { to: 'issued' })
  await send('POST /v1/cards/link', '/v1/cards/link', {
    identifier: 98765,
    card_user_reference: user,
  })
  await send('POST /v1/cards/freeze', '/v1/cards/freeze', { reference: other })
  await send('POST /v1/cards/unfreeze', '/v1/cards/unfreeze', { reference: other })
  await send('POST /v1/cards/auth/access_token', '/v1/cards/auth/access_token', { reference: card })
  await send('GET /v1/cards', '/v1/cards')
  await send('GET /v1/cards/:reference', `/v1/cards/${card}`)

  await call('POST', '/__sandbox/business/fund', { amount: 1_000_000 })
  const recharge = await send('POST /v1/transactions/create', '/v1/transactions/create', {
    action: 'recharge',
    amount: 50_000,
    card_reference: card,
    reference: 'top-up-1',
  })
  await call('POST', `/__sandbox/transactions/${find(recharge, 'slug')}/transition`, {
    to: 'success',
  })
  await send('POST /v1/transactions/create', '/v1/transactions/create', {
    action: 'transfer',
    amount: 1_000,
    card_reference: card,
    receiver_card_reference: other,
  })
  const transfers = '/v1/transactions/create'
  await send(`POST ${transfers}/card-to-bank`, `${transfers}/card-to-bank`, {
    amount: 1_000,
    card_reference: card,
    bank_id: 'SN01',
    bank_name: 'BICICI',
  })
  await send(`POST ${transfers}/card-to-wallet`, `${transfers}/card-to-wallet`, {
    amount: 1_000,
    card_reference: card,
    phone: '+221770000009',
    network: 'wave-sn',
  })
  await send(`POST ${transfers}/wallet-to-card`, `${transfers}/wallet-to-card`, {
    amount: 1_000,
    card_reference: card,
    phone: '+225070000009',
    network: 'mtn-ci',
  })
  await send('GET /v1/transactions', `/v1/transactions?card_reference=${card}`)
  await send('GET /v1/transactions/:reference', '/v1/transactions/top-up-1')

  const customer = { full_name: 'Moussa Ba', phone: '+221770000008' }
  const payment = await send('POST /v1/payments/create', '/v1/payments/create', {
    amount: 100,
    network: 'wave-sn',
    customer,
  })
  await send('GET /v1/payments', '/v1/payments')
  await send('GET /v1/payments/:reference', `/v1/payments/${find(payment, 'reference')}`)
  await send('POST /v1/disburses/create', '/v1/disburses/create', {
    amount: 100,
    network: 'bank',
    customer: {
      full_name: 'Moussa Ba',
      bank_name: 'BICICI',
      bank_id: 'SN01',
      bank_account_name: 'M Ba',
    },
  })
  const disburse = await send('POST /v1/disburses/create', '/v1/disburses/create', {
    amount: 100,
    network: 'wave-sn',
    customer,
  })
  await send('GET /v1/disburses', '/v1/disburses')
  await send('GET /v1/disburses/:reference', `/v1/disburses/${find(disburse, 'reference')}`)

  const dispute = find(
    await send('POST /v1/disputes/create', '/v1/disputes/create', {
      transaction_reference: 'top-up-1',
      reason: 'duplicate',
    }),
    'slug',
  )
  await send('GET /v1/disputes/:reference', `/v1/disputes/${dispute}`)
  await send('POST /v1/disputes/update/:reference', `/v1/disputes/update/${dispute}`, {
    transaction_reference: 'top-up-1',
    explanation: 'Charged twice.',
  })
  await send('GET /v1/disputes', '/v1/disputes')
  await send('GET /v1/disputes/:reference', `/v1/disputes/${dispute}`)
  await send('GET /v1/business/balances', '/v1/business/balances')
  await send('GET /v1/business/operations', '/v1/business/operations')
  await send('POST /v1/phone/verify', '/v1/phone/verify', {
    phone: '770000001',
    country_code: 'sn',
  })
})

describe('the /v1 answers', () => {
  it('are declared by every /v1 route', () => {
    const undeclared = V1_ROUTES.filter((r) => r.meta?.answer === undefined)
    expect(undeclared.map((r) => `${r.method} ${r.path}`)).toEqual([])
  })

  it('carry the message their route declares, which every /v1 route does', () => {
    const unsaid = V1_ROUTES.filter((r) => r.meta?.message === undefined)
    expect(unsaid.map((r) => `${r.method} ${r.path}`)).toEqual([])
    const messageOf = new Map(V1_ROUTES.map((r) => [`${r.method} ${r.path}`, r.meta?.message]))
    const differing = answers.filter(
      ({ route, body }) => (body as { message?: unknown }).message !== messageOf.get(route),
    )
    expect(differing).toEqual([])
  })

  it('are reached by the tour for every /v1 route, each with 200', () => {
    expect(answers.filter((a) => a.status !== 200)).toEqual([])
    expect([...new Set(answers.map((a) => a.route))].sort()).toEqual([...answerOf.keys()].sort())
  })

  it('match the declared schema, key for key', () => {
    const mismatches = answers.flatMap(({ route, body }) => {
      const checked = (answerOf.get(route) as ZodType).safeParse(body)
      return checked.success ? [] : [{ route, issues: checked.error.issues, body }]
    })
    expect(mismatches).toEqual([])
  })

  it('compare clean with what the drift report compares: keys, types, formats, order, message', () => {
    const findings = answers.flatMap(({ route, path, status, body }) =>
      compareExchange({ method: route.split(' ')[0], path, status, headers: {}, body }),
    )
    // the headers are not kept here: test/drift/compare.test.ts compares them
    expect(findings.filter((f) => f.kind !== 'header')).toEqual([])
  })

  it('fail the schema when the answer gains a key, loses one or changes a type', () => {
    const card = answers.find((a) => a.route === 'GET /v1/cards/:reference')!
    const schema = answerOf.get(card.route) as ZodType
    const body = card.body as { data: { card: Record<string, unknown> } }
    const changed = (change: (c: Record<string, unknown>) => void) => {
      const copy = structuredClone(body)
      change(copy.data.card)
      return schema.safeParse(copy).success
    }
    expect(changed(() => {})).toBe(true)
    expect(changed((c) => (c.nickname = 'x'))).toBe(false)
    expect(changed((c) => delete c.balance)).toBe(false)
    expect(changed((c) => (c.balance = '0'))).toBe(false)
  })
})
