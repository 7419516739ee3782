/**
 * Tenants (PRODUCT §3): each distinct bearer token is its own business, created on first use
 * unless the sandbox was started with an allow-list of tokens. Lookups are cached in memory;
 * the table stays the source of truth and every change is written through.
 */
import { eq, sql } from 'drizzle-orm'
import type { Db } from '../db/open.js'
import { tenants, type Tenant } from '../db/schema.js'
import {
  advanceClock,
  clockNow,
  setClockMode,
  startClock,
  type ClockMode,
  type ClockState,
  type WallClock,
} from '../engine/clock.js'
import type { Ids } from './ids.js'

export type TenantDirectoryOptions = {
  clockMode: ClockMode
  speed: number
  /** Only these tokens get in; null lets every token in. */
  tokens: ReadonlySet<string> | null
  wallNow: WallClock
}

export type TenantDirectory = ReturnType<typeof createTenantDirectory>

export function createTenantDirectory(db: Db, ids: Ids, options: TenantDirectoryOptions) {
  const byToken = new Map<string, Tenant>()
  const selectByToken = db.select().from(tenants).where(eq(tenants.token, sql.placeholder('token'))).prepare()

  function clockOf(tenant: Tenant): ClockState {
    return { mode: tenant.clockMode, anchorMs: tenant.clockAnchorMs, wallMs: tenant.clockWallMs }
  }

  function saveClock(tenant: Tenant, state: ClockState): Tenant {
    const updated = db
      .update(tenants)
      .set({ clockMode: state.mode, clockAnchorMs: state.anchorMs, clockWallMs: state.wallMs })
      .where(eq(tenants.id, tenant.id))
      .returning()
      .get()
    byToken.set(updated.token, updated)
    return updated
  }

  return {
    /** The tenant of a token, created on first use; null when `--tokens` keeps it out. */
    forToken(token: string): Tenant | null {
      const cached = byToken.get(token)
      if (cached) return cached
      if (options.tokens && !options.tokens.has(token)) return null
      let tenant = selectByToken.get({ token })
      if (!tenant) {
        const wallNow = options.wallNow()
        const clock = startClock(options.clockMode, wallNow)
        tenant = db
          .insert(tenants)
          .values({
            id: ids.internal('ten'),
            token,
            businessName: ids.faker.company.name(),
            clockMode: clock.mode,
            clockAnchorMs: clock.anchorMs,
            clockWallMs: clock.wallMs,
            createdAt: clockNow(clock, wallNow, options.speed),
          })
          .returning()
          .get()
      }
      byToken.set(token, tenant)
      return tenant
    },

    now(tenant: Tenant): number {
      return clockNow(clockOf(tenant), options.wallNow(), options.speed)
    },

    clock(tenant: Tenant) {
      return { ...clockOf(tenant), now: this.now(tenant), speed: options.speed }
    },

    advance(tenant: Tenant, byMs: number): Tenant {
      return saveClock(tenant, advanceClock(clockOf(tenant), byMs, options.wallNow(), options.speed))
    },

    setMode(tenant: Tenant, mode: ClockMode): Tenant {
      return saveClock(tenant, setClockMode(clockOf(tenant), mode, options.wallNow(), options.speed))
    },

    /** A reset puts the tenant's clock back to where a new tenant's starts. */
    resetClock(tenant: Tenant): Tenant {
      return saveClock(tenant, startClock(options.clockMode, options.wallNow()))
    },
  }
}
