/**
 * Every table of the sandbox. Each row belongs to one tenant (PRODUCT §3). `seq` is the
 * insertion order, so "newest first" is `ORDER BY seq DESC` on an index; public references are
 * UUIDs (SPEC §2). Times are integer milliseconds on the tenant's sandbox clock.
 */
import { sql } from 'drizzle-orm'
import { index, integer, primaryKey, sqliteTable, text, uniqueIndex } from 'drizzle-orm/sqlite-core'
import {
  CARD_USER_STATUSES,
  CARD_STATUSES,
  TRANSACTION_STATUSES,
  PAYMENT_STATUSES,
  DISBURSE_STATUSES,
  BUSINESS_OPERATION_STATUSES,
  DISPUTE_STATUSES,
  CLOCK_MODES,
  CARD_BRANDS,
  CARD_TYPES,
  VERIFICATION_FLOWS,
  TRANSACTION_KINDS,
  WEBHOOK_EVENT_STATUSES,
} from './values.js'

// the closed lists live in values.ts (it imports nothing); the schema's readers find them here too
export * from './values.js'

export const tenants = sqliteTable('tenants', {
  id: text('id').primaryKey(),
  token: text('token').notNull().unique(),
  businessName: text('business_name').notNull(),
  clockMode: text('clock_mode', { enum: CLOCK_MODES }).notNull(),
  /** Sandbox time at the anchor; in manual mode, simply "now". */
  clockAnchorMs: integer('clock_anchor_ms').notNull(),
  /** Wall time at the anchor, for real mode. */
  clockWallMs: integer('clock_wall_ms').notNull(),
  /** Per-tenant delay overrides, JSON `{ "<delay name>": ms }` (PRODUCT §6). */
  delays: text('delays', { mode: 'json' }).$type<Record<string, number>>(),
  /** The tenant's webhook endpoint and signing secret; null falls back to the CLI flags. */
  webhookUrl: text('webhook_url'),
  webhookSecret: text('webhook_secret'),
  createdAt: integer('created_at').notNull(),
  /**
   * True from the tenant's creation or reset until a request seeds it with the start-up fixture
   * (`--fixtures`): in the row, so that any replica's next request seeds it, once.
   */
  fixturePending: integer('fixture_pending', { mode: 'boolean' }),
})

export const cardUsers = sqliteTable(
  'card_users',
  {
    seq: integer('seq').primaryKey({ autoIncrement: true }),
    reference: text('reference').notNull().unique(),
    tenantId: text('tenant_id').notNull(),
    flow: text('flow', { enum: VERIFICATION_FLOWS }).notNull(),
    firstName: text('first_name'),
    lastName: text('last_name'),
    address: text('address'),
    phone: text('phone').notNull(),
    email: text('email'),
    idNo: text('id_no'),
    selfieImage: text('selfie_image'),
    idImage: text('id_image'),
    backIdImage: text('back_id_image'),
    status: text('status', { enum: CARD_USER_STATUSES }).notNull(),
    createdAt: integer('created_at').notNull(),
    updatedAt: integer('updated_at').notNull(),
  },
  (t) => [index('card_users_tenant_seq').on(t.tenantId, t.seq)],
)

export const cards = sqliteTable(
  'cards',
  {
    seq: integer('seq').primaryKey({ autoIncrement: true }),
    /** Unique per tenant: a linked card's is the client's choice (the others', a UUID made here). */
    reference: text('reference').notNull(),
    tenantId: text('tenant_id').notNull(),
    cardUserReference: text('card_user_reference').notNull(),
    /** Set for linked cards only (SPEC §2.4: present on the link-card response). */
    identifier: integer('identifier'),
    brand: text('brand', { enum: CARD_BRANDS }).notNull(),
    type: text('type', { enum: CARD_TYPES }).notNull(),
    cardNumber: text('card_number'),
    cvv2: text('cvv2'),
    expiry: text('expiry'),
    status: text('status', { enum: CARD_STATUSES }).notNull(),
    createdAt: integer('created_at').notNull(),
    updatedAt: integer('updated_at').notNull(),
  },
  (t) => [
    // the reference first: a due set reads its cards by reference (store/due-sets.ts rowsForMove)
    uniqueIndex('cards_reference_tenant').on(t.reference, t.tenantId),
    index('cards_tenant_seq').on(t.tenantId, t.seq),
    // linking looks a tenant's identifier up; only linked cards have one, so only they are indexed
    // (a card's creation writes one index entry fewer)
    index('cards_tenant_identifier')
      .on(t.tenantId, t.identifier)
      .where(sql`identifier IS NOT NULL`),
  ],
)

