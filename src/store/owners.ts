/**
 * Whose is a reference (PRODUCT §8): the hosted pages carry no bearer token, so the reference
 * in their URL finds the tenant that owns the resource, whatever its token.
 */
import { eq } from 'drizzle-orm'
import type { Db } from './driver.js'
import { cardUsers, disburses, payments } from '../db/schema.js'
import { query, tableIn } from './statements.js'

const TABLES = { 'card-users': cardUsers, payments, disburses }

export type OwnedKind = keyof typeof TABLES

/** What a reference names among `kinds` (the first that has it) and the tenant owning it. */
export async function ownerOf<K extends OwnedKind>(
  db: Db,
  kinds: readonly K[],
  reference: string,
): Promise<{ kind: K; tenantId: string } | undefined> {
  for (const kind of kinds) {
    const row = await query<{ tenantId: string } | undefined>(db, 'get', (db, t) => {
      const table = tableIn(t, TABLES[kind])
      return db
        .select({ tenantId: table.tenantId })
        .from(table)
        .where(eq(table.reference, reference))
    })
    if (row) return { kind, tenantId: row.tenantId }
  }
  return undefined
}
