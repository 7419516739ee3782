/**
 * Built-in magic values (PRODUCT §9), in the spirit of card networks' test numbers: failures
 * with no scenario file at all. One table, documented in docs/scenarios.md.
 */
export type ForcedOutcome = { to: string; afterMs?: number }

export const MAGIC_VALUES = {
  /** A card user whose phone ends like this fails verification (both flows). */
  verificationFailsPhoneSuffix: '0404',
  /** A card created for a user whose phone ends like this fails to issue. */
  cardFailsPhoneSuffix: '0500',
  /** A phone ending like this is refused by verify phone (a 422). */
  phoneVerificationFailsSuffix: '0422',
  /** Amounts that decide how a transfer, disburse or payment ends. */
  amounts: { 4004: 'failed', 4008: 'expired', 2002: 'success' } as Record<number, string>,
} as const

export function magicVerification(phone: string): ForcedOutcome | undefined {
  return phone.endsWith(MAGIC_VALUES.verificationFailsPhoneSuffix) ? { to: 'failed' } : undefined
}

export function magicCard(cardUserPhone: string): ForcedOutcome | undefined {
  return cardUserPhone.endsWith(MAGIC_VALUES.cardFailsPhoneSuffix) ? { to: 'failed' } : undefined
}

export function magicPhoneRefused(phone: string): boolean {
  return phone.endsWith(MAGIC_VALUES.phoneVerificationFailsSuffix)
}

/** The outcome an amount forces, if the resource can end that way. */
export function magicAmount(
  amount: number,
  possible: readonly string[],
): ForcedOutcome | undefined {
  const to = MAGIC_VALUES.amounts[amount]
  return to !== undefined && possible.includes(to) ? { to } : undefined
}
