/**
 * What every domain function receives: the store, the sandbox's randomness, the calling tenant
 * and the instant of the request on that tenant's clock. Never a Hono context.
 */
import { and, count, desc, eq, type SQL } from 'drizzle-orm'
import type { SQLiteColumn, SQLiteTable } from 'drizzle-orm/sqlite-core'
import type { Db } from '../db/open.js'
import type { Tenant } from '../db/schema.js'
import type { Ids } from './ids.js'

export type DomainContext = {
  db: Db
  ids: Ids
  tenant: Tenant
  /** Milliseconds on the tenant's sandbox clock (PRODUCT §6). */
  now: number
  /** Whether the opt-in webhook events the real service is not known to send are written. */
  webhookExtensions?: boolean
  /** Delay overrides of the scenarios in force for the tenant (PRODUCT §9). */
  scenarioDelays?: Partial<Record<string, number>>
  /** The async outcome a scenario rule forces on what this request creates. */
  outcome?: { to: string; afterMs?: number }
}

export type Page = { page: number; perPage: number }
export type PageOf<T> = { rows: T[]; total: number; page: number; perPage: number }

export const DEFAULT_PER_PAGE = 20
export const MAX_PER_PAGE = 100

export function pageWindow({ page, perPage }: Page) {
  return { limit: perPage, offset: (page - 1) * perPage }
}

type ListableTable = SQLiteTable & {
  seq: SQLiteColumn
  tenantId: SQLiteColumn
  $inferSelect: unknown
}

/** One page of a tenant's rows, newest first (SPEC §2.2), with the total for the meta. */
export function listPage<T extends ListableTable>(
  ctx: DomainContext,
  table: T,
  page: Page,
  filter?: SQL,
): PageOf<T['$inferSelect']> {
  const where = and(eq(table.tenantId, ctx.tenant.id), filter)
  const { limit, offset } = pageWindow(page)
  const rows = ctx.db
    .select()
    .from(table as SQLiteTable)
    .where(where)
    .orderBy(desc(table.seq))
    .limit(limit)
    .offset(offset)
    .all() as T['$inferSelect'][]
  const total =
    ctx.db
      .select({ n: count() })
      .from(table as SQLiteTable)
      .where(where)
      .get()?.n ?? 0
  return { rows, total, ...page }
}

type StatusTable = SQLiteTable & {
  seq: SQLiteColumn
  status: SQLiteColumn
  updatedAt: SQLiteColumn
}

/** Writes a row's new status (and any other changes); the caller has checked the move. */
export function writeStatus(
  ctx: DomainContext,
  table: StatusTable,
  seq: number,
  status: string,
  changes: Record<string, unknown> = {},
): void {
  ctx.db
    .update(table as SQLiteTable)
    .set({ ...changes, status, updatedAt: ctx.now } as Record<string, unknown>)
    .where(eq(table.seq, seq))
    .run()
}
