/**
 * The ledger's tables (PRODUCT §5): `postings`, two per movement that sum to zero, and
 * `accounts`, each account's balance kept in step with its postings in the same transaction.
 */
import { and, eq, sql, type SQL } from 'drizzle-orm'
import type { SQLiteColumn } from 'drizzle-orm/sqlite-core'
import type { Db } from './driver.js'
import { postings } from '../db/schema.js'
import { query, statement, type Tables } from './statements.js'
import type { Builder } from './driver.js'

/** A card's account is named after the card: this, then its reference. */
export const CARD_ACCOUNT_PREFIX = 'card:'

/**
 * A card's balance as a column of the row that names the card (its `tenant_id` and `reference`
 * columns given): read with the card in one statement, through the accounts' (tenant, name)
 * key. An account never moved holds 0.
 */
export function cardBalanceColumn(
  t: Tables,
  tenantId: SQLiteColumn,
  reference: SQLiteColumn,
): SQL<number> {
  const a = t.accounts
  return sql<number>`coalesce((SELECT ${a.balance} FROM ${a} WHERE ${a.tenantId} = ${tenantId} AND ${a.name} = ${sql.raw(`'${CARD_ACCOUNT_PREFIX}'`)} || ${reference}), 0)`.mapWith(
    Number,
  )
}

/** A tenant's account's balance, by `tenant` and `account`. */
const balanceSelect = (db: Builder, t: Tables) =>
  db
    .select({ balance: t.accounts.balance })
    .from(t.accounts)
    .where(
      and(
        eq(t.accounts.tenantId, sql.placeholder('tenant')),
        eq(t.accounts.name, sql.placeholder('account')),
      ),
    )

const balanceQuery = statement((db, t) => balanceSelect(db, t).prepare())

/** The balance of a tenant's account; an account never moved holds 0. */
export async function accountBalance(db: Db, tenantId: string, account: string): Promise<number> {
  return (await balanceQuery(db).get({ tenant: tenantId, account }))?.balance ?? 0
}

const balanceForUpdate = statement((db, t, d) => d.forUpdate(balanceSelect(db, t)).prepare())

/**
 * The balance of an account about to be checked and moved (a debit, money coming in past
 * MAX_HELD), in the moving transaction: on PostgreSQL its row stays locked until that
 * transaction ends, so that a second check reads the balance the first one left (two checks of
 * one balance never both pass).
 */
export async function accountBalanceForUpdate(
  db: Db,
  tenantId: string,
  account: string,
): Promise<number> {
  return (await balanceForUpdate(db).get({ tenant: tenantId, account }))?.balance ?? 0
}

const balancesQuery = statement((db, t, d) =>
  db
    .select({ name: t.accounts.name, balance: t.accounts.balance })
    .from(t.accounts)
    .where(
      and(
        eq(t.accounts.tenantId, sql.placeholder('tenant')),
        d.inJsonArray(t.accounts.name, sql.placeholder('names')),
      ),
    )
    .prepare(),
)

/** The balances of several accounts in one query; absent accounts hold 0. */
export async function accountBalances(
  db: Db,
  tenantId: string,
  names: string[],
): Promise<Map<string, number>> {
  const rows = await balancesQuery(db).all({ tenant: tenantId, names: JSON.stringify(names) })
  const balances = new Map(names.map((name) => [name, 0]))
  for (const row of rows) balances.set(row.name, row.balance)
  return balances
}

const post = statement((db, t) =>
  db
    .insert(t.postings)
    .values(
      (['from', 'to'] as const).map((side) => ({
        tenantId: sql.placeholder('tenant'),
        account: sql.placeholder(side),
        amount: sql.placeholder(`${side}Amount`),
        source: sql.placeholder('source'),
        memo: sql.placeholder('memo'),
        createdAt: sql.placeholder('now'),
      })),
    )
    .prepare(),
)

const credit = statement((db, t) =>
  db
    .insert(t.accounts)
    .values({
      tenantId: sql.placeholder('tenant'),
      name: sql.placeholder('account'),
      balance: sql.placeholder('delta'),
    })
    .onConflictDoUpdate({
      target: [t.accounts.tenantId, t.accounts.name],
      set: { balance: sql`${t.accounts.balance} + ${sql.placeholder('delta')}` },
    })
    .prepare(),
)

export type Movement = {
  tenantId: string
  from: string
  to: string
  amount: number
  source: string
  memo: string
  now: number
}

/** Writes a movement's two postings and both balances; the caller runs it in its transaction. */
export async function writeMovement(db: Db, movement: Movement): Promise<void> {
  const { tenantId: tenant, from, to, amount, source, memo, now } = movement
  await post(db).run({ tenant, from, to, fromAmount: -amount, toAmount: amount, source, memo, now })
  const credits = credit(db)
  await credits.run({ tenant, account: from, delta: -amount })
  await credits.run({ tenant, account: to, delta: amount })
}

/**
 * Writes several movements (a run of due settlements) as two statements: every posting in one
 * insert, in the order given (two a movement, `from` then `to`, as writeMovement), and every
 * balance touched in one upsert, each account once with the sum of its deltas (an account whose
 * deltas sum to 0 is still opened, as movement by movement). The caller runs it in its transaction.
 */
export async function writeMovements(db: Db, movements: Movement[]): Promise<void> {
  if (movements.length === 0) return
  const rows = movements.flatMap(({ tenantId, from, to, amount, source, memo, now }) => [
    { tenantId, account: from, amount: -amount, source, memo, createdAt: now },
    { tenantId, account: to, amount, source, memo, createdAt: now },
  ])
  await db.driver.insertMany(db, postings, rows)
  const deltas = new Map<string, { tenantId: string; name: string; balance: number }>()
  for (const row of rows) {
    const key = `${row.tenantId}\u0000${row.account}`
    const delta = deltas.get(key) ?? { tenantId: row.tenantId, name: row.account, balance: 0 }
    delta.balance += row.amount
    deltas.set(key, delta)
  }
  // in one order, whoever writes them: two sets locking the same accounts never wait in a circle
  const balances = [...deltas.values()].sort((a, b) =>
    a.name < b.name ? -1 : a.name > b.name ? 1 : 0,
  )
  await query(db, 'run', (db, t) =>
    db
      .insert(t.accounts)
      .values(balances)
      .onConflictDoUpdate({
        target: [t.accounts.tenantId, t.accounts.name],
        set: { balance: sql`${t.accounts.balance} + excluded.balance` },
      }),
  )
}
