/**
 * Tenants (PRODUCT §3): each distinct bearer token is its own business, created on first use
 * unless the sandbox was started with an allow-list of tokens. Lookups are cached in memory;
 * the table stays the source of truth and every change is written through.
 */
import type { Db } from '../store/driver.js'
import type { Tenant } from '../db/schema.js'
import {
  advanceClock,
  clockNow,
  setClockMode,
  setClockTo,
  startClock,
  type ClockMode,
  type ClockState,
  type ManualStart,
  type WallClock,
} from './clock.js'
import { refreshDueAt } from '../store/jobs.js'
import { lockName } from '../store/locks.js'
import { retireTenantId } from '../store/retired-tenants.js'
import { atomically, storeIsShared } from '../store/statements.js'
import {
  claimFixture,
  insertTenant,
  tenantById,
  tenantByToken,
  tenantByTokenForUpdate,
  tenantNames,
  tenantWithStamps,
  updateTenant,
} from '../store/tenants.js'
import { openFloat } from './business.js'
import type { Ids } from './ids.js'

export type TenantDirectoryOptions = {
  clockMode: ClockMode
  /** Where a new (or reset) tenant's manual clock starts. */
  manualStart: ManualStart
  speed: number
  /** Only these tokens get in; null lets every token in. */
  tokens: ReadonlySet<string> | null
  wallNow: WallClock
}

export type TenantDirectory = ReturnType<typeof createTenantDirectory>

/** The tenant row's own state, as a snapshot keeps it (domain/snapshots.ts). */
export type TenantState = {
  clock: { mode: ClockMode; now: number }
  delays: Tenant['delays']
  webhook: { url: string | null; secret: string | null }
}

