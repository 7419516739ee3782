/**
 * The hosted pages carry no bearer token: the reference in their URL finds the tenant that owns
 * the resource, and the page acts as that tenant (its clock caught up, its journal written).
 */
import type { Context } from 'hono'
import { z } from 'zod'
import type { DomainContext } from '../domain/context.js'
import type { HostedKind } from '../domain/hosted-pages.js'
import type { AppEnv } from '../wiring/env.js'
import { tenantContext } from '../http/middleware/tenant.js'
import { ownerOf } from '../store/owners.js'

const isUuid = (value: string) => z.uuid().safeParse(value).success

/**
 * The kind of resource `reference` names among `kinds`, and its owner's domain context, set on
 * the request as an authenticated one would be.
 */
export async function actAsOwner<K extends HostedKind>(
  c: Context<AppEnv>,
  kinds: readonly K[],
  reference: string,
): Promise<{ kind: K; ctx: DomainContext } | undefined> {
  const deps = c.get('deps')
  const owner = isUuid(reference) ? await ownerOf(deps.db, kinds, reference) : undefined
  const tenant = owner && (await deps.tenants.byId(owner.tenantId))
  if (!owner || !tenant) return undefined
  const ctx = await tenantContext(deps, tenant)
  c.set('tenant', tenant)
  c.set('ctx', ctx)
  return { kind: owner.kind, ctx }
}
