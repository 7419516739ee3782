/**
 * The customer of a payment or a disburse (SPEC §2.6, §2.7). Every field is a string on the
 * wire; what the caller did not send is stored and shown as "".
 */
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
