/**
 * Every event the sandbox sends, by name, and its `data`: what the builders of
 * webhook-events.ts produce (they are typed against this map) and what the kit's
 * `webhookReceiver` types its deliveries with (`waitFor('card_creation.successful')`). Type-only
 * and self-contained (the closed lists of db/values.ts alone), so that the package's declarations
 * can name it.
 */
import type {
  CARD_BRANDS,
  CARD_TYPES,
  DISBURSE_NETWORKS,
  TRANSACTION_KINDS,
  WALLET_NETWORKS,
} from '../db/values.js'

type CardBrand = (typeof CARD_BRANDS)[number]

/** A card user's identity as the verification events send it: always strings, `""` if not given. */
export type VerifiedIdentity = {
  reference: string
  first_name: string
  last_name: string
  address: string
  id_no: string
  phone: string
  email: string
}

/** A card's brand as the events name it: `"Visa"` with quirks on (the default), `"visa"` off. */
export type WebhookCardBrand = Capitalize<CardBrand> | CardBrand

/** The sandbox extension events of a transaction (`--webhook-extensions on`). */
export type TransactionEventData<Status extends string> = {
  slug: string
  /** The client's reference of the transaction. */
  reference: string
  card_reference: string
  kind: (typeof TRANSACTION_KINDS)[number]
  amount: number
  status: Status
}

/** The sandbox extension events of a payment or a disburse (`--webhook-extensions on`). */
export type MoneyRequestEventData<Network extends string, Status extends string> = {
  reference: string
  partner_reference: string
  network: Network
  amount: number
  status: Status
}

type PaymentData<Status extends string> = MoneyRequestEventData<
  (typeof WALLET_NETWORKS)[number],
  Status
>
type DisburseData<Status extends string> = MoneyRequestEventData<
  (typeof DISBURSE_NETWORKS)[number],
  Status
>

/**
 * Each event's `data`, by event name. The first four are the service's own (SPEC §6, PRODUCT §7);
 * the others are the sandbox's opt-in extension, sent with `--webhook-extensions on` only (and
 * marked with the `x-card-sandbox-extension: true` header).
 */
export type WebhookEvents = {
  'card_user_verification.successful': VerifiedIdentity & { status: 'passed' }
  'card_user_verification.failed': VerifiedIdentity & { status: 'failed' }
  'card_creation.successful': {
    reference: string
    card_number: string
    card_brand: WebhookCardBrand
    card_type: (typeof CARD_TYPES)[number]
    cvv2: string
    /** `YYYY-MM` */
    expiry: string
    /** The balance as a string: `"0"`. */
    balance: string
    status: 'issued'
  }
  'card_creation.failed': {
    reference: string
    card_brand: WebhookCardBrand
    card_type: (typeof CARD_TYPES)[number]
    status: 'failed'
  }
  'transaction.success': TransactionEventData<'success'>
  'transaction.failed': TransactionEventData<'failed'>
  'payment.success': PaymentData<'success'>
  'payment.failed': PaymentData<'failed'>
  'payment.expired': PaymentData<'expired'>
  'disburse.success': DisburseData<'success'>
  'disburse.failed': DisburseData<'failed'>
}

/** The name of an event the sandbox sends. */
export type WebhookEventName = keyof WebhookEvents

/** The body of an event as sent (and signed): `{"event": …, "data": …}`, one per event name. */
export type WebhookPayload<E extends WebhookEventName = WebhookEventName> = {
  [Name in E]: { event: Name; data: WebhookEvents[Name] }
}[E]
