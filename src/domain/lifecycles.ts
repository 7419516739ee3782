/**
 * Every state machine of the sandbox, as data (PRODUCT §5). SPEC §3 shows only a few status
 * values and no transitions; the rest are sandbox assumptions, fixed here once and used by the
 * API, the control plane and (later) the scheduler and scenario engine alike.
 */
import type {
  BUSINESS_OPERATION_STATUSES,
  CARD_STATUSES,
  CARD_USER_STATUSES,
  DISBURSE_STATUSES,
  DISPUTE_STATUSES,
  PAYMENT_STATUSES,
  TRANSACTION_STATUSES,
} from '../db/schema.js'
import { SandboxError } from './errors.js'

export type CardUserStatus = (typeof CARD_USER_STATUSES)[number]
export type CardStatus = (typeof CARD_STATUSES)[number]
export type TransactionStatus = (typeof TRANSACTION_STATUSES)[number]
export type PaymentStatus = (typeof PAYMENT_STATUSES)[number]
export type DisburseStatus = (typeof DISBURSE_STATUSES)[number]
export type BusinessOperationStatus = (typeof BUSINESS_OPERATION_STATUSES)[number]
export type DisputeStatus = (typeof DISPUTE_STATUSES)[number]

type Machine<S extends string> = { initial: S; moves: Record<S, readonly S[]> }

export const LIFECYCLES = {
  card_user: {
    initial: 'pending',
    // resubmit puts a failed user back to pending (PRODUCT §5)
    moves: { pending: ['passed', 'failed'], passed: [], failed: ['pending'] },
  } satisfies Machine<CardUserStatus>,
  card: {
    initial: 'issuing',
    moves: { issuing: ['issued', 'failed'], issued: ['frozen'], frozen: ['issued'], failed: [] },
  } satisfies Machine<CardStatus>,
  transaction: {
    initial: 'pending',
    moves: { pending: ['success', 'failed'], success: [], failed: [] },
  } satisfies Machine<TransactionStatus>,
  payment: {
    initial: 'pending',
    moves: { pending: ['success', 'failed', 'expired'], success: [], failed: [], expired: [] },
  } satisfies Machine<PaymentStatus>,
  disburse: {
    initial: 'processing',
    moves: { processing: ['success', 'failed'], success: [], failed: [] },
  } satisfies Machine<DisburseStatus>,
  business_operation: {
    initial: 'pending',
    moves: { pending: ['success', 'failed'], success: [], failed: [] },
  } satisfies Machine<BusinessOperationStatus>,
  dispute: {
    initial: 'open',
    moves: { open: ['submitted'], submitted: ['won', 'lost'], won: [], lost: [] },
  } satisfies Machine<DisputeStatus>,
} as const

export type Resource = keyof typeof LIFECYCLES

/** URL segment of the control plane → state machine. Transactions are addressed by slug. */
export const TRANSITION_RESOURCES = {
  'card-users': 'card_user',
  cards: 'card',
  transactions: 'transaction',
  payments: 'payment',
  disburses: 'disburse',
  disputes: 'dispute',
} as const satisfies Record<string, Resource>

export type TransitionResource = keyof typeof TRANSITION_RESOURCES

export function allowedMoves(resource: Resource, from: string): readonly string[] {
  const moves = LIFECYCLES[resource].moves as Record<string, readonly string[]>
  return moves[from] ?? []
}

/** Throws a 409-mapped error naming the allowed next states when `from → to` is not a move. */
export function assertMove(resource: Resource, from: string, to: string): void {
  const allowed = allowedMoves(resource, from)
  if (allowed.includes(to)) return
  throw new SandboxError(
    'invalid_transition',
    `A ${resource.replace('_', ' ')} cannot move from ${from} to ${to}.`,
    { from, to, allowed: [...allowed] },
  )
}
