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

/** The tenant owning a card user, a payment or a disburse, whatever its token. */
export function tenantIdOf(db: Db, kind: 'card-users' | CheckoutKind, reference: string) {
  const table = kind === 'card-users' ? cardUsers : kind === 'payments' ? payments : disburses
  return db
    .select({ tenantId: table.tenantId })
    .from(table)
    .where(eq(table.reference, reference))
    .get()?.tenantId
}

/** Which checkout a reference is: a payment, else a disburse (both wallet_urls open it). */
export function checkoutKindOf(db: Db, reference: string): CheckoutKind | undefined {
  if (tenantIdOf(db, 'payments', reference)) return 'payments'
  if (tenantIdOf(db, 'disburses', reference)) return 'disburses'
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
