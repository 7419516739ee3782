/**
 * What payments and disburses share (SPEC §2.6, §2.7): the customer, whose every field is a
 * string on the wire ("" for what the caller did not send), the create-time columns, and the
 * one-use `partner_reference`.
 */
import { lockName } from '../store/locks.js'
import type { Disburse, Payment } from '../db/schema.js'
import type { Db } from '../store/driver.js'
import type { DomainContext } from './context.js'
import { refused } from './errors.js'

export type CustomerInput = {
  full_name: string
  email?: string
  phone?: string
  bank_name?: string
  bank_id?: string
  bank_account_name?: string
}

export function customerColumns(customer: CustomerInput) {
  return {
    customerFullName: customer.full_name,
    customerEmail: customer.email ?? '',
    customerPhone: customer.phone ?? '',
    customerBankName: customer.bank_name ?? '',
    customerBankId: customer.bank_id ?? '',
    customerBankAccountName: customer.bank_account_name ?? '',
  }
}

/** How long a payment or disburse link stays valid: SPEC §8 gives no rule, the sandbox picks 30 min. */
export const EXPIRY_MS = 30 * 60_000

export type MoneyRequestInput = {
  amount: number
  network: string
  partnerReference?: string
  customer: CustomerInput
}

/** The columns a new payment or disburse starts with, but for its status. */
export function moneyRequestValues(ctx: DomainContext, input: MoneyRequestInput) {
  return {
    reference: ctx.ids.uuid(),
    slug: ctx.ids.uuid(),
    tenantId: ctx.tenant.id,
    partnerReference: input.partnerReference ?? ctx.ids.uuid(),
    network: input.network,
    amount: input.amount,
    expiredAt: ctx.now + EXPIRY_MS,
    createdAt: ctx.now,
    updatedAt: ctx.now,
    // last (ARCHITECTURE.md, "Objects on a request's path")
    ...customerColumns(input.customer),
  }
}

/** The store's lookup of a tenant's payment or disburse by its `partner_reference`. */
type PartnerReferenceLookup<T> = (db: Db, tenantId: string, value: string) => Promise<T | undefined>

/**
 * A payment or disburse repeating a client `partner_reference` of the tenant is refused (422),
 * not collected or paid twice. Called in the creating transaction, before the insert, so that
 * concurrent duplicates are refused too (SQLite runs one write transaction at a time).
 */
export async function assertNewPartnerReference(
  ctx: DomainContext,
  [byPartnerReference, noun]:
    [PartnerReferenceLookup<Payment>, 'payment'] | [PartnerReferenceLookup<Disburse>, 'disburse'],
  partnerReference: string | undefined,
): Promise<void> {
  if (partnerReference === undefined) return
  // with replicas, two requests with one partner reference check (and insert) in turn
  await lockName(ctx.db, `${ctx.tenant.id} ${noun} ${partnerReference}`)
  const used = await byPartnerReference(ctx.db, ctx.tenant.id, partnerReference)
  if (used) {
    throw refused(
      'partner_reference',
      `The partner reference has already been used (${noun} ${used.reference}).`,
    )
  }
}
