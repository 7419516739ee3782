/**
 * Snapshots (issue 19 point 7): a tenant's whole state — every row it owns (resources, ledger,
 * pending jobs, webhook events and attempts, posted scenarios), its clock, delays and webhook
 * endpoint — taken under a name and restored in place, so that a suite builds an expensive
 * state once and restores it before each test. Kept in the database (store/snapshots.ts), by
 * token: they outlive the tenant's resets, and persist with `--db file`. A restore sets the
 * clock back to the instant the snapshot was taken (a clock's one way back, with a reset).
 */
import type { Tenant } from '../db/schema.js'
import { refreshDueAt } from '../store/jobs.js'
import {
  deleteSnapshot,
  findSnapshot,
  listSnapshots,
  readTenantRows,
  saveSnapshot,
  writeTenantRows,
  type TenantRows,
} from '../store/snapshots.js'
import { atomically } from '../store/statements.js'
import type { Db } from '../db/open.js'
import { SandboxError, refused } from './errors.js'
import type { TenantDirectory } from './tenants.js'

/** What a snapshot holds besides the rows: the tenant row's own state. */
export type TenantState = {
  clock: { mode: Tenant['clockMode']; now: number }
  delays: Tenant['delays']
  webhook: { url: string | null; secret: string | null }
  rows: TenantRows
}

/** How many snapshots one token may keep: each holds a copy of the tenant's rows. */
export const MAX_SNAPSHOTS_PER_TOKEN = 100

type SnapshotDeps = { db: Db; tenants: TenantDirectory }

export function captureTenant(deps: SnapshotDeps, tenant: Tenant): TenantState {
  return {
    clock: { mode: tenant.clockMode, now: deps.tenants.now(tenant) },
    delays: tenant.delays,
    webhook: { url: tenant.webhookUrl, secret: tenant.webhookSecret },
    rows: readTenantRows(deps.db, tenant.id),
  }
}

/** Puts the tenant of `token` back as `state` says, under its current id; returns it. */
export function restoreTenant(deps: SnapshotDeps, token: string, state: TenantState): Tenant {
  const tenant = atomically(deps.db, () => {
    const current = deps.tenants.forToken(token)!
    writeTenantRows(deps.db, current.id, state.rows)
    return deps.tenants.restore(token, state)
  })
  refreshDueAt(deps.db, tenant.id)
  return tenant
}

export function takeSnapshot(deps: SnapshotDeps, tenant: Tenant, name: string) {
  const known = listSnapshots(deps.db, tenant.token)
  if (known.length >= MAX_SNAPSHOTS_PER_TOKEN && !known.some((s) => s.name === name))
    throw refused(
      'name',
      `This tenant keeps ${MAX_SNAPSHOTS_PER_TOKEN} snapshots at most: delete one first.`,
    )
  const state = captureTenant(deps, tenant)
  const rowCount = Object.values(state.rows).reduce((sum, rows) => sum + rows.length, 0)
  saveSnapshot(deps.db, { token: tenant.token, name, takenAt: state.clock.now, rowCount, state })
  return { name, takenAt: state.clock.now, rowCount }
}

export function restoreSnapshot(deps: SnapshotDeps, token: string, name: string): Tenant {
  const snapshot = findSnapshot(deps.db, token, name)
  if (!snapshot) throw unknownSnapshot(deps, token, name)
  return restoreTenant(deps, token, snapshot.state as TenantState)
}

export function removeSnapshot(deps: SnapshotDeps, token: string, name: string): void {
  if (!deleteSnapshot(deps.db, token, name)) throw unknownSnapshot(deps, token, name)
}

export function snapshotsOf(deps: SnapshotDeps, token: string) {
  return listSnapshots(deps.db, token)
}

function unknownSnapshot(deps: SnapshotDeps, token: string, name: string): SandboxError {
  const names = listSnapshots(deps.db, token).map((s) => s.name)
  return new SandboxError(
    'not_found',
    `No snapshot named ${name}` +
      (names.length ? ` (snapshots: ${names.join(', ')}).` : ' (none yet).'),
  )
}
