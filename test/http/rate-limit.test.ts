/**
 * Rate-limit realism: every /v1 answer carries X-RateLimit-Limit and
 * X-RateLimit-Remaining, counted per tenant in a minute of the tenant's clock; with --rate-limit
 * a request past the limit is a 429 in the error shape with Retry-After in seconds of that clock.
 */
import { describe, expect, it } from 'vitest'
import { parseFlags } from '../../src/cli/flags.js'
import { newSandbox } from '../helpers.js'

const limitOf = (res: { headers: Headers }) => res.headers.get('X-RateLimit-Limit')
const remainingOf = (res: { headers: Headers }) => Number(res.headers.get('X-RateLimit-Remaining'))

describe('rate-limit headers', () => {
  it('every /v1 answer shows the real limit of 60 and what is left of it, errors included', async () => {
    const sb = newSandbox()
    const first = await sb.call('GET', '/v1/cards')
    expect(limitOf(first)).toBe('60')
    expect(remainingOf(first)).toBe(59)
    const invalid = await sb.call('POST', '/v1/cards/create', {})
    expect(invalid.status).toBe(422)
    expect(remainingOf(invalid)).toBe(58)
    const unknown = await sb.call('GET', '/v1/no-such-route')
    expect(unknown.status).toBe(404)
    expect(remainingOf(unknown)).toBe(57)
    // a list page answered again from the cache still carries this request's count
    const again = await sb.call('GET', '/v1/cards')
    expect(remainingOf(again)).toBe(56)
  })

  it('counts without enforcing by default: the 61st request of a minute is answered, with 0 left', async () => {
    const sb = newSandbox()
    for (let i = 0; i < 60; i++) await sb.call('GET', '/v1/cards')
    const past = await sb.call('GET', '/v1/cards')
    expect(past.status).toBe(200)
    expect(remainingOf(past)).toBe(0)
    expect(past.headers.get('Retry-After')).toBeNull()
  })

  it('counts each tenant on its own', async () => {
    const sb = newSandbox()
    for (let i = 0; i < 5; i++) await sb.call('GET', '/v1/cards')
    const other = await sb.call('GET', '/v1/cards', undefined, { token: 'another-tenant' })
    expect(remainingOf(other)).toBe(59)
    expect(remainingOf(await sb.call('GET', '/v1/cards'))).toBe(54)
  })

  it('starts a new count once a minute of the tenant clock has passed since the first request', async () => {
    const sb = newSandbox()
    await sb.call('GET', '/v1/cards')
    await sb.call('POST', '/__sandbox/clock/advance', { by: '59s' })
    expect(remainingOf(await sb.call('GET', '/v1/cards'))).toBe(58)
    await sb.call('POST', '/__sandbox/clock/advance', { by: '1s' })
    expect(remainingOf(await sb.call('GET', '/v1/cards'))).toBe(59)
  })

  it('leaves the control plane and the pages uncounted and without the headers', async () => {
    const sb = newSandbox()
    const control = await sb.call('GET', '/__sandbox/clock')
    expect(control.status).toBe(200)
    expect(limitOf(control)).toBeNull()
    expect(remainingOf(await sb.call('GET', '/v1/cards'))).toBe(59)
  })
})

describe('--rate-limit N', () => {
  it('refuses the request past N with a 429 in the error shape and Retry-After in tenant seconds', async () => {
    const sb = newSandbox({ rateLimit: 3 })
    await sb.call('POST', '/__sandbox/clock/advance', { by: '1s' })
    for (let i = 0; i < 3; i++) expect((await sb.call('GET', '/v1/cards')).status).toBe(200)
    await sb.call('POST', '/__sandbox/clock/advance', { by: '20s' })
    const refused = await sb.call('GET', '/v1/cards')
    expect(refused.status).toBe(429)
    expect(refused.body).toEqual({ message: 'Too Many Attempts.', statusCode: 429 })
    expect(refused.headers.get('Retry-After')).toBe('40')
    expect(limitOf(refused)).toBe('3')
    expect(remainingOf(refused)).toBe(0)
  })

  it('lets requests through again once the tenant clock passes the Retry-After', async () => {
    const sb = newSandbox({ rateLimit: 1 })
    await sb.call('GET', '/v1/cards')
    const refused = await sb.call('GET', '/v1/cards')
    expect(refused.status).toBe(429)
    await sb.call('POST', '/__sandbox/clock/advance', {
      by: `${Number(refused.headers.get('Retry-After')) - 1}s`,
    })
    expect((await sb.call('GET', '/v1/cards')).status).toBe(429)
    await sb.call('POST', '/__sandbox/clock/advance', { by: '1s' })
    const after = await sb.call('GET', '/v1/cards')
    expect(after.status).toBe(200)
    expect(remainingOf(after)).toBe(0)
  })

  it('refuses one tenant without touching another', async () => {
    const sb = newSandbox({ rateLimit: 1 })
    await sb.call('GET', '/v1/cards')
    expect((await sb.call('GET', '/v1/cards')).status).toBe(429)
    const other = await sb.call('GET', '/v1/cards', undefined, { token: 'another-tenant' })
    expect(other.status).toBe(200)
  })

  it('is read from the flag and its variable, off by default, and refuses a bad value', () => {
    const run = (argv: string[], env = {}) => {
      const command = parseFlags(argv, env)
      return command.kind === 'run' ? command.options.rateLimit : undefined
    }
    expect(run([])).toBe(false)
    expect(run(['--rate-limit', '60'])).toBe(60)
    expect(run([], { CARD_SANDBOX_RATE_LIMIT: '5' })).toBe(5)
    expect(run(['--rate-limit', 'off'], { CARD_SANDBOX_RATE_LIMIT: '5' })).toBe(false)
    expect(() => run(['--rate-limit', '0'])).toThrow(/--rate-limit/)
    expect(() => run(['--rate-limit', 'many'])).toThrow(/--rate-limit/)
  })
})
