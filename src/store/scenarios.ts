/** The scenarios table (PRODUCT §9): the scenarios a tenant posted at run time. */
import { and, asc, eq, sql } from 'drizzle-orm'
import type { Db } from './driver.js'
import { atomically, query, statement } from './statements.js'

const ofTenant = statement((db, t) =>
  db
    .select()
    .from(t.scenarios)
    .where(eq(t.scenarios.tenantId, sql.placeholder('tenant')))
    .orderBy(asc(t.scenarios.seq))
    .prepare(),
)

/** The definitions the tenant posted, oldest first. */
export async function postedScenarios(db: Db, tenantId: string): Promise<unknown[]> {
  return (await ofTenant(db).all({ tenant: tenantId })).map((row) => row.definition)
}

/** Saves a tenant's scenario, replacing the one of the same name. */
export async function saveScenario(
  db: Db,
  tenantId: string,
  name: string,
  definition: unknown,
): Promise<void> {
  await atomically(db, async (db) => {
    await deleteScenario(db, tenantId, name)
    await query(db, 'run', (db, t) => db.insert(t.scenarios).values({ tenantId, name, definition }))
  })
}

/** Deletes the tenant's scenario of that name; whether there was one. */
export async function deleteScenario(db: Db, tenantId: string, name: string): Promise<boolean> {
  const { changes } = await query<{ changes: number }>(db, 'run', (db, t) =>
    db
      .delete(t.scenarios)
      .where(and(eq(t.scenarios.tenantId, tenantId), eq(t.scenarios.name, name))),
  )
  return changes > 0
}
