/**
 * The due index's load on PostgreSQL (store/postgres/due-index.ts) reads about as many buffers
 * with 100,000 jobs pending as with 1,000: per real-clock tenant, one probe of jobs (tenant_id,
 * due_at), never a pass over the jobs.
 */
import pg from 'pg'
import { afterEach, describe, expect, it } from 'vitest'
import { closeStore, openStore } from '../../../src/store/open.js'
import type { PgStore } from '../../../src/store/postgres/open.js'
import type { Db } from '../../../src/store/driver.js'
import { EARLIEST_DUE_ON_REAL_CLOCKS } from '../../../src/store/postgres/due-index.js'
import { freshSchema, TEST_PG } from '../../pg.js'

type PlanNode = {
  'Shared Hit Blocks': number
  'Shared Read Blocks': number
  'Index Name'?: string
  Plans?: PlanNode[]
}

function indexesOf(node: PlanNode): string[] {
  return [
    ...(node['Index Name'] ? [node['Index Name']] : []),
    ...(node.Plans ?? []).flatMap(indexesOf),
  ]
}

describe.skipIf(!TEST_PG)('the earliest due instant per real-clock tenant (PostgreSQL)', () => {
  const cleanups: (() => Promise<unknown>)[] = []
  afterEach(async () => {
    for (const cleanup of cleanups.splice(0).reverse()) await cleanup()
  })

  it('reads about the same buffers with 1,000 and with 100,000 pending jobs', async () => {
    const schema = await freshSchema()
    cleanups.push(schema.drop)
    const db = openStore(schema.url)
    await (db as Db & { pg: PgStore }).pg.ready // migrated
    await closeStore(db)
    const client = new pg.Client({ connectionString: schema.url })
    await client.connect()
    cleanups.push(() => client.end())
    // 20 tenants on a real clock, 20 on a manual one
    await client.query(
      `INSERT INTO tenants (id, token, business_name, clock_mode, clock_anchor_ms, clock_wall_ms, created_at)
       SELECT 'ten_' || n, 'token-' || n, 'Business ' || n,
         CASE WHEN n % 2 = 0 THEN 'real' ELSE 'manual' END, 0, 0, 0
       FROM generate_series(1, 40) n`,
    )
    const fillTo = async (jobs: number) => {
      await client.query(
        `INSERT INTO jobs (tenant_id, resource, key, action, due_at)
         SELECT 'ten_' || (1 + n % 40), 'card-users', 'ref-' || n, 'passed', 1000000 + n * 7 % 99991
         FROM generate_series((SELECT count(*) FROM jobs) + 1, $1) n`,
        [jobs],
      )
      await client.query('ANALYZE')
      const { rows } = await client.query<{ 'QUERY PLAN': [{ Plan: PlanNode }] }>(
        `EXPLAIN (ANALYZE, BUFFERS, FORMAT JSON) ${EARLIEST_DUE_ON_REAL_CLOCKS}`,
      )
      const plan = rows[0]['QUERY PLAN'][0].Plan
      const { rows: found } = await client.query(EARLIEST_DUE_ON_REAL_CLOCKS)
      return {
        buffers: plan['Shared Hit Blocks'] + plan['Shared Read Blocks'],
        indexes: indexesOf(plan),
        tenants: found.length,
      }
    }
    const few = await fillTo(1_000)
    const many = await fillTo(100_000)
    console.log(`buffers read: ${few.buffers} with 1,000 jobs, ${many.buffers} with 100,000`)
    expect(few.tenants).toBe(20)
    expect(many.tenants).toBe(20)
    expect(many.indexes).toContain('jobs_tenant_due')
    expect(many.buffers).toBeLessThanOrEqual(2 * few.buffers)
    // writing and analysing 100,000 jobs takes over 20 s when the whole suite shares the machine
  }, 120_000)
})
