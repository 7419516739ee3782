/** The wallet_codes table (SPEC §4.4, §8): one-time codes of orange-money wallet-to-card pulls. */
import { and, eq, sql } from 'drizzle-orm'
import type { Db } from './driver.js'
import { walletCodes, type WalletCode } from '../db/schema.js'
import { insertReturning, updateBySeq } from './rows.js'
import { statement } from './statements.js'

export function insertWalletCode(
  db: Db,
  values: typeof walletCodes.$inferInsert,
): Promise<WalletCode> {
  return insertReturning(db, walletCodes, values)
}

const findCode = statement((db, t) =>
  db
    .select()
    .from(t.walletCodes)
    .where(
      and(
        eq(t.walletCodes.tenantId, sql.placeholder('tenant')),
        eq(t.walletCodes.network, sql.placeholder('network')),
        eq(t.walletCodes.phone, sql.placeholder('phone')),
        eq(t.walletCodes.code, sql.placeholder('code')),
      ),
    )
    .prepare(),
)

/** The tenant's code issued for this phone and network, whatever its state. */
export async function findWalletCode(
  db: Db,
  tenantId: string,
  code: { network: string; phone: string; code: string },
): Promise<WalletCode | undefined> {
  return await findCode(db).get({ tenant: tenantId, ...code })
}

export async function markWalletCodeUsed(db: Db, seq: number, at: number): Promise<void> {
  await updateBySeq(db, walletCodes, seq, { usedAt: at })
}

const codeBySeq = statement((db, t) =>
  db
    .select()
    .from(t.walletCodes)
    .where(
      and(
        eq(t.walletCodes.tenantId, sql.placeholder('tenant')),
        eq(t.walletCodes.seq, sql.placeholder('seq')),
      ),
    )
    .prepare(),
)

export async function findWalletCodeBySeq(
  db: Db,
  tenantId: string,
  seq: number,
): Promise<WalletCode | undefined> {
  return await codeBySeq(db).get({ tenant: tenantId, seq })
}
