/**
 * The stage that waits for the answer (src/http/middleware/answered.ts) and the webhook kick it
 * runs (webhook-kick.ts): once a request has answered, its work runs in order and sees that
 * answer; delivery is kicked when the outbox grew since the last kick, and only then.
 */
import { Hono } from 'hono'
import { describe, expect, it, vi } from 'vitest'
import type { AppEnv } from '../../../src/wiring/env.js'
import { answered } from '../../../src/http/middleware/answered.js'
import { newSandbox } from '../../helpers.js'

describe('answered', () => {
  it('runs its work in order once the route answered, with the instant the request arrived', async () => {
    const ran: string[] = []
    let arrived = 0
    let startedAt = Number.NaN
    const app = new Hono<AppEnv>()
    app.use(
      answered(
        (c, at) => {
          ran.push(`journal saw ${c.res.status}`)
          startedAt = at
        },
        (c) => void ran.push(`kick saw ${c.res.status}`),
      ),
    )
    app.get('/', (c) => {
      arrived = performance.now()
      ran.push('handler')
      return c.text('made', 201)
    })
    const res = await app.request('/')
    expect(await res.text()).toBe('made')
    expect(ran).toEqual(['handler', 'journal saw 201', 'kick saw 201'])
    expect(startedAt).toBeLessThanOrEqual(arrived)
  })

  it('sees the rendered error when the route throws, and still runs', async () => {
    const ran: string[] = []
    const app = new Hono<AppEnv>()
    app.use(answered((c) => void ran.push(`saw ${c.res.status}`)))
    app.get('/', () => {
      throw new Error('refused')
    })
    app.onError((error, c) => c.text(`rendered: ${error.message}`, 418))
    const res = await app.request('/')
    expect(res.status).toBe(418)
    expect(ran).toEqual(['saw 418'])
  })
})

describe('webhook kick', () => {
  it('kicks delivery once after an answer that follows new outbox events, never after one that follows none', async () => {
    const sandbox = newSandbox()
    const kick = vi.spyOn(sandbox.deps.deliverer, 'kick')
    await sandbox.call('GET', '/v1/cards')
    const created = await sandbox.call('POST', '/v1/card-users/create', {})
    expect(created.status).toBe(422)
    expect(kick).not.toHaveBeenCalled()

    // passing a card user's verification writes its webhook event
    await sandbox.verifiedUser()
    expect(kick).toHaveBeenCalledTimes(1)
    await sandbox.call('GET', '/v1/cards')
    await sandbox.call('GET', '/v1/card-users')
    expect(kick).toHaveBeenCalledTimes(1)

    await sandbox.verifiedUser()
    expect(kick).toHaveBeenCalledTimes(2)
  })
})
