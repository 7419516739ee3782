/**
 * What every domain function receives: the store, the sandbox's randomness, the calling tenant
 * and the instant of the request on that tenant's clock. Never a Hono context. The SQL itself
 * lives in src/store.
 */
import type { Db } from '../store/driver.js'
import type { Tenant } from '../db/schema.js'
import type { Ids } from './ids.js'

export type DomainContext = {
  db: Db
  ids: Ids
  tenant: Tenant
  /** Milliseconds on the tenant's sandbox clock (PRODUCT §6). */
  now: number
  /** Answer like the real service where it differs from the spec's schemas (`--quirks`). */
  quirks?: boolean
  /** Whether the opt-in webhook events the real service is not known to send are written. */
  webhookExtensions?: boolean
  /** Delay overrides of the scenarios in force for the tenant (PRODUCT §9). */
  scenarioDelays?: Partial<Record<string, number>>
  /** The async outcome a scenario rule forces on what this request creates. */
  outcome?: { to: string; afterMs?: number }
}
