/**
 * The PostgreSQL tables as drizzle-kit reads a schema, each one a named export, for
 * drizzle.pg.config.ts (drizzle-pg/). The sandbox itself asks pg-schema.ts for them when it
 * first opens PostgreSQL, and never imports this module.
 */
import { pgTablesBySchemaName } from './pg-schema.js'

export const {
  accounts,
  businessOperations,
  cardRevealTokens,
  cardUsers,
  cards,
  disburses,
  disputes,
  jobs,
  payments,
  postings,
  replicaSettings,
  retiredTenants,
  scenarios,
  snapshots,
  tenants,
  transactions,
  walletCodes,
  webhookAttempts,
  webhookEvents,
} = pgTablesBySchemaName()
