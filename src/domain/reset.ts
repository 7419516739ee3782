/**
 * A tenant's reset (PRODUCT §8): every row the tenant owns is deleted in one transaction and its
 * clock goes back to where a new tenant's starts. Other tenants are not touched.
 */
import { eq } from 'drizzle-orm'
import type { Db } from '../db/open.js'
import {
  businessOperations,
  cardUsers,
  cards,
  disburses,
  disputes,
  payments,
  transactions,
  walletCodes,
} from '../db/schema.js'

const TENANT_TABLES = [cardUsers, cards, transactions, disputes, payments, disburses, businessOperations, walletCodes]

export function resetTenantData(db: Db, tenantId: string): void {
  db.transaction(() => {
    for (const table of TENANT_TABLES) db.delete(table).where(eq(table.tenantId, tenantId)).run()
  })
}
