/** The tenants table (PRODUCT §3): one row per bearer token; a reset moves the row to a new id. */
import { and, eq, getTableColumns, sql } from 'drizzle-orm'
import type { Db } from './driver.js'
import { tenants, type Tenant } from '../db/schema.js'
import { insertReturning, updateReturningBy } from './rows.js'
import { query, statement, type Tables } from './statements.js'
import type { Builder } from './driver.js'

const tokenSelect = (db: Builder, t: Tables) =>
  db
    .select()
    .from(t.tenants)
    .where(eq(t.tenants.token, sql.placeholder('token')))

const byToken = statement((db, t) => tokenSelect(db, t).prepare())

export async function tenantByToken(db: Db, token: string): Promise<Tenant | undefined> {
  return await byToken(db).get({ token })
}

/**
 * What a replica keeps from the tables is checked against, read with the tenant in one
 * statement (a shared store): the tenant's posted scenarios (their count, newest seq and sum of
 * seqs: a row is never changed in place, a post is a delete and an insert, so the seqs name the
 * rows), its earliest due instant, and the statement's snapshot (Dialect.snapshot: the request's
 * reads are cached under it, Driver.readingAt).
 */
export type TenantStamps = { scenarios: string; dueAt: number | null; snapshot: string | null }

const stampsByTenant = new WeakMap<Tenant, TenantStamps>()

/** The stamps read with `tenant` (tenantWithStamps), if it was read that way. */
export function stampsOf(tenant: Tenant): TenantStamps | undefined {
  return stampsByTenant.get(tenant)
}

const byTokenWithStamps = statement((db, t, d) =>
  db
    .select({
      ...getTableColumns(t.tenants),
      scenariosStamp: sql<string>`(SELECT count(*) || ':' || coalesce(max(${t.scenarios.seq}), 0) || ':' || coalesce(sum(${t.scenarios.seq}), 0) FROM ${t.scenarios} WHERE ${t.scenarios.tenantId} = ${t.tenants.id})`,
      dueAtStamp: sql<
        number | null
      >`(SELECT min(${t.jobs.dueAt}) FROM ${t.jobs} WHERE ${t.jobs.tenantId} = ${t.tenants.id})`,
      snapshotStamp: sql<string | null>`${d.snapshot}`,
    })
    .from(t.tenants)
    .where(eq(t.tenants.token, sql.placeholder('token')))
    .prepare(),
)

/**
 * A token's row, with its stamps (stampsOf): one statement where a request on a shared store
 * would otherwise ask for the scenarios in force and the due instant apart.
 */
export async function tenantWithStamps(db: Db, token: string): Promise<Tenant | undefined> {
  const row = await byTokenWithStamps(db).get({ token })
  if (!row) return undefined
  const { scenariosStamp, dueAtStamp, snapshotStamp, ...tenant } = row
  stampsByTenant.set(tenant, {
    scenarios: scenariosStamp,
    dueAt: dueAtStamp === null ? null : Number(dueAtStamp),
    snapshot: snapshotStamp,
  })
  return tenant
}

const byTokenForUpdate = statement((db, t, d) => d.forUpdate(tokenSelect(db, t)).prepare())

/**
 * A token's row about to be changed, in the changing transaction: on PostgreSQL it stays locked
 * until that transaction ends, so that two replicas' changes of one tenant (a reset and a clock
 * advance) apply one after the other, each to what the other left.
 */
export async function tenantByTokenForUpdate(db: Db, token: string): Promise<Tenant | undefined> {
  return await byTokenForUpdate(db).get({ token })
}

const byId = statement((db, t) =>
  db
    .select()
    .from(t.tenants)
    .where(eq(t.tenants.id, sql.placeholder('id')))
    .prepare(),
)

export async function tenantById(db: Db, id: string): Promise<Tenant | undefined> {
  return await byId(db).get({ id })
}

export function insertTenant(db: Db, values: typeof tenants.$inferInsert): Promise<Tenant> {
  return insertReturning(db, tenants, values)
}

/** Updates the tenant row `id` (its id too, at a reset) and returns it as stored. */
export function updateTenant(db: Db, id: string, changes: Partial<Tenant>): Promise<Tenant> {
  return updateReturningBy(db, tenants, tenants.id, id, changes)
}

/** Every tenant's token and business name, oldest first. */
export async function tenantNames(db: Db): Promise<Pick<Tenant, 'token' | 'businessName'>[]> {
  return await query(db, 'all', (db, t) =>
    db
      .select({ token: t.tenants.token, businessName: t.tenants.businessName })
      .from(t.tenants)
      .orderBy(t.tenants.createdAt, t.tenants.id),
  )
}

/**
 * Takes the tenant's pending fixture: the row as it is then, for the one caller whose update
 * found it pending (a replica's request at once with another's gets undefined).
 */
export async function claimFixture(db: Db, id: string): Promise<Tenant | undefined> {
  return await query<Tenant | undefined>(db, 'get', (db, t) =>
    db
      .update(t.tenants)
      .set({ fixturePending: false })
      .where(and(eq(t.tenants.id, id), eq(t.tenants.fixturePending, true)))
      .returning(),
  )
}
