/**
 * Client contract of the official SDKs: each method of sdk-methods.ts sends exactly
 * what the SDK sends to a sandbox, and every key the SDK reads is there with its type; a method
 * the SDK itself breaks shows its bug as written down (its status, the keys it misses).
 */
import { describe, expect, it } from 'vitest'
import { SDK_METHODS, type Made, type SdkMethod } from './sdk-methods.js'
import { newSandbox } from '../helpers.js'

type Sandbox = ReturnType<typeof newSandbox>

/** The resources every call may name, made through the API and the control plane. */
async function make(sb: Sandbox): Promise<Made> {
  const { user, reference: card } = await sb.fundedCard('visa', undefined, 1_000_000)
  const { reference: otherCard } = await sb.fundedCard('mastercard', undefined, 1_000_000)
  const sent = await sb.call('POST', '/v1/transactions/create/card-to-wallet', {
    amount: 100,
    card_reference: card,
    phone: '+221770000001',
    network: 'wave-sn',
    reference: 'sdk-order-1',
  })
  const disputed = await sb.call('POST', '/v1/transactions/create/card-to-wallet', {
    amount: 100,
    card_reference: otherCard,
    phone: '+221770000001',
    network: 'wave-sn',
  })
  const slug = disputed.body.data.transaction.slug
  const dispute = await sb.call('POST', '/v1/disputes/create', {
    transaction_slug: slug,
    reason: 'duplicate',
    explanation: 'Charged twice',
  })
  const payment = await sb.call('POST', '/v1/payments/create', {
    amount: 5000,
    network: 'wave-sn',
    customer: { full_name: 'Awa Diop', email: 'awa@example.com', phone: '+221770000001' },
  })
  const disburse = await sb.call('POST', '/v1/disburses/create', {
    amount: 5000,
    network: 'wave-sn',
    customer: { full_name: 'Awa Diop', email: 'awa@example.com', phone: '+221770000001' },
  })
  const referenceOf = (body: any, key: string) => (body.data?.[key] ?? body[key]).reference
  return {
    user,
    card,
    otherCard,
    slug,
    transactionReference: sent.body.data.transaction.reference,
    dispute: dispute.body.data[0].slug,
    payment: referenceOf(payment.body, 'payment'),
    disburse: referenceOf(disburse.body, 'disburse'),
  }
}

const typeOf = (value: unknown) =>
  Array.isArray(value) ? 'array' : value === null ? 'null' : typeof value

/** The objects at `at` in an answer: the answer, its data, or each item of its data. */
function objectsAt(body: any, at: '' | 'data' | 'data[]'): any[] {
  if (at === '') return [body]
  if (at === 'data') return [body.data]
  return Array.isArray(body.data) ? body.data : []
}

async function send(method: SdkMethod) {
  const sb = newSandbox({ sdkCompat: method.sdkCompat ?? false })
  const made = await make(sb)
  return sb.call(method.http, `/v1${method.path(made)}`, method.body?.(made))
}

describe.each(['node', 'php', 'python'] as const)('the %s SDK', (sdk) => {
  const methods = SDK_METHODS.filter((m) => m.sdk === sdk)
  const working = methods.filter((m) => !m.sdkBug && !m.notServed)
  const broken = methods.filter((m) => m.sdkBug || m.notServed)

  it.each(working.map((m) => [m.method, m] as const))(
    '%s: accepted, and every key it reads is there with its type',
    async (_, method) => {
      const res = await send(method)
      expect(res.status, JSON.stringify(res.body)).toBe(200)
      expect(typeOf(res.body)).toBe('object')
      for (const object of objectsAt(res.body, method.reads?.at ?? '')) {
        for (const [key, type] of Object.entries(method.reads?.keys ?? {}))
          expect(typeOf(object?.[key]), `${method.method} reads ${key}`).toBe(type)
      }
    },
  )

  it.each(broken.map((m) => [m.method, m] as const))(
    '%s: its own bug shows as written down',
    async (_, method) => {
      const res = await send(method)
      expect(res.status, JSON.stringify(res.body)).toBe(method.shows!.status)
      if (method.shows!.carriesStatusCode) expect(typeOf(res.body.statusCode)).toBe('number')
      if (method.shows!.dataIsNotAList) expect(typeOf(res.body.data)).toBe('object')
      const absent = method.shows!.absent
      if (absent) {
        const objects = absent.at === '' ? [res.body] : objectsAt(res.body, 'data[]')
        expect(objects.length, 'objects to look at').toBeGreaterThan(0)
        for (const object of objects)
          for (const key of absent.keys)
            expect(object, `${method.method} misses ${key}`).not.toHaveProperty(key)
      }
      // what it does read correctly is still there
      if (method.reads && res.status === 200) {
        for (const object of objectsAt(res.body, method.reads.at))
          for (const [key, type] of Object.entries(method.reads.keys))
            expect(typeOf(object?.[key])).toBe(type)
      }
    },
  )
})
