/**
 * The claim of due jobs (src/store/due-sets.ts claimDueJobs) on PostgreSQL, where replicas claim
 * at once: the tick's claim passes over the jobs another transaction holds, so that a replica's
 * tick never waits on another's run; a request's claim waits for them, and then finds them gone.
 */
import { afterEach, describe, expect, it } from 'vitest'
import type { Db } from '../../../src/store/driver.js'
import { claimDueJobs } from '../../../src/store/due-sets.js'
import { insertJob } from '../../../src/store/jobs.js'
import { atomically } from '../../../src/store/statements.js'
import { pgStoreOnFreshSchema, TEST_PG, whileHeld } from '../../pg.js'

const cleanups: (() => Promise<void>)[] = []
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup()
})

const job = (key: string, dueAt: number) => ({
  tenantId: 'ten_1',
  resource: 'cards',
  key,
  resourceSeq: 1,
  action: 'issue',
  dueAt,
})

/** Runs `claim` while another transaction holds the tenant's jobs it claimed (their keys). */
const whileClaimed = <T>(db: Db, claim: () => Promise<T>) =>
  whileHeld(
    db,
    async (tx) => (await claimDueJobs(tx, 'ten_1', 1_000, false)).map((j) => j.key),
    claim,
  )

describe.skipIf(!TEST_PG)('claiming due jobs another transaction holds (PostgreSQL)', () => {
  it('the tick’s claim leaves them at once and takes the others', async () => {
    const { db } = await pgStoreOnFreshSchema(cleanups)
    await insertJob(db, job('held', 500))
    const { held: heldKeys, beforeRelease } = await whileClaimed(db, async () => {
      // due after the held claim was made: not among the rows it locked
      await insertJob(db, job('free', 900))
      return atomically(db, (tx) => claimDueJobs(tx, 'ten_1', 1_000, true))
    })
    expect(heldKeys).toEqual(['held'])
    expect(beforeRelease).not.toBe('waiting')
    expect((beforeRelease as { result: { key: string }[] }).result.map((j) => j.key)).toEqual([
      'free',
    ])
  })

  it('a request’s claim waits for them, then finds them gone', async () => {
    const { db } = await pgStoreOnFreshSchema(cleanups)
    await insertJob(db, job('held', 500))
    const {
      held: heldKeys,
      beforeRelease,
      result,
    } = await whileClaimed(db, () =>
      atomically(db, (tx) => claimDueJobs(tx, 'ten_1', 1_000, false)),
    )
    expect(heldKeys).toEqual(['held'])
    expect(beforeRelease).toBe('waiting')
    expect(result).toEqual([])
  })
})
