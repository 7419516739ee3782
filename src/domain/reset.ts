/**
 * A tenant's reset (PRODUCT §8): every row the tenant owns (resources, ledger, pending jobs, webhook
 * events, posted scenarios) is
 * deleted in one transaction. Other tenants are not touched. tenants.ts then puts the clock and
 * the opening float back to where a new tenant's start.
 */
import { eq } from 'drizzle-orm'
import type { Db } from '../db/open.js'
import { atomically } from './context.js'
import {
  businessOperations,
  cardUsers,
  cards,
  disburses,
  disputes,
  payments,
  accounts,
  jobs,
  postings,
  transactions,
  walletCodes,
  webhookAttempts,
  webhookEvents,
  scenarios,
} from '../db/schema.js'

const TENANT_TABLES = [
  cardUsers,
  cards,
  transactions,
  disputes,
  payments,
  disburses,
  businessOperations,
  walletCodes,
  accounts,
  postings,
  jobs,
  webhookEvents,
  webhookAttempts,
  scenarios,
]

export function resetTenantData(db: Db, tenantId: string): void {
  atomically(db, () => {
    for (const table of TENANT_TABLES) db.delete(table).where(eq(table.tenantId, tenantId)).run()
  })
}
