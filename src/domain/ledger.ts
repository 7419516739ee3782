/**
 * The ledger (PRODUCT §5). Money only moves with `move(from, to, amount)`: two postings that
 * sum to zero, and both accounts' balances updated in the same SQLite transaction as the
 * postings. So every balance is the sum of its postings, and a tenant's accounts sum to zero.
 * Callers check balances and move money inside one `db.transaction`, so concurrent requests
 * can never overdraw (better-sqlite3 runs each transaction to the end before the next).
 * Money promised in (a pending wallet-to-card transfer or payment) is counted from the moment
 * it is promised, on INCOMING, and no money comes in that would take what a tenant holds past
 * MAX_HELD: so every balance, hold and total stays an exact JSON number.
 */
import {
  accountBalance,
  accountBalances,
  writeMovement,
  writeMovements,
  accountBalanceForUpdate,
  CARD_ACCOUNT_PREFIX,
} from '../store/ledger.js'
import type { DomainContext } from './context.js'
import { refused } from './errors.js'

export const FLOAT = 'float'
/** Money held for an outgoing transfer or disburse until it settles or is released. */
export const HOLDS = 'holds'
/** Everything outside the sandbox: banks, wallets, funding. Its balance is minus the rest. */
export const WORLD = 'world'
/** Money on its way in (a pending wallet-to-card transfer or payment) until it lands or is called off. */
export const INCOMING = 'incoming'
export const cardAccount = (cardReference: string) => `${CARD_ACCOUNT_PREFIX}${cardReference}`

/** The float every new (or reset) business opens with, so that disburses work at once. */
export const OPENING_FLOAT = 10_000_000

/**
 * The most a tenant holds, every account together with what is on its way in (PRODUCT §11):
 * the largest integer a JSON number (a JavaScript number, a float64) carries exactly.
 */
export const MAX_HELD = Number.MAX_SAFE_INTEGER

export function balanceOf(
  ctx: Pick<DomainContext, 'db' | 'tenant'>,
  account: string,
): Promise<number> {
  return accountBalance(ctx.db, ctx.tenant.id, account)
}

/** The balances of several accounts in one query (a page of cards); absent accounts hold 0. */
export function balancesOf(
  ctx: Pick<DomainContext, 'db' | 'tenant'>,
  names: string[],
): Promise<Map<string, number>> {
  return accountBalances(ctx.db, ctx.tenant.id, names)
}

/** Refuses (422 naming `field`) when `account` holds less than `amount`. */
export async function assertFunds(
  ctx: DomainContext,
  account: string,
  amount: number,
  field: string,
): Promise<void> {
  const balance = await accountBalanceForUpdate(ctx.db, ctx.tenant.id, account)
  if (balance < amount) {
    throw refused(field, `Insufficient balance: ${balance} available, ${amount} needed.`)
  }
}

/** A movement of money from one account to another, and what moved it (its postings' source and memo). */
export type MoneyMove = { from: string; to: string; amount: number; source: string; memo: string }

export async function move(
  ctx: Pick<DomainContext, 'db' | 'tenant' | 'now'>,
  movement: MoneyMove,
): Promise<void> {
  const { from, to, amount, source, memo } = movement
  if (from === WORLD) await assertRoomFor(ctx, amount)
  await writeMovement(ctx.db, {
    tenantId: ctx.tenant.id,
    from,
    to,
    amount,
    source,
    memo,
    now: ctx.now,
  })
}

/**
 * Several movements, each at its own instant (a run of due settlements), with what `move` checks
 * of each in turn, in one insert of their postings and one update of the balances they touch.
 */
export async function moveAll(
  ctx: Pick<DomainContext, 'db' | 'tenant'>,
  movements: (MoneyMove & { now: number })[],
): Promise<void> {
  if (movements.some((movement) => movement.from === WORLD)) {
    // what the tenant holds before each movement, as `move` one by one would read it
    let held = -(await accountBalanceForUpdate(ctx.db, ctx.tenant.id, WORLD))
    for (const { from, to, amount } of movements) {
      if (from === WORLD) assertRoom(held, amount)
      if (from === WORLD) held += amount
      if (to === WORLD) held -= amount
    }
  }
  await writeMovements(
    ctx.db,
    movements.map((movement) => ({ tenantId: ctx.tenant.id, ...movement })),
  )
}

/** Refuses (422 naming `amount`) money coming in that would take what the tenant holds past MAX_HELD. */
async function assertRoomFor(
  ctx: Pick<DomainContext, 'db' | 'tenant'>,
  amount: number,
): Promise<void> {
  assertRoom(-(await accountBalanceForUpdate(ctx.db, ctx.tenant.id, WORLD)), amount)
}

function assertRoom(held: number, amount: number): void {
  if (amount > MAX_HELD - held) {
    throw refused(
      'amount',
      `The amount would take the money this business holds past ${MAX_HELD} ` +
        `(Number.MAX_SAFE_INTEGER, the largest amount a JSON number carries exactly): ` +
        `${held} is held or on its way in, so at most ${MAX_HELD - held} more can come in.`,
    )
  }
}