export function createTenantDirectory(db: Db, ids: Ids, options: TenantDirectoryOptions) {
  /**
   * The tenants this process has resolved. Not kept when replicas share the store (`keeps`):
   * another one may reset a tenant or move its clock, and the next request here must see it.
   */
  const byToken = new Map<string, Tenant>()
  const keeps = !storeIsShared(db)
  const remember = (token: string, tenant: Tenant) => {
    if (keeps) byToken.set(token, tenant)
  }
  /** A new token being resolved, joined by its other first requests. */
  const resolvingByToken = new Map<string, Promise<Tenant>>()

  function clockOf(
    tenant: Pick<Tenant, 'clockMode' | 'clockAnchorMs' | 'clockWallMs'>,
  ): ClockState {
    return { mode: tenant.clockMode, anchorMs: tenant.clockAnchorMs, wallMs: tenant.clockWallMs }
  }

  function clockColumns(state: ClockState) {
    return { clockMode: state.mode, clockAnchorMs: state.anchorMs, clockWallMs: state.wallMs }
  }

  /**
   * Writes `changesOf(current)` to the tenant's row as it is now: read by token inside the
   * transaction, then updated by that row's id. The caller resolved the tenant when its request
   * arrived; a reset since (another request, or another process sharing the store) has moved it
   * to a new id, and the change then applies to the fresh tenant, which is what the client
   * means. Not the cached row: another process may have changed it. (On PostgreSQL the read
   * locks the row until the change commits.)
   */
  async function change(
    token: string,
    changesOf: (current: Tenant) => Partial<Tenant>,
    on: Db = db,
  ): Promise<Tenant> {
    const updated = await atomically(on, async (db) => {
      const current = await storedRow(db, token)
      return await updateRow(db, current, changesOf(current))
    })
    remember(token, updated)
    return updated
  }

  /** A token's row; one exists for every token a request has resolved (rows are never deleted). */
  async function storedRow(db: Db, token: string): Promise<Tenant> {
    const row = await tenantByTokenForUpdate(db, token)
    if (!row) throw new Error('a resolved token has no tenant row')
    return row
  }

  function updateRow(db: Db, current: Tenant, changes: Partial<Tenant>): Promise<Tenant> {
    return updateTenant(db, current.id, changes)
  }

  /** The token's tenant read from the store, or made; then kept in memory. */
  async function resolve(token: string, on: Db): Promise<Tenant> {
    const tenant = (await tenantByToken(on, token)) ?? (await createTenant(token, on))
    remember(token, tenant)
    return tenant
  }

  async function createTenant(token: string, on: Db): Promise<Tenant> {
    const wallNow = options.wallNow()
    const clock = startClock(options.clockMode, wallNow, options.manualStart)
    const now = clockNow(clock, wallNow, options.speed)
    return await atomically(on, async (db) => {
      // another process sharing the store may have made it since the caller looked (replicas:
      // the first request of a token on each at once make it one after the other)
      await lockName(db, `token ${token}`)
      const made = await tenantByToken(db, token)
      if (made) return made
      const tenant = await insertTenant(db, {
        id: ids.internal('ten'),
        token,
        businessName: ids.faker.company.name(),
        clockMode: clock.mode,
        clockAnchorMs: clock.anchorMs,
        clockWallMs: clock.wallMs,
        createdAt: now,
        fixturePending: true,
      })
      await openFloat({ db, tenant, now })
      return tenant
    })
  }

  return {
    /** The tenant of a token this process has resolved, without waiting (the request path). */
    known(token: string): Tenant | undefined {
      return byToken.get(token)
    },

    /** The tenant of a token, created on first use; null when `--tokens` keeps it out. */
    /** `on`: the handle of the transaction the caller is in, if it is in one. */
    async forToken(token: string, on: Db = db): Promise<Tenant | null> {
      const cached = byToken.get(token)
      if (cached) return cached
      if (options.tokens && !options.tokens.has(token)) return null
      // the first requests of a new token, at once, make it once (inside a transaction the
      // caller holds the connection: no other request is in the middle of making it)
      if (on !== db) return await resolve(token, on)
      // with replicas, a request reads the row after it arrived, never a read begun before
      const stored = keeps ? undefined : await tenantWithStamps(db, token)
      if (stored) return stored
      let resolving = resolvingByToken.get(token)
      if (!resolving) {
        resolving = resolve(token, db).finally(() => resolvingByToken.delete(token))
        resolvingByToken.set(token, resolving)
      }
      return await resolving
    },

    /**
     * The tenant, no longer pending, for the one request that is to seed it with the start-up
     * fixture (new or reset, not seeded yet: `fixturePending`); undefined for any other.
     */
    async claimFixture(tenant: Tenant): Promise<Tenant | undefined> {
      if (!tenant.fixturePending) return undefined
      const claimed = await claimFixture(db, tenant.id)
      if (claimed) remember(tenant.token, claimed)
      return claimed
    },

    /** Every tenant's token and business name, oldest first (the dashboard's picker). */
    all(): Promise<Pick<Tenant, 'token' | 'businessName'>[]> {
      return tenantNames(db)
    },

    byId(id: string): Promise<Tenant | undefined> {
      return tenantById(db, id)
    },

    now(tenant: Pick<Tenant, 'clockMode' | 'clockAnchorMs' | 'clockWallMs'>): number {
      return clockNow(clockOf(tenant), options.wallNow(), options.speed)
    },

    clock(tenant: Tenant) {
      return { ...clockOf(tenant), now: this.now(tenant), speed: options.speed }
    },

    // The writes below take the tenant's token, never its id: see change().

    advance(token: string, byMs: number): Promise<Tenant> {
      return change(token, (current) =>
        clockColumns(advanceClock(clockOf(current), byMs, options.wallNow(), options.speed)),
      )
    },

    /** Sets a clock to an instant, in manual mode (control/clock.ts refuses one in the past). */
    setTo(token: string, instant: number): Promise<Tenant> {
      return change(token, (current) =>
        clockColumns(setClockTo(clockOf(current), instant, options.wallNow())),
      )
    },

    async setMode(token: string, mode: ClockMode): Promise<Tenant> {
      const tenant = await change(token, (current) =>
        clockColumns(setClockMode(clockOf(current), mode, options.wallNow(), options.speed)),
      )
      // a clock that runs again is the tick's again (it leaves stopped clocks out)
      if (mode === 'real') await refreshDueAt(db, tenant.id)
      return tenant
    },

    /**
     * Empties the tenant at once: it gets a new id (its old rows are swept later, reset.ts);
     * its clock, delays and float start over; its token, name and webhook endpoint stay.
     * Returns the fresh tenant and the id it retired.
     */
    async reset(token: string): Promise<{ tenant: Tenant; retiredId: string }> {
      const wallNow = options.wallNow()
      const clock = startClock(options.clockMode, wallNow, options.manualStart)
      const reset = await atomically(db, async (db) => {
        const current = await storedRow(db, token)
        await retireTenantId(db, current.id, wallNow)
        const fresh = await updateRow(db, current, {
          id: nextTenantId(current.id),
          delays: null,
          fixturePending: true,
          ...clockColumns(clock),
        })
        await openFloat({ db, tenant: fresh, now: this.now(fresh) })
        return { tenant: fresh, retiredId: current.id }
      })
      remember(token, reset.tenant)
      return reset
    },

    /**
     * A snapshot's tenant state on the row (domain/snapshots.ts): its clock at the snapshot's
     * instant (a real clock runs on from there), its delays and webhook endpoint.
     */
    restore(token: string, state: TenantState, on: Db = db): Promise<Tenant> {
      return change(
        token,
        () => ({
          clockMode: state.clock.mode,
          clockAnchorMs: state.clock.now,
          clockWallMs: options.wallNow(),
          delays: state.delays,
          webhookUrl: state.webhook.url,
          webhookSecret: state.webhook.secret,
        }),
        on,
      )
    },

    setDelays(token: string, delays: Record<string, number> | null): Promise<Tenant> {
      return change(token, () => ({ delays }))
    },

    setWebhook(
      token: string,
      webhook: { url: string | null; secret: string | null },
    ): Promise<Tenant> {
      return change(token, () => ({ webhookUrl: webhook.url, webhookSecret: webhook.secret }))
    },
  }
}

/**
 * The id a tenant takes at a reset: its first id with a generation count (`ten_x` → `ten_x.1`
 * → `ten_x.2`). Derived, not drawn, so that a reset does not shift a seeded run's randomness.
 */
export function nextTenantId(id: string): string {
  const [first, generation] = id.split('.')
  return `${first}.${Number(generation ?? 0) + 1}`
}
