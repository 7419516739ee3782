/**
 * What a replica keeps of a tenant on a shared store is used only while the stamps read with the
 * tenant say nothing changed (store/tenants.ts tenantWithStamps): two sandboxes on one PostgreSQL
 * schema, as two replicas, each having answered the tenant before the other changes it.
 */
import { afterEach, describe, expect, it } from 'vitest'
import { startSandbox, type RunningSandbox } from '../../src/server/sandbox.js'
import { fullIdentity } from '../helpers.js'
import { freshSchema, TEST_PG } from '../pg.js'

const teapot = {
  name: 'teapot',
  rules: [{ match: { method: 'GET', path: '/v1/cards' }, respond: { status: 418 } }],
}

describe.skipIf(!TEST_PG)('two replicas and the tenant stamps (PostgreSQL)', () => {
  const cleanups: (() => Promise<unknown>)[] = []
  afterEach(async () => {
    for (const cleanup of cleanups.splice(0).reverse()) await cleanup()
  })

  async function replicas(
    clock: 'manual' | 'real',
    ticking = true,
  ): Promise<[RunningSandbox, RunningSandbox]> {
    const schema = await freshSchema()
    cleanups.push(schema.drop)
    const started: RunningSandbox[] = []
    for (let i = 0; i < 2; i++) {
      const sandbox = await startSandbox({
        port: 0,
        db: schema.url,
        clock,
        log: 'silent',
        ticking,
      })
      cleanups.push(() => sandbox.close())
      started.push(sandbox)
    }
    return started as [RunningSandbox, RunningSandbox]
  }

  const call = async (sandbox: RunningSandbox, method: string, path: string, body?: unknown) => {
    const res = await fetch(sandbox.url + path, {
      method,
      headers: { Authorization: 'Bearer stamps', 'Content-Type': 'application/json' },
      body: body === undefined ? undefined : JSON.stringify(body),
    })
    return { status: res.status, body: (await res.json()) as any }
  }

  it('puts a scenario posted on one replica in force on the next request of the other, and takes it out again', async () => {
    const [a, b] = await replicas('manual')
    expect((await call(b, 'GET', '/v1/cards')).status).toBe(200) // b keeps: no scenario
    expect((await call(a, 'POST', '/__sandbox/scenarios', teapot)).status).toBe(200)
    expect((await call(b, 'GET', '/v1/cards')).status).toBe(418)
    expect((await call(a, 'DELETE', '/__sandbox/scenarios/teapot')).status).toBe(200)
    expect((await call(b, 'GET', '/v1/cards')).status).toBe(200)
    // posted again under the same name: a new row, a new stamp
    expect((await call(a, 'POST', '/__sandbox/scenarios', teapot)).status).toBe(200)
    expect((await call(b, 'GET', '/v1/cards')).status).toBe(418)
  })

  it("answers the other replica's next list with a card one has created, after it had kept that list", async () => {
    const [a, b] = await replicas('manual')
    const user = (await call(a, 'POST', '/v1/card-users/create', fullIdentity())).body.data.userCard
      .reference
    await call(a, 'POST', `/__sandbox/card-users/${user}/transition`, { to: 'passed' })
    // b lists twice: the second may come from its read cache
    expect((await call(b, 'GET', '/v1/cards')).body.meta.total).toBe(0)
    expect((await call(b, 'GET', '/v1/cards')).body.meta.total).toBe(0)
    const created = await call(a, 'POST', '/v1/cards/create', {
      card_user_reference: user,
      card_brand: 'visa',
      card_type: 'virtual',
    })
    expect(created.status).toBe(200)
    const listed = await call(b, 'GET', '/v1/cards')
    expect(listed.body.meta.total).toBe(1)
    expect(listed.body.data[0].reference).toBe(created.body.data.card.reference)
  })

  it("runs on the other replica's next request what a job written on one has brought due (real clock)", async () => {
    // no tick on either: only the request's catch-up can run the job
    const [a, b] = await replicas('real', false)
    await call(a, 'PUT', '/__sandbox/delays', { card_user_verification: '50ms' })
    expect((await call(b, 'GET', '/v1/card-users')).status).toBe(200) // b has answered
    const created = await call(a, 'POST', '/v1/card-users/create', fullIdentity())
    const reference = created.body.data.userCard.reference
    await new Promise((resolve) => setTimeout(resolve, 100))
    // b's request reads the due instant with the tenant, and catches up before it answers
    const read = await call(b, 'GET', `/v1/card-users/${reference}`)
    expect(read.body.data.cardUser.status).toBe('passed')
  })
})
