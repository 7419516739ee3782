/**
 * The hosted pages carry no bearer token: the reference in their URL finds the tenant that owns
 * the resource, and the page acts as that tenant (its clock caught up, its journal written).
 */
import type { Context } from 'hono'
import { z } from 'zod'
import type { DomainContext } from '../domain/context.js'
import { tenantIdOf } from '../domain/hosted-pages.js'
import type { AppEnv } from '../env.js'
import { tenantContext } from '../http/middleware/auth.js'

const isUuid = (value: string) => z.uuid().safeParse(value).success

/** The owner's domain context, set on the request as an authenticated one would be. */
export function actAsOwner(
  c: Context<AppEnv>,
  kind: Parameters<typeof tenantIdOf>[1],
  reference: string,
): DomainContext | undefined {
  const deps = c.get('deps')
  const tenantId = isUuid(reference) ? tenantIdOf(deps.db, kind, reference) : undefined
  const tenant = tenantId === undefined ? undefined : deps.tenants.byId(tenantId)
  if (!tenant) return undefined
  const ctx = tenantContext(deps, tenant)
  c.set('tenant', tenant)
  c.set('ctx', ctx)
  return ctx
}