export const transactions = sqliteTable(
  'transactions',
  {
    seq: integer('seq').primaryKey({ autoIncrement: true }),
    slug: text('slug').notNull().unique(),
    tenantId: text('tenant_id').notNull(),
    cardReference: text('card_reference').notNull(),
    reference: text('reference').notNull(),
    kind: text('kind', { enum: TRANSACTION_KINDS }).notNull(),
    status: text('status', { enum: TRANSACTION_STATUSES }).notNull(),
    amount: integer('amount').notNull(),
    merchant: text('merchant'),
    bankId: text('bank_id'),
    bankName: text('bank_name'),
    bankAccountName: text('bank_account_name'),
    description: text('description'),
    phone: text('phone'),
    network: text('network'),
    /** A card-to-card transfer's receiving card (POST /v1/transactions/create, action transfer). */
    receiverCardReference: text('receiver_card_reference'),
    createdAt: integer('created_at').notNull(),
    updatedAt: integer('updated_at').notNull(),
  },
  (t) => [
    index('transactions_tenant_seq').on(t.tenantId, t.seq),
    index('transactions_tenant_card_seq').on(t.tenantId, t.cardReference, t.seq),
    index('transactions_tenant_card_reference').on(t.tenantId, t.cardReference, t.reference),
    // show transaction by a client reference: the newest with it (docs "show transaction")
    index('transactions_tenant_reference_seq').on(t.tenantId, t.reference, t.seq),
  ],
)

export const disputes = sqliteTable(
  'disputes',
  {
    seq: integer('seq').primaryKey({ autoIncrement: true }),
    reference: text('reference').notNull().unique(),
    tenantId: text('tenant_id').notNull(),
    transactionSlug: text('transaction_slug').notNull(),
    reason: text('reason').notNull(),
    explanation: text('explanation'),
    status: text('status', { enum: DISPUTE_STATUSES }).notNull(),
    createdAt: integer('created_at').notNull(),
    updatedAt: integer('updated_at').notNull(),
  },
  (t) => [
    index('disputes_tenant_seq').on(t.tenantId, t.seq),
    // one open dispute per transaction: the check on open
    index('disputes_tenant_transaction').on(t.tenantId, t.transactionSlug),
  ],
)

/** The customer of a payment or disburse, stored flat (SPEC §2.6 `customer`). */
const customerColumns = {
  customerFullName: text('customer_full_name').notNull(),
  customerEmail: text('customer_email').notNull(),
  customerPhone: text('customer_phone').notNull(),
  customerBankName: text('customer_bank_name').notNull(),
  customerBankId: text('customer_bank_id').notNull(),
  customerBankAccountName: text('customer_bank_account_name').notNull(),
}

export const payments = sqliteTable(
  'payments',
  {
    seq: integer('seq').primaryKey({ autoIncrement: true }),
    reference: text('reference').notNull().unique(),
    slug: text('slug').notNull().unique(),
    tenantId: text('tenant_id').notNull(),
    partnerReference: text('partner_reference').notNull(),
    network: text('network').notNull(),
    amount: integer('amount').notNull(),
    ...customerColumns,
    status: text('status', { enum: PAYMENT_STATUSES }).notNull(),
    expiredAt: integer('expired_at').notNull(),
    createdAt: integer('created_at').notNull(),
    updatedAt: integer('updated_at').notNull(),
  },
  (t) => [
    index('payments_tenant_seq').on(t.tenantId, t.seq),
    index('payments_tenant_partner_reference').on(t.tenantId, t.partnerReference),
  ],
)

