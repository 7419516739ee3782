/**
 * Snapshots: a tenant's whole state — every row it owns (resources, ledger,
 * pending jobs, webhook events and attempts, posted scenarios), its clock, delays and webhook
 * endpoint — taken under a name and restored in place, so that a suite builds an expensive
 * state once and restores it before each test. Kept in the database (store/snapshots.ts), by
 * token: they outlive the tenant's resets, and persist with `--db file`. A restore sets the
 * clock back to the instant the snapshot was taken (a clock's one way back, with a reset).
 */
import type { Db } from '../store/driver.js'
import type { Tenant } from '../db/schema.js'
import { refreshDueAt } from '../store/jobs.js'
import {
  deleteSnapshot,
  findSnapshot,
  INTERNAL_PREFIX,
  listSnapshots,
  restoreTenantRows,
  saveSnapshot,
  tenantRowsJson,
} from '../store/snapshots.js'
import { retriedWhileUnreachable } from '../store/open.js'
import { atomically } from '../store/statements.js'
import { SandboxError, refused } from './errors.js'
import type { TenantDirectory, TenantState } from './tenants.js'

/** How many snapshots one token may keep: each holds a copy of the tenant's rows. */
export const MAX_SNAPSHOTS_PER_TOKEN = 100

type SnapshotDeps = { db: Db; tenants: TenantDirectory }

/** `warm`: ready to restore at once (a fixture's undo, seldom restored, is not). */
async function save(deps: SnapshotDeps, tenant: Tenant, name: string, warm = true) {
  const state: TenantState = {
    clock: { mode: tenant.clockMode, now: deps.tenants.now(tenant) },
    delays: tenant.delays,
    webhook: { url: tenant.webhookUrl, secret: tenant.webhookSecret },
  }
  const rows = await tenantRowsJson(deps.db, tenant.id)
  await saveSnapshot(
    deps.db,
    {
      token: tenant.token,
      name,
      takenAt: state.clock.now,
      rowCount: rows.count,
      tenant: state,
      rows: rows.json,
    },
    warm,
  )
  return { name, takenAt: state.clock.now, rowCount: rows.count }
}

async function restore(
  deps: SnapshotDeps,
  token: string,
  name: string,
): Promise<Tenant | undefined> {
  const snapshot = await findSnapshot(deps.db, token, name)
  if (!snapshot) return undefined
  const tenant = await atomically(deps, async (deps) => {
    await restoreTenantRows(
      deps.db,
      (await deps.tenants.forToken(token, deps.db))!.id,
      snapshot.seq,
    )
    return await deps.tenants.restore(token, snapshot.tenant as TenantState, deps.db)
  })
  await refreshDueAt(deps.db, tenant.id)
  return tenant
}

export async function takeSnapshot(deps: SnapshotDeps, tenant: Tenant, name: string) {
  const known = await listSnapshots(deps.db, tenant.token)
  if (known.length >= MAX_SNAPSHOTS_PER_TOKEN && !known.some((s) => s.name === name))
    throw refused(
      'name',
      `This tenant keeps ${MAX_SNAPSHOTS_PER_TOKEN} snapshots at most: delete one first.`,
    )
  return await save(deps, tenant, name)
}

export async function restoreSnapshot(
  deps: SnapshotDeps,
  token: string,
  name: string,
): Promise<Tenant> {
  const tenant = await restore(deps, token, name)
  if (!tenant) throw await unknownSnapshot(deps, token, name)
  return tenant
}

let undoCount = 0

/**
 * Runs `change` (a fixture) all or nothing: the tenant is saved first, under a name the API
 * cannot give, and put back if `change` throws; the saved copy goes either way.
 */
export async function undoneOnFailure<T>(
  deps: SnapshotDeps,
  token: string,
  change: () => Promise<T>,
): Promise<T> {
  // its own name: two fixtures applied at once on one token each keep their own copy
  const undo = `${INTERNAL_PREFIX}undo-${++undoCount}`
  await save(deps, (await deps.tenants.forToken(token))!, undo, false)
  try {
    return await change()
  } catch (error) {
    // the store may answer again at once (a connection cut, not a server down)
    await retriedWhileUnreachable(() => restore(deps, token, undo))
    throw error
  } finally {
    await deleteSnapshot(deps.db, token, undo)
  }
}

export async function removeSnapshot(
  deps: SnapshotDeps,
  token: string,
  name: string,
): Promise<void> {
  if (!(await deleteSnapshot(deps.db, token, name))) throw await unknownSnapshot(deps, token, name)
}

export function snapshotsOf(deps: SnapshotDeps, token: string) {
  return listSnapshots(deps.db, token)
}

async function unknownSnapshot(
  deps: SnapshotDeps,
  token: string,
  name: string,
): Promise<SandboxError> {
  const names = (await listSnapshots(deps.db, token)).map((s) => s.name)
  return new SandboxError(
    'not_found',
    `No snapshot named ${name}` +
      (names.length ? ` (snapshots: ${names.join(', ')}).` : ' (none yet).'),
  )
}
