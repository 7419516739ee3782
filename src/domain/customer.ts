/**
 * What payments and disburses share (SPEC §2.6, §2.7): the customer, whose every field is a
 * string on the wire ("" for what the caller did not send), and the create-time columns.
 */
import type { DomainContext } from './context.js'

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
    ...customerColumns(input.customer),
    expiredAt: ctx.now + EXPIRY_MS,
    createdAt: ctx.now,
    updatedAt: ctx.now,
  }
}