export const disburses = sqliteTable(
  'disburses',
  {
    seq: integer('seq').primaryKey({ autoIncrement: true }),
    reference: text('reference').notNull().unique(),
    slug: text('slug').notNull().unique(),
    tenantId: text('tenant_id').notNull(),
    partnerReference: text('partner_reference').notNull(),
    network: text('network').notNull(),
    amount: integer('amount').notNull(),
    ...customerColumns,
    status: text('status', { enum: DISBURSE_STATUSES }).notNull(),
    expiredAt: integer('expired_at').notNull(),
    createdAt: integer('created_at').notNull(),
    updatedAt: integer('updated_at').notNull(),
  },
  (t) => [
    index('disburses_tenant_seq').on(t.tenantId, t.seq),
    index('disburses_tenant_partner_reference').on(t.tenantId, t.partnerReference),
  ],
)

export const businessOperations = sqliteTable(
  'business_operations',
  {
    seq: integer('seq').primaryKey({ autoIncrement: true }),
    reference: text('reference').notNull().unique(),
    tenantId: text('tenant_id').notNull(),
    /** The disburse or payment that caused it. */
    sourceReference: text('source_reference').notNull(),
    amount: integer('amount').notNull(),
    fees: integer('fees').notNull(),
    description: text('description').notNull(),
    type: text('type').notNull(),
    kind: text('kind', { enum: ['float_debit', 'float_credit'] }).notNull(),
    bankName: text('bank_name').notNull(),
    bankId: text('bank_id').notNull(),
    bankAccountName: text('bank_account_name').notNull(),
    status: text('status', { enum: BUSINESS_OPERATION_STATUSES }).notNull(),
    createdAt: integer('created_at').notNull(),
    updatedAt: integer('updated_at').notNull(),
  },
  (t) => [
    index('business_operations_tenant_seq').on(t.tenantId, t.seq),
    uniqueIndex('business_operations_source').on(t.sourceReference, t.kind),
  ],
)

/** One-time codes a payer gets from orange-money to allow a wallet-to-card pull (SPEC §4.4, §8). */
export const walletCodes = sqliteTable(
  'wallet_codes',
  {
    seq: integer('seq').primaryKey({ autoIncrement: true }),
    tenantId: text('tenant_id').notNull(),
    code: text('code').notNull(),
    phone: text('phone').notNull(),
    network: text('network').notNull(),
    expiresAt: integer('expires_at').notNull(),
    usedAt: integer('used_at'),
    createdAt: integer('created_at').notNull(),
  },
  (t) => [index('wallet_codes_lookup').on(t.tenantId, t.network, t.phone, t.code)],
)

/**
 * The ledger (PRODUCT §5): every movement is two postings that sum to zero, and each account's
 * `balance` is kept equal to the sum of its postings in the same SQLite transaction.
 * Accounts: `card:<reference>`, `float` (the business), `holds` (money on its way out),
 * `world` (everything outside the sandbox: banks, wallets, funding).
 */
export const accounts = sqliteTable(
  'accounts',
  {
    tenantId: text('tenant_id').notNull(),
    name: text('name').notNull(),
    balance: integer('balance').notNull(),
  },
  (t) => [primaryKey({ columns: [t.tenantId, t.name] })],
)

export const postings = sqliteTable(
  'postings',
  {
    seq: integer('seq').primaryKey({ autoIncrement: true }),
    tenantId: text('tenant_id').notNull(),
    account: text('account').notNull(),
    amount: integer('amount').notNull(),
    /** What moved the money: a transaction slug, a disburse or payment reference. */
    source: text('source').notNull(),
    memo: text('memo').notNull(),
    createdAt: integer('created_at').notNull(),
  },
  (t) => [index('postings_tenant_account').on(t.tenantId, t.account)],
)

