/** The scenarios table (PRODUCT §9): the scenarios a tenant posted at run time. */
import { and, asc, eq, sql } from 'drizzle-orm'
import type { Db } from '../db/open.js'
import { scenarios } from '../db/schema.js'
import { atomically, statement, locked, unlocked } from './statements.js'

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
  while (locked(db)) await unlocked(db)
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
    db.delete(scenarios)
      .where(and(eq(scenarios.tenantId, tenantId), eq(scenarios.name, name)))
      .run()
    db.insert(scenarios).values({ tenantId, name, definition }).run()
  })
}

/** Deletes the tenant's scenario of that name; whether there was one. */
export async function deleteScenario(db: Db, tenantId: string, name: string): Promise<boolean> {
  while (locked(db)) await unlocked(db)
  const { changes } = db
    .delete(scenarios)
    .where(and(eq(scenarios.tenantId, tenantId), eq(scenarios.name, name)))
    .run()
  return changes > 0
}
