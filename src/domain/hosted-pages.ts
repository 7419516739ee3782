/**
 * What the pages the real service hosts do (SPEC §4.2, PRODUCT §8): the verification widget,
 * where a person types their identity and the sandbox lets them choose the outcome, and the
 * checkout a payment's wallet_url opens, where they pay or decline. Those pages carry no bearer
 * token: the resource's reference (a UUID) finds its tenant.
 */
import type { CardUser } from '../db/schema.js'
import { updateCardUser } from '../store/card-users.js'
import { atomically } from '../store/statements.js'
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

/** The widget's last step: keeps what the person typed, then passes or fails them. */
export function completeVerification(
  ctx: DomainContext,
  reference: string,
  identity: WidgetIdentity,
  outcome: 'passed' | 'failed',
): Promise<CardUser> {
  return atomically(ctx, async (ctx) => {
    const user = await findCardUser(ctx, reference, 'reference')
    if (user.status !== 'pending') {
      throw new SandboxError(
        'invalid_transition',
        `This card user's verification is already ${user.status}.`,
        { from: user.status, to: outcome, allowed: [] },
      )
    }
    await updateCardUser(ctx.db, user.seq, {
      firstName: identity.first_name,
      lastName: identity.last_name,
      address: identity.address,
      idNo: identity.id_no,
      ...(identity.email !== undefined && { email: identity.email }),
      updatedAt: ctx.now,
    })
    await transition(ctx, 'card-users', reference, outcome)
    return await findCardUser(ctx, reference, 'reference')
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