/**
 * Due work on the sandbox clock (PRODUCT §6, §10): rows, not timers, so that a restart with a
 * file database picks up what was pending. `action` is a target state, or `fill_details`.
 */
export const jobs = sqliteTable(
  'jobs',
  {
    seq: integer('seq').primaryKey({ autoIncrement: true }),
    tenantId: text('tenant_id').notNull(),
    resource: text('resource').notNull(),
    key: text('key').notNull(),
    action: text('action').notNull(),
    dueAt: integer('due_at').notNull(),
    /**
     * The resource's row (its `seq`), by which a transition finds and cancels its jobs. Not the
     * key: in an index of random references each new job's entry lands on a page of its own, one
     * more 8 KiB page for a create to copy into SQLite's rollback journal (bench/HISTORY.md).
     * Null only in a job of a snapshot taken before the column (then it is not cancelled: it
     * runs and finds its move no longer legal, or makes it).
     */
    resourceSeq: integer('resource_seq'),
  },
  (t) => [
    // every read of due jobs is per tenant (the tick's too: tenant by tenant, in SQL)
    index('jobs_tenant_due').on(t.tenantId, t.dueAt, t.seq),
    // a transition cancels the jobs of its resource: found by its row, not by scanning
    index('jobs_tenant_resource_seq').on(t.tenantId, t.resource, t.resourceSeq),
  ],
)

/**
 * The webhook outbox (PRODUCT §7): an event is written in the same transaction as the change
 * that causes it; `body` is the exact bytes sent and signed on every attempt.
 */
export const webhookEvents = sqliteTable(
  'webhook_events',
  {
    seq: integer('seq').primaryKey({ autoIncrement: true }),
    id: text('id').notNull().unique(),
    tenantId: text('tenant_id').notNull(),
    type: text('type').notNull(),
    /** True for the events the real service is not known to send (opt-in). */
    extension: integer('extension', { mode: 'boolean' }).notNull(),
    body: text('body').notNull(),
    status: text('status', { enum: WEBHOOK_EVENT_STATUSES }).notNull(),
    attempts: integer('attempts').notNull(),
    /** Sandbox time of the next attempt, while pending. */
    nextAttemptAt: integer('next_attempt_at').notNull(),
    createdAt: integer('created_at').notNull(),
    /**
     * With replicas (PostgreSQL): until when, on the database's clock (ms), the replica making
     * an attempt holds the event; past it (a killed replica), another one makes the attempt.
     */
    leaseUntil: integer('lease_until'),
  },
  (t) => [
    index('webhook_events_tenant_seq').on(t.tenantId, t.seq),
    // the deliverer walks the tenants with pending events, then each one's due range
    index('webhook_events_pending').on(t.status, t.tenantId, t.nextAttemptAt),
  ],
)

export const webhookAttempts = sqliteTable(
  'webhook_attempts',
  {
    seq: integer('seq').primaryKey({ autoIncrement: true }),
    eventId: text('event_id').notNull(),
    tenantId: text('tenant_id').notNull(),
    attempt: integer('attempt').notNull(),
    url: text('url').notNull(),
    /** Sandbox time of the attempt. */
    at: integer('at').notNull(),
    statusCode: integer('status_code'),
    latencyMs: integer('latency_ms').notNull(),
    /** The first bytes of the response, or the error. */
    response: text('response'),
    error: text('error'),
    /** The request's headers as sent (the signature among them); null on rows from before. */
    requestHeaders: text('request_headers', { mode: 'json' }).$type<Record<string, string>>(),
  },
  (t) => [
    index('webhook_attempts_event').on(t.eventId, t.attempt),
    index('webhook_attempts_tenant').on(t.tenantId),
  ],
)

