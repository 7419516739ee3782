/**
 * Card users and their identity verification (SPEC §4.1, §4.2; PRODUCT §5). A user sent with
 * identity data and image links follows the full-data flow; one sent with only a phone (and
 * maybe an email) follows the hosted-widget flow. Both start `pending`.
 */
import type { CardUser } from '../db/schema.js'
import {
  cardUserByReference,
  cardUserPages,
  insertCardUser,
  updateCardUser,
} from '../store/card-users.js'
import type { Page, PageOf } from '../store/rows.js'
import { atomically } from '../store/statements.js'
import type { DomainContext } from './context.js'
import { notFound } from './errors.js'
import { LIFECYCLES, assertMove } from './lifecycles.js'
import { magicVerification } from './magic-values.js'
import { scheduleOutcome } from './schedule.js'

export type CardUserInput = {
  phone?: string
  email?: string
  first_name?: string
  last_name?: string
  address?: string
  id_no?: string
  selfie_image?: string
  id_image?: string
  back_id_image?: string
}

/** Any of these makes a request a full-data submission rather than a widget registration. */
export { IDENTITY_FIELDS } from '../db/values.js'
import { IDENTITY_FIELDS } from '../db/values.js'

export function hasIdentityData(input: CardUserInput): boolean {
  return IDENTITY_FIELDS.some((field) => input[field] !== undefined)
}

function columnsOf(input: CardUserInput) {
  return {
    phone: input.phone,
    email: input.email,
    firstName: input.first_name,
    lastName: input.last_name,
    address: input.address,
    idNo: input.id_no,
    selfieImage: input.selfie_image,
    idImage: input.id_image,
    backIdImage: input.back_id_image,
  }
}

export function registerCardUser(
  ctx: DomainContext,
  input: CardUserInput & { phone: string },
): Promise<CardUser> {
  return atomically(ctx, async (ctx) => {
    // the spread after the keys it lacks (ARCHITECTURE.md, "Objects on a request's path");
    // its phone is input.phone
    const user = await insertCardUser(ctx.db, {
      reference: ctx.ids.uuid(),
      tenantId: ctx.tenant.id,
      flow: hasIdentityData(input) ? 'full_data' : 'widget',
      status: LIFECYCLES.card_user.initial,
      createdAt: ctx.now,
      updatedAt: ctx.now,
      ...columnsOf(input),
      phone: input.phone,
    })
    await scheduleVerification(ctx, user)
    return user
  })
}

/**
 * The full-data flow verifies by itself after its delay; the widget flow waits (PRODUCT §5),
 * unless a scenario or a magic phone number decides the outcome.
 */
async function scheduleVerification(ctx: DomainContext, user: CardUser): Promise<void> {
  if (user.status !== 'pending') return
  await scheduleOutcome(
    ctx,
    'card_user_verification',
    {
      resource: 'card-users',
      key: user.reference,
      seq: user.seq,
      action: user.flow === 'full_data' ? 'passed' : undefined,
    },
    magicVerification(user.phone),
  )
}

/** Updates what was sent; a failed user goes back to pending, a passed one is refused (409). */
export function resubmitCardUser(
  ctx: DomainContext,
  reference: string,
  input: CardUserInput,
): Promise<CardUser> {
  return atomically(ctx, async (ctx) => {
    const user = await findCardUser(ctx, reference)
    if (user.status !== 'pending') assertMove('card_user', user.status, 'pending')
    const changes = Object.fromEntries(
      Object.entries(columnsOf(input)).filter(([, value]) => value !== undefined),
    )
    const updated = await updateCardUser(ctx.db, user.seq, {
      ...changes,
      flow: hasIdentityData(input) ? 'full_data' : user.flow,
      status: 'pending',
      updatedAt: ctx.now,
    })
    await scheduleVerification(ctx, updated)
    return updated
  })
}

export async function findCardUser(
  ctx: DomainContext,
  reference: string,
  field = 'card_user_reference',
): Promise<CardUser> {
  const user = await cardUserByReference(ctx.db, ctx.tenant.id, reference)
  if (!user) throw notFound(field, 'card user', reference)
  return user
}

export function listCardUsers(ctx: DomainContext, page: Page): Promise<PageOf<CardUser>> {
  return cardUserPages(ctx.db, ctx.tenant.id, page)
}
