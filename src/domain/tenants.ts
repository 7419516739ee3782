/**
 * Tenants (PRODUCT §3): each distinct bearer token is its own business, created on first use
 * unless the sandbox was started with an allow-list of tokens. Lookups are cached in memory;
 * the table stays the source of truth and every change is written through.
 */
import { eq, sql, type Placeholder } from 'drizzle-orm'
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
import { openFloat } from './business.js'
import { atomically } from './context.js'
import type { Ids } from './ids.js'
import { retireTenantId } from './reset.js'

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
  /** Tenants created or reset and not yet seeded with the start-up fixture. */
  const unseeded = new Set<string>()
  const selectByToken = db
    .select()
    .from(tenants)
    .where(eq(tenants.token, sql.placeholder('token')))
    .prepare()
  const selectById = db
    .select()
    .from(tenants)
    .where(eq(tenants.id, sql.placeholder('id')))
    .prepare()

  function clockOf(tenant: Tenant): ClockState {
    return { mode: tenant.clockMode, anchorMs: tenant.clockAnchorMs, wallMs: tenant.clockWallMs }
  }

  function clockColumns(state: ClockState) {
    return { clockMode: state.mode, clockAnchorMs: state.anchorMs, clockWallMs: state.wallMs }
  }

  function saveClock(tenant: Tenant, state: ClockState): Tenant {
    return update(tenant, clockColumns(state))
  }

  function update(tenant: Tenant, changes: Partial<Tenant>): Tenant {
    const updated = db
      .update(tenants)
      .set(changes)
      .where(eq(tenants.id, tenant.id))
      .returning()
      .get()
    byToken.set(updated.token, updated)
    return updated
  }

  function createTenant(token: string): Tenant {
    const wallNow = options.wallNow()
    const clock = startClock(options.clockMode, wallNow)
    const now = clockNow(clock, wallNow, options.speed)
    return atomically(db, () => {
      const tenant = db
        .insert(tenants)
        .values({
          id: ids.internal('ten'),
          token,
          businessName: ids.faker.company.name(),
          clockMode: clock.mode,
          clockAnchorMs: clock.anchorMs,
          clockWallMs: clock.wallMs,
          createdAt: now,
        })
        .returning()
        .get()
      openFloat({ db, tenant, now })
      unseeded.add(tenant.id)
      return tenant
    })
  }

  return {
    /** The tenant of a token, created on first use; null when `--tokens` keeps it out. */
    forToken(token: string): Tenant | null {
      const cached = byToken.get(token)
      if (cached) return cached
      if (options.tokens && !options.tokens.has(token)) return null
      const tenant = selectByToken.get({ token }) ?? createTenant(token)
      byToken.set(token, tenant)
      return tenant
    },

    /** True once for a tenant that is new (or reset) and has not been seeded yet. */
    takeUnseeded(id: string): boolean {
      return unseeded.delete(id)
    },

    /** Every tenant's token and business name, oldest first (the dashboard's picker). */
    all(): Pick<Tenant, 'token' | 'businessName'>[] {
      return db
        .select({ token: tenants.token, businessName: tenants.businessName })
        .from(tenants)
        .orderBy(tenants.createdAt, tenants.id)
        .all()
    },

    byId(id: string): Tenant | undefined {
      return selectById.get({ id })
    },

    now(tenant: Tenant): number {
      return clockNow(clockOf(tenant), options.wallNow(), options.speed)
    },

    clock(tenant: Tenant) {
      return { ...clockOf(tenant), now: this.now(tenant), speed: options.speed }
    },

    advance(tenant: Tenant, byMs: number): Tenant {
      return saveClock(
        tenant,
        advanceClock(clockOf(tenant), byMs, options.wallNow(), options.speed),
      )
    },

    setMode(tenant: Tenant, mode: ClockMode): Tenant {
      return saveClock(
        tenant,
        setClockMode(clockOf(tenant), mode, options.wallNow(), options.speed),
      )
    },

    /**
     * Empties the tenant at once: it gets a new id (its old rows are swept later, reset.ts);
     * its clock, delays and float start over; its token, name and webhook endpoint stay.
     */
    reset(tenant: Tenant): Tenant {
      const wallNow = options.wallNow()
      return atomically(db, () => {
        retireTenantId(db, tenant.id, wallNow)
        const clock = startClock(options.clockMode, wallNow)
        const fresh = update(tenant, {
          id: nextTenantId(tenant.id),
          delays: null,
          ...clockColumns(clock),
        })
        openFloat({ db, tenant: fresh, now: this.now(fresh) })
        unseeded.add(fresh.id)
        return fresh
      })
    },

    setDelays(tenant: Tenant, delays: Record<string, number> | null): Tenant {
      return update(tenant, { delays })
    },

    setWebhook(tenant: Tenant, webhook: { url: string | null; secret: string | null }): Tenant {
      return update(tenant, { webhookUrl: webhook.url, webhookSecret: webhook.secret })
    },
  }
}

/** Each tenant's sandbox "now" as SQL (clockNow of engine/clock.ts), for queries across tenants. */
export function tenantNowSql(wallNow: number | Placeholder, speed: number) {
  return sql`CASE ${tenants.clockMode} WHEN 'manual' THEN ${tenants.clockAnchorMs}
    ELSE ${tenants.clockAnchorMs} + CAST((${wallNow} - ${tenants.clockWallMs}) * ${speed} AS INTEGER) END`
}

/**
 * The id a tenant takes at a reset: its first id with a generation count (`ten_x` → `ten_x.1`
 * → `ten_x.2`). Derived, not drawn, so that a reset does not shift a seeded run's randomness.
 */
export function nextTenantId(id: string): string {
  const [first, generation] = id.split('.')
  return `${first}.${Number(generation ?? 0) + 1}`
}