/**
 * Access tokens of the hosted card-reveal page (docs "get access token card"): each opens one
 * card's details until `expires_at` on the tenant's clock. Found by token, whatever the tenant.
 */
export const cardRevealTokens = sqliteTable(
  'card_reveal_tokens',
  {
    seq: integer('seq').primaryKey({ autoIncrement: true }),
    token: text('token').notNull().unique(),
    tenantId: text('tenant_id').notNull(),
    cardReference: text('card_reference').notNull(),
    /** The http(s) stylesheet the page links, or null. */
    cssUrl: text('css_url'),
    expiresAt: integer('expires_at').notNull(),
    createdAt: integer('created_at').notNull(),
  },
  (t) => [index('card_reveal_tokens_tenant_seq').on(t.tenantId, t.seq)],
)

/** Scenarios a tenant posted at run time (PRODUCT §9); files loaded at start are not stored. */
export const scenarios = sqliteTable(
  'scenarios',
  {
    seq: integer('seq').primaryKey({ autoIncrement: true }),
    tenantId: text('tenant_id').notNull(),
    name: text('name').notNull(),
    /** The scenario as posted (JSON), validated again when read. */
    definition: text('definition', { mode: 'json' }).notNull(),
  },
  (t) => [uniqueIndex('scenarios_tenant_name').on(t.tenantId, t.name)],
)

/**
 * Snapshots: a tenant's whole state under a name, kept by token so that they outlive
 * the tenant's resets: its rows of every tenant table (`rows`: JSON, by table name, restored by
 * SQL alone, store/snapshots.ts) and the tenant row's own state (`tenant`: clock, delays,
 * webhook endpoint).
 */
export const snapshots = sqliteTable(
  'snapshots',
  {
    seq: integer('seq').primaryKey({ autoIncrement: true }),
    token: text('token').notNull(),
    name: text('name').notNull(),
    /** The tenant clock's instant when it was taken: where a restore sets the clock back to. */
    takenAt: integer('taken_at').notNull(),
    /** How many rows it holds, for the list. */
    rowCount: integer('row_count').notNull(),
    tenant: text('tenant', { mode: 'json' }).notNull(),
    rows: text('rows').notNull(),
  },
  (t) => [uniqueIndex('snapshots_token_name').on(t.token, t.name)],
)

/**
 * Ids a tenant had before a reset: a reset gives the tenant a new id at once, and the rows left
 * under the old one are deleted a batch at a time by the tick (store/retired-tenants.ts).
 */
export const retiredTenants = sqliteTable('retired_tenants', {
  id: text('id').primaryKey(),
  retiredAt: integer('retired_at').notNull(),
})

/**
 * The flags every replica on one PostgreSQL database must share (the clock's mode, speed and
 * start), written by the first to start (store/postgres/replicas.ts). Unused on SQLite (one process).
 */
export const replicaSettings = sqliteTable('replica_settings', {
  name: text('name').primaryKey(),
  value: text('value').notNull(),
})

export type Tenant = typeof tenants.$inferSelect
export type Snapshot = typeof snapshots.$inferSelect
export type CardUser = typeof cardUsers.$inferSelect
export type Card = typeof cards.$inferSelect
export type Transaction = typeof transactions.$inferSelect
export type Dispute = typeof disputes.$inferSelect
export type Payment = typeof payments.$inferSelect
export type Disburse = typeof disburses.$inferSelect
export type BusinessOperation = typeof businessOperations.$inferSelect
export type WalletCode = typeof walletCodes.$inferSelect
export type CardRevealToken = typeof cardRevealTokens.$inferSelect
export type Job = typeof jobs.$inferSelect
export type WebhookEvent = typeof webhookEvents.$inferSelect
export type WebhookAttempt = typeof webhookAttempts.$inferSelect
export type TransactionKind = (typeof TRANSACTION_KINDS)[number]
export type CardBrand = (typeof CARD_BRANDS)[number]
export type CardType = (typeof CARD_TYPES)[number]
