/**
 * Status moves made as a set (engine/scheduler.ts: a run of due jobs of one kind): each move
 * does exactly what `transition` does for it (domain/transitions.ts), in the same order, with
 * the same draws of randomness, but the run's resources are locked and read, updated, given
 * their events and rid of their other moves with a statement each for the whole run (transfers,
 * payments and disburses settle with their ledger movements: domain/settlements-in-sets.ts). A move
 * that is no longer legal, or whose resource is gone, does nothing (undefined), as a job
 * refused by `transition` does. The keys of one set are distinct.
 */
import { cardUsers, cards, type Card, type CardUser } from '../db/schema.js'
import { cancelMovesOf, rowsForMove, updateRowsBySeq, type RowChanges } from '../store/due-sets.js'
import { lockJobs } from '../store/locks.js'
import { cardDetails } from './cards.js'
import type { DomainContext } from './context.js'
import { balancesOf, cardAccount } from './ledger.js'
import { allowedMoves, TRANSITION_RESOURCES, type TransitionResource } from './lifecycles.js'
import { enqueueRows, outboxRow } from './outbox.js'
import {
  moveDisburses,
  movePayments,
  moveTransactions,
  type Moved,
  type SetMove,
} from './settlements-in-sets.js'
import { generatedIdentity, type TransitionResult } from './transitions.js'
import { cardCreationEvent, verificationEvent } from './webhook-events.js'

/** One move of a set: the resource's key and row (seq), the state it moves to, and when (its job's instant). */
export type { SetMove }

/** The resources whose moves can be made as a set (disputes, moved by hand, are not). */
export const SET_RESOURCES = [
  'cards',
  'card-users',
  'transactions',
  'payments',
  'disburses',
] as const
export type SetResource = (typeof SET_RESOURCES)[number]

export function movesAsSet(resource: string): resource is SetResource {
  return (SET_RESOURCES as readonly string[]).includes(resource)
}

type OutboxRow = NonNullable<ReturnType<typeof outboxRow>>

/**
 * Makes the moves of one resource as a set; for each move, in order, what it did, or undefined
 * when it had nothing to do.
 */
export async function moveAsSet(
  ctx: DomainContext,
  resource: SetResource,
  moves: SetMove[],
): Promise<(TransitionResult | undefined)[]> {
  await lockJobs(ctx.db, ctx.tenant.id, resource, { seqs: moves.map((move) => move.seq) })
  const results = await SET_MOVERS[resource](ctx, moves)
  await cancelMovesOf(
    ctx.db,
    ctx.tenant.id,
    resource,
    results.flatMap((result) => (result ? [result.seq] : [])),
  )
  return results.map(
    (result, i) =>
      result && {
        resource: TRANSITION_RESOURCES[resource as TransitionResource],
        key: moves[i].key,
        from: result.from,
        to: moves[i].to,
      },
  )
}

const SET_MOVERS: Record<SetResource, (ctx: DomainContext, moves: SetMove[]) => Promise<Moved[]>> =
  {
    cards: moveCards,
    'card-users': moveCardUsers,
    transactions: moveTransactions,
    payments: movePayments,
    disburses: moveDisburses,
  }

/** As MOVERS.cards: the status (details drawn when issued without them), then card_creation.*. */
async function moveCards(ctx: DomainContext, moves: SetMove[]): Promise<Moved[]> {
  const found = await rowsForMove(
    ctx.db,
    cards,
    cards.reference,
    ctx.tenant.id,
    moves.map((move) => move.key),
  )
  const byReference = new Map(found.map((card) => [card.reference, card]))
  // read before the draws: a balance is the same before and after its card's move
  const balances = await balancesOf(
    ctx,
    found.filter((card) => card.status === 'issuing').map((card) => cardAccount(card.reference)),
  )
  const updates: RowChanges<typeof cards>[] = []
  const events: OutboxRow[] = []
  const results = moves.map((move): Moved => {
    const card = byReference.get(move.key)
    if (!card || !allowedMoves('card', card.status).includes(move.to)) return undefined
    const at = { ...ctx, now: move.now }
    const to = move.to as Card['status']
    const details = to === 'issued' && card.cardNumber === null ? cardDetails(at, card) : {}
    // every row of the set update writes the same columns: those without details keep theirs
    const { cardNumber, cvv2, expiry } = card
    const changes = { status: to, updatedAt: move.now, cardNumber, cvv2, expiry, ...details }
    updates.push({ seq: card.seq, changes })
    if (card.status === 'issuing') {
      const moved = { ...card, ...changes }
      const balance = balances.get(cardAccount(card.reference))!
      events.push(outboxRow(at, cardCreationEvent(moved, balance, ctx.quirks))!)
    }
    return { from: card.status, seq: card.seq }
  })
  await updateRowsBySeq(ctx.db, cards, updates)
  await enqueueRows(ctx, events)
  return results
}

/** As MOVERS['card-users']: the status (identity generated when passed without it), then the event. */
async function moveCardUsers(ctx: DomainContext, moves: SetMove[]): Promise<Moved[]> {
  const found = await rowsForMove(
    ctx.db,
    cardUsers,
    cardUsers.reference,
    ctx.tenant.id,
    moves.map((move) => move.key),
  )
  const byReference = new Map(found.map((user) => [user.reference, user]))
  const updates: RowChanges<typeof cardUsers>[] = []
  const events: OutboxRow[] = []
  const results = moves.map((move): Moved => {
    const user = byReference.get(move.key)
    if (!user || !allowedMoves('card_user', user.status).includes(move.to)) return undefined
    const at = { ...ctx, now: move.now }
    const to = move.to as CardUser['status']
    const identity = to === 'passed' ? generatedIdentity(at, user) : {}
    // every row of the set update writes the same columns: those not passed keep their identity
    const { firstName, lastName, address, idNo, email } = user
    const kept = { firstName, lastName, address, idNo, email }
    const changes = { status: to, updatedAt: move.now, ...kept, ...identity }
    updates.push({ seq: user.seq, changes })
    if (to === 'passed' || to === 'failed')
      events.push(outboxRow(at, verificationEvent({ ...user, ...changes }, to))!)
    return { from: user.status, seq: user.seq }
  })
  await updateRowsBySeq(ctx.db, cardUsers, updates)
  await enqueueRows(ctx, events)
  return results
}
