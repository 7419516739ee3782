/**
 * Wallet codes (SPEC §4.4, §8; PRODUCT §5): orange-money-sn and orange-money-ci wallet-to-card
 * pulls need a one-time code from the payer, valid 15 min (sn) or 2 min (ci) on the sandbox
 * clock. The control plane issues them; a transfer uses one up. issued → used | expired.
 */
import { atomically } from '../store/statements.js'
import type { WalletCode } from '../db/schema.js'
import {
  findWalletCode,
  findWalletCodeBySeq,
  insertWalletCode,
  markWalletCodeUsed,
} from '../store/wallet-codes.js'
import type { DomainContext } from './context.js'
import { refused } from './errors.js'
import { scheduleAt } from './schedule.js'

export { CODE_NETWORKS } from '../db/values.js'
import type { CODE_NETWORKS } from '../db/values.js'
export type CodeNetwork = (typeof CODE_NETWORKS)[number]

export const CODE_VALIDITY_MS: Record<CodeNetwork, number> = {
  'orange-money-sn': 15 * 60_000,
  'orange-money-ci': 2 * 60_000,
}

export function needsCode(network: string): network is CodeNetwork {
  return network in CODE_VALIDITY_MS
}

export function issueWalletCode(
  ctx: DomainContext,
  input: { phone: string; network: CodeNetwork },
): Promise<WalletCode> {
  return atomically(ctx, async (ctx) => {
    const code = await insertWalletCode(ctx.db, {
      tenantId: ctx.tenant.id,
      code: ctx.ids.digits(6),
      phone: input.phone,
      network: input.network,
      expiresAt: ctx.now + CODE_VALIDITY_MS[input.network],
      createdAt: ctx.now,
    })
    // nothing changes then (the status is read off the clock), but the console says so
    await scheduleAt(ctx, code.expiresAt + 1, {
      resource: 'wallet-codes',
      key: String(code.seq),
      seq: code.seq,
      action: 'expired',
    })
    return code
  })
}

/** The code whose expiry job fired, if it expired unused (a used one has nothing to say). */
export async function expiredWalletCode(
  ctx: DomainContext,
  seq: string,
): Promise<WalletCode | undefined> {
  const code = await findWalletCodeBySeq(ctx.db, ctx.tenant.id, Number(seq))
  return code && walletCodeStatus(code, ctx.now) === 'expired' ? code : undefined
}

export function walletCodeStatus(code: WalletCode, now: number): 'issued' | 'used' | 'expired' {
  if (code.usedAt !== null) return 'used'
  return now > code.expiresAt ? 'expired' : 'issued'
}

/** Spends the payer's code; call inside the transaction that creates the transfer. */
export async function useWalletCode(
  ctx: DomainContext,
  input: { phone: string; network: string; code?: string },
): Promise<void> {
  if (!needsCode(input.network)) return
  if (input.code === undefined)
    throw refused('code', `The code field is required when network is ${input.network}.`)
  const found = await findWalletCode(ctx.db, ctx.tenant.id, {
    network: input.network,
    phone: input.phone,
    code: input.code,
  })
  if (!found) throw refused('code', 'The code is invalid for this phone and network.')
  const status = walletCodeStatus(found, ctx.now)
  if (status === 'used') throw refused('code', 'The code has already been used.')
  if (status === 'expired') throw refused('code', 'The code has expired.')
  await markWalletCodeUsed(ctx.db, found.seq, ctx.now)
}
