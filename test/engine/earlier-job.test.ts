/**
 * What the due index (store/jobs.ts) must never miss: a job written due before its tenant's
 * earliest pending one runs at its own instant on a real clock, by the tick, with no request to
 * the tenant to catch it up (which would run it whatever the index said). Seen through the API:
 * the verification's webhook arrives, sent once the job has run. On SQLite, from the process
 * itself (insertJob lowers the instant); on PostgreSQL, from the replica and from another one
 * (the write is announced: store/announced.ts), with the slow poll, which would find it by
 * reading everything again, put off past the test.
 */
import { eq } from 'drizzle-orm'
import { afterEach, describe, expect, it } from 'vitest'
import type { CardUser } from '../../src/db/schema.js'
import { callAs, createSandbox, type Sandbox } from '../../src/server/sandbox.js'
import { query } from '../../src/store/statements.js'
import { fullIdentity } from '../helpers.js'
import { freshSchema, TEST_PG } from '../pg.js'
import { startReceiver, until } from '../webhooks/receiver.js'

const TOKEN = 'earlier-job'

const cleanups: (() => unknown)[] = []
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup()
})

const referenceOf = (created: { body: unknown }) =>
  (created.body as { data: { userCard: { reference: string } } }).data.userCard.reference

/** Two sandboxes on one store: `far` ticks; `near` writes the earlier job (the same one, or another replica). */
async function runsTheEarlierJob(far: Sandbox, near: Sandbox): Promise<void> {
  const receiver = await startReceiver()
  cleanups.push(() => receiver.close())
  const callFar = callAs(far.app, TOKEN)
  const callNear = callAs(near.app, TOKEN)
  await callFar('PUT', '/__sandbox/webhook', { url: receiver.url })
  await callFar('PUT', '/__sandbox/delays', { card_user_verification: '1h' })
  const later = referenceOf(await callFar('POST', '/v1/card-users/create', fullIdentity()))
  await callNear('PUT', '/__sandbox/delays', { card_user_verification: '1s' })
  const sooner = referenceOf(await callNear('POST', '/v1/card-users/create', fullIdentity()))

  const sent = (reference: string) => receiver.requests.some((r) => r.body.includes(reference))
  await until(() => sent(sooner), 10_000, 'the earlier verification webhook')
  // read from the store, not through the API: a request to the tenant would catch it up
  const userOf = (reference: string) =>
    query<CardUser>(far.deps.db, 'get', (db, t) =>
      db.select().from(t.cardUsers).where(eq(t.cardUsers.reference, reference)),
    )
  const ran = await userOf(sooner)
  expect(ran.status).toBe('passed')
  expect(ran.updatedAt).toBe(ran.createdAt + 1_000) // at its own instant
  expect((await userOf(later)).status).toBe('pending')
  expect(sent(later)).toBe(false)
}

/** No slow poll within the test: on PostgreSQL, only the announcement tells of the job. */
function sandbox(db?: string, ticking = true): Sandbox {
  const made = createSandbox({ clock: 'real', db, ticking, slowPollMs: 3_600_000 })
  cleanups.push(() => made.close())
  return made
}

describe('a job due before its tenant’s earliest pending one (real clock)', () => {
  it('runs at its own instant on SQLite', async () => {
    const one = sandbox()
    await runsTheEarlierJob(one, one)
  })

  describe.skipIf(!TEST_PG)('on PostgreSQL', () => {
    async function schemaUrl(): Promise<string> {
      const schema = await freshSchema()
      cleanups.push(schema.drop)
      return schema.url
    }

    it('runs at its own instant, written by the replica that ticks', async () => {
      const one = sandbox(await schemaUrl())
      await runsTheEarlierJob(one, one)
    })

    it('runs at its own instant, written by another replica', async () => {
      const url = await schemaUrl()
      // only the first ticks: it hears of the other's job by the announcement alone
      await runsTheEarlierJob(sandbox(url), sandbox(url, false))
    })
  })
})
