/**
 * Settlements made as a set (domain/moves-in-sets.ts): a run of due transfers, payments or
 * disburses reaching their end. Each move does exactly what `transition` does for it
 * (domain/transitions.ts MOVERS): its status, the same ledger movements (settlementMovements,
 * paymentMovement, disburseMovement), its business operation, its extension event, with the
 * same draws in the same order; but the run's rows are updated, its postings written, its
 * balances moved, its operations written and its events enqueued with a statement each.
 */
import {
  businessOperations,
  disburses,
  payments,
  transactions,
  type Disburse,
  type Payment,
  type Transaction,
} from '../db/schema.js'
import { rowsForMove, updateRowsBySeq } from '../store/due-sets.js'
import { insertOperations, operationsOf } from '../store/business.js'
import type { KeyColumn, SeqTable, TenantTable } from '../store/rows.js'
import { operationRow } from './business.js'
import type { DomainContext } from './context.js'
import { disburseMovement } from './disburses.js'
import { moveAll, type MoneyMove } from './ledger.js'
import { allowedMoves, type Resource } from './lifecycles.js'
import { enqueueRows } from './outbox.js'
import { paymentMovement, paymentOperation } from './payments.js'
import { settlementMovements } from './transactions.js'
import { extensionRow, moneyRequestExtension, transactionExtension } from './transitions.js'

/** One resource's move in a set: its key, its row, the status it moves to, and when. */
export type SetMove = { key: string; seq: number; to: string; now: number }

/** What a move of the set did: the state it left and its row; undefined when it had nothing to do. */
export type Moved = { from: string; seq: number } | undefined

type Row = { seq: number; status: string }

/** A legal move of the set: its row as read, and the context at its job's instant. */
type Settlement<R extends Row> = { move: SetMove; row: R; at: DomainContext }

type OutboxRow = NonNullable<ReturnType<typeof extensionRow>>

/**
 * Reads and locks the rows the moves are about; for each move, in order, its settlement, or
 * undefined when its row is gone or the move is no longer legal.
 */
async function settlementsOf<T extends TenantTable & SeqTable>(
  ctx: DomainContext,
  table: T,
  keyColumn: KeyColumn,
  lifecycle: Resource,
  keyOf: (row: T['$inferSelect']) => string,
  moves: SetMove[],
): Promise<(Settlement<T['$inferSelect'] & Row> | undefined)[]> {
  const found = (await rowsForMove(
    ctx.db,
    table,
    keyColumn,
    ctx.tenant.id,
    moves.map((move) => move.key),
  )) as (T['$inferSelect'] & Row)[]
  const byKey = new Map(found.map((row) => [keyOf(row), row]))
  return moves.map((move) => {
    const row = byKey.get(move.key)
    if (!row || !allowedMoves(lifecycle, row.status).includes(move.to)) return undefined
    return { move, row, at: { ...ctx, now: move.now } }
  })
}

/**
 * What every settlement writes, a statement each for the whole set: the statuses, then the
 * ledger's movements, then the events (in the order the moves drew them).
 */
async function writeSettlements<T extends SeqTable>(
  ctx: DomainContext,
  table: T,
  settled: Settlement<Row>[],
  movements: (MoneyMove & { now: number })[],
  events: OutboxRow[],
): Promise<void> {
  await updateRowsBySeq(
    ctx.db,
    table,
    settled.map(({ row, move }) => ({
      seq: row.seq,
      changes: { status: move.to, updatedAt: move.now } as Partial<T['$inferSelect']>,
    })),
  )
  await moveAll(ctx, movements)
  await enqueueRows(ctx, events)
}

const movedOf = (settlements: (Settlement<Row> | undefined)[]): Moved[] =>
  settlements.map(
    (settlement) => settlement && { from: settlement.row.status, seq: settlement.row.seq },
  )

const present = <T>(values: (T | undefined)[]): T[] =>
  values.filter((value): value is T => value !== undefined)

/** As MOVERS.transactions: the status, the money held or promised moved (or given back), the event. */
export async function moveTransactions(ctx: DomainContext, moves: SetMove[]): Promise<Moved[]> {
  const settlements = await settlementsOf(
    ctx,
    transactions,
    transactions.slug,
    'transaction',
    (row: Transaction) => row.slug,
    moves,
  )
  const settled = present(settlements)
  const movements: (MoneyMove & { now: number })[] = []
  const events: OutboxRow[] = []
  for (const { row, move, at } of settled) {
    const to = move.to as 'success' | 'failed'
    for (const movement of settlementMovements(row, to))
      movements.push({ ...movement, now: move.now })
    const event = extensionRow(at, 'transaction', to, transactionExtension(row))
    if (event) events.push(event)
  }
  await writeSettlements(ctx, transactions, settled, movements, events)
  return movedOf(settlements)
}

/** As MOVERS.payments: the status, the money on its way in landed or called off, the float credit, the event. */
export async function movePayments(ctx: DomainContext, moves: SetMove[]): Promise<Moved[]> {
  const settlements = await settlementsOf(
    ctx,
    payments,
    payments.reference,
    'payment',
    (row: Payment) => row.reference,
    moves,
  )
  const settled = present(settlements)
  const movements: (MoneyMove & { now: number })[] = []
  const operations: ReturnType<typeof operationRow>[] = []
  const events: OutboxRow[] = []
  for (const { row, move, at } of settled) {
    const to = move.to as 'success' | 'failed' | 'expired'
    movements.push({ ...paymentMovement(row, to), now: move.now })
    // drawn in the order `transition` draws them: the operation's reference, then the event's id
    if (to === 'success') operations.push(operationRow(at, paymentOperation(row)))
    const event = extensionRow(at, 'payment', to, moneyRequestExtension(row))
    if (event) events.push(event)
  }
  await writeSettlements(ctx, payments, settled, movements, events)
  await insertOperations(ctx.db, operations)
  return movedOf(settlements)
}

/** As MOVERS.disburses: the status, the money held gone out or back to the float, its operation's status, the event. */
export async function moveDisburses(ctx: DomainContext, moves: SetMove[]): Promise<Moved[]> {
  const settlements = await settlementsOf(
    ctx,
    disburses,
    disburses.reference,
    'disburse',
    (row: Disburse) => row.reference,
    moves,
  )
  const settled = present(settlements)
  const movements: (MoneyMove & { now: number })[] = []
  const events: OutboxRow[] = []
  for (const { row, move, at } of settled) {
    const to = move.to as 'success' | 'failed'
    movements.push({ ...disburseMovement(row, to), now: move.now })
    const event = extensionRow(at, 'disburse', to, moneyRequestExtension(row))
    if (event) events.push(event)
  }
  await writeSettlements(ctx, disburses, settled, movements, events)
  // each disburse's float_debit follows its outcome, at its instant (setOperationStatus)
  const outcomes = new Map(settled.map(({ row, move }) => [row.reference, move]))
  const operations = await operationsOf(ctx.db, 'float_debit', [...outcomes.keys()])
  await updateRowsBySeq(
    ctx.db,
    businessOperations,
    operations.map(({ seq, sourceReference }) => {
      const move = outcomes.get(sourceReference)!
      return { seq, changes: { status: move.to as 'success' | 'failed', updatedAt: move.now } }
    }),
  )
  return movedOf(settlements)
}
