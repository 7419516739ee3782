/**
 * What the pages the real service hosts do (SPEC §4.2, PRODUCT §8): the verification widget,
 * where a person types their identity and the sandbox lets them choose the outcome, and the
 * checkout a payment's wallet_url opens, where they pay or decline. Those pages carry no bearer
 * token: the resource's reference (a UUID) finds its tenant.
 */
import { eq } from 'drizzle-orm'
import type { Db } from '../db/open.js'
import { cardUsers, disburses, payments, type CardUser } from '../db/schema.js'
import { findCardUser } from './card-users.js'
import type { DomainContext } from './context.js'
import { SandboxError } from './errors.js'
import { transition } from './transitions.js'

export type WidgetIdentity = {
  first_name: string
  last_name: string
  address: string
  id_no: string
  email?: string
}

export type CheckoutKind = 'payments' | 'disburses'
export type HostedKind = 'card-users' | CheckoutKind

const TABLES = { 'card-users': cardUsers, payments, disburses }

/**
 * What a reference names among `kinds` (the first that has it) and the tenant owning it,
 * whatever its token: a checkout reference is a payment's or a disburse's.
 */
export function ownerOf<K extends HostedKind>(
  db: Db,
  kinds: readonly K[],
  reference: string,
): { kind: K; tenantId: string } | undefined {
  for (const kind of kinds) {
    const table = TABLES[kind]
    const row = db
      .select({ tenantId: table.tenantId })
      .from(table)
      .where(eq(table.reference, reference))
      .get()
    if (row) return { kind, tenantId: row.tenantId }
  }
  return undefined
}

/** The widget's last step: keeps what the person typed, then passes or fails them. */
export function completeVerification(
  ctx: DomainContext,
  reference: string,
  identity: WidgetIdentity,
  outcome: 'passed' | 'failed',
): CardUser {
  return ctx.db.transaction(() => {
    const user = findCardUser(ctx, reference, 'reference')
    if (user.status !== 'pending') {
      throw new SandboxError(
        'invalid_transition',
        `This card user's verification is already ${user.status}.`,
        { from: user.status, to: outcome, allowed: [] },
      )
    }
    ctx.db
      .update(cardUsers)
      .set({
        firstName: identity.first_name,
        lastName: identity.last_name,
        address: identity.address,
        idNo: identity.id_no,
        ...(identity.email !== undefined && { email: identity.email }),
        updatedAt: ctx.now,
      })
      .where(eq(cardUsers.seq, user.seq))
      .run()
    transition(ctx, 'card-users', reference, outcome)
    return findCardUser(ctx, reference, 'reference')
  })
}

/** Pay (or receive) → success; decline → failed. */
export function answerCheckout(
  ctx: DomainContext,
  kind: CheckoutKind,
  reference: string,
  answer: 'pay' | 'decline',
) {
  return transition(ctx, kind, reference, answer === 'pay' ? 'success' : 'failed')
}
