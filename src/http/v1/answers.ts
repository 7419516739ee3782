/**
 * What each /v1 route answers with 200, in the default shapes (quirks on, `--sdk-compat off`):
 * the real service's examples, quirks and all (PRODUCT §2). Each route declares its answer in
 * its metadata (`describeRoute({ answer })`); the served OpenAPI document is written from these
 * schemas, test/http/v1/answers.test.ts checks live answers against them, and the typed /v1 client
 * (`client.v1.cards.create(…)`, client.ts) takes its result types from them. Objects are strict:
 * a key the schema does not name fails the check, so the document cannot fall behind the code.
 * Imports zod and the closed lists alone, so that the package's declarations stay
 * self-contained.
 */
import { z } from 'zod'
import {
  BUSINESS_OPERATION_STATUSES,
  CARD_STATUSES,
  CARD_TYPES,
  CARD_USER_STATUSES,
  DISBURSE_NETWORKS,
  DISBURSE_STATUSES,
  DISPUTE_REASONS,
  DISPUTE_STATUSES,
  PAYMENT_STATUSES,
  PHONE_COUNTRY_CODES,
  TRANSACTION_KINDS,
  TRANSACTION_STATUSES,
  WALLET_NETWORKS,
} from '../../db/values.js'

/** `message` and `statusCode` beside the resource fields (SPEC §2.1). */
const envelope = <Shape extends z.ZodRawShape>(shape: Shape) =>
  z.strictObject({ message: z.string(), statusCode: z.literal(200), ...shape })

const nullableText = z.string().nullable()
/** Laravel's `created_at`, with microseconds (PRODUCT §2). */
const createdAt = z.string().regex(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{6}Z$/)
/** `expired_at`, with milliseconds (PRODUCT §2). */
const expiredAt = z.string().regex(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/)
/** Brands capitalised, as the examples show them: "Visa", "Mastercard", "Gim". */
const brandName = z.enum(['Visa', 'Mastercard', 'Gim'])

/** Laravel's paginator summary (SPEC §2.2); `from` and `to` are null on an empty page. */
export const pageMetaAnswer = z.strictObject({
  current_page: z.number().int(),
  from: z.number().int().nullable(),
  last_page: z.number().int(),
  per_page: z.number().int(),
  to: z.number().int().nullable(),
  total: z.number().int(),
})

// ---- card users (SPEC §4.1) ----

/**
 * The identity a card user was created with; the docs' two flows order it differently, and the
 * keys here are in the order the sandbox answers them (drift/compare.ts checks key order).
 */
const identity = {
  reference: z.uuid(),
  first_name: nullableText,
  last_name: nullableText,
  address: nullableText,
  id_no: nullableText,
  phone: z.string(),
  email: nullableText,
}
/** The widget flow's order, which the list's records follow too. */
const { id_no, ...widgetFirst } = identity
const widgetIdentity = { ...widgetFirst, id_no }
export const userCardAnswer = z.strictObject(identity)
export const cardUserAnswer = z.strictObject({
  ...identity,
  status: z.enum(CARD_USER_STATUSES),
  created_at: createdAt,
})
const cardUserListItem = z.strictObject({ ...widgetIdentity, status: z.enum(CARD_USER_STATUSES) })

/** Widget flow: `userCard` beside `message`; full data: under `data`, with `message` again. */
export const createCardUserAnswer = z.union([
  envelope({ userCard: z.strictObject(widgetIdentity) }),
  envelope({ data: z.strictObject({ message: z.string(), userCard: userCardAnswer }) }),
])
const paginatorLink = z.strictObject({
  url: z.string().nullable(),
  label: z.string(),
  active: z.boolean(),
})
/** Laravel's full paginator, in a one-element array (PRODUCT §2). */
export const listCardUsersAnswer = envelope({
  data: z.array(
    z.strictObject({
      data: z.array(cardUserListItem),
      links: z.strictObject({
        first: z.string(),
        last: z.string(),
        prev: z.string().nullable(),
        next: z.string().nullable(),
      }),
      meta: z.strictObject({
        current_page: z.number().int(),
        from: z.number().int().nullable(),
        last_page: z.number().int(),
        links: z.array(paginatorLink),
        path: z.string(),
        per_page: z.number().int(),
        to: z.number().int().nullable(),
        total: z.number().int(),
      }),
    }),
  ),
  meta: pageMetaAnswer,
})
export const showCardUserAnswer = envelope({ data: z.strictObject({ cardUser: cardUserAnswer }) })

// ---- cards (SPEC §4.3) ----

export const cardAnswer = z.strictObject({
  /** A linked card's identifier; absent on a card issued by the service. */
  identifier: z.number().int().optional(),
  reference: z.uuid(),
  /** Null until the card is issued. */
  card_number: nullableText,
  card_brand: brandName,
  card_type: z.enum(CARD_TYPES),
  cvv2: nullableText,
  /** `YYYY-MM` (PRODUCT §5) */
  expiry: z
    .string()
    .regex(/^\d{4}-\d\d$/)
    .nullable(),
  balance: z.number().int(),
  status: z.enum(CARD_STATUSES),
})
/** Create, link, freeze, unfreeze and show: the card under `data.card`. */
export const oneCardAnswer = envelope({ data: z.strictObject({ card: cardAnswer }) })
/** The list swaps the two: the brand under `card_type`, the type under `card_brand`. */
export const cardListItemAnswer = z.strictObject({
  reference: z.uuid(),
  balance: z.number().int(),
  last_four: nullableText,
  status: z.enum(CARD_STATUSES),
  card_type: brandName,
  card_brand: z.enum(CARD_TYPES),
})
export const listCardsAnswer = envelope({ data: z.array(cardListItemAnswer), meta: pageMetaAnswer })
export const cardAccessTokenAnswer = envelope({
  data: z.strictObject({ access_token: z.string(), embedded_ui: z.string() }),
})

// ---- transactions (SPEC §4.4) ----

export const transactionAnswer = z.strictObject({
  slug: z.uuid(),
  card_reference: z.uuid(),
  reference: z.string(),
  status: z.enum(TRANSACTION_STATUSES),
  kind: z.enum(TRANSACTION_KINDS),
  /** The bank's name on a card-to-bank create answer; `false` otherwise (PRODUCT §2). */
  merchant: z.union([z.string(), z.literal(false)]),
  amount: z.number().int(),
  bank_name: z.string().optional(),
  bank_id: z.string().optional(),
  bank_account_name: z.string().optional(),
  phone: z.string().optional(),
  network: z.string().optional(),
  created_at: createdAt,
})
export const oneTransactionAnswer = envelope({
  data: z.strictObject({ transaction: transactionAnswer }),
})
/** Show: the transaction beside `message`, not under `data`. */
export const showTransactionAnswer = envelope({ transaction: transactionAnswer })
export const listTransactionsAnswer = envelope({
  data: z.strictObject({ transaction: z.array(transactionAnswer) }),
  meta: pageMetaAnswer,
})

// ---- payments and disburses (SPEC §4.5, §4.6) ----

/** `{wallet_url}` on create, `[]` in list and show (PRODUCT §2). */
const createdMeta = z.strictObject({ wallet_url: z.string() })
const readMeta = z.array(z.never())

/**
 * A payment or a disburse, read and created, its keys in the order the sandbox answers them
 * (SPEC §2.6's): `partner_reference` after `network` on create.
 */
function moneyRequestAnswers<
  Customer extends z.ZodType,
  Network extends z.ZodType,
  Status extends z.ZodType,
>(customer: Customer, network: Network, status: Status) {
  const head = {
    business: z.string(),
    customer,
    slug: z.uuid(),
    reference: z.uuid(),
    /** The create answer of a payment says "disburse" (PRODUCT §2). */
    kind: z.enum(['payment', 'disburse']),
    network,
  }
  const tail = { amount: z.number().int(), status, expired_at: expiredAt }
  return {
    read: z.strictObject({ ...head, ...tail, meta: readMeta }),
    created: z.strictObject({
      ...head,
      partner_reference: z.string(),
      ...tail,
      meta: createdMeta,
    }),
  }
}

const paymentCustomer = z.strictObject({
  full_name: z.string(),
  email: z.string(),
  phone: z.string(),
})
const payments = moneyRequestAnswers(
  paymentCustomer,
  z.enum(WALLET_NETWORKS),
  z.enum(PAYMENT_STATUSES),
)
export const paymentAnswer = payments.read
export const createPaymentAnswer = envelope({
  data: z.strictObject({ payment: payments.created }),
})
export const listPaymentsAnswer = envelope({ data: z.array(paymentAnswer), meta: pageMetaAnswer })
export const showPaymentAnswer = envelope({ data: paymentAnswer })

const disburses = moneyRequestAnswers(
  paymentCustomer.extend({
    bank_name: z.string(),
    bank_id: z.string(),
    bank_account_name: z.string(),
  }),
  z.enum(DISBURSE_NETWORKS),
  z.enum(DISBURSE_STATUSES),
)
export const disburseAnswer = disburses.read
export const createDisburseAnswer = envelope({
  data: z.strictObject({ disburse: disburses.created }),
})
export const listDisbursesAnswer = envelope({ data: z.array(disburseAnswer), meta: pageMetaAnswer })
export const showDisburseAnswer = envelope({ data: disburseAnswer })

// ---- disputes ----

export const disputeAnswer = z.strictObject({
  transaction_slug: z.uuid(),
  /** Once updated, `{"reference": null}` (PRODUCT §2). */
  slug: z.union([z.uuid(), z.strictObject({ reference: z.null() })]),
  status: z.enum(DISPUTE_STATUSES),
  reason: z.enum(DISPUTE_REASONS),
  explanation: z.string().nullable(),
})
/** Create and update: the dispute alone in an array. */
export const disputeChangeAnswer = envelope({ data: z.array(disputeAnswer) })
export const listDisputesAnswer = envelope({ data: z.array(disputeAnswer), meta: pageMetaAnswer })
export const showDisputeAnswer = envelope({ data: z.strictObject({ dispute: disputeAnswer }) })

// ---- the business account ----

export const businessBalancesAnswer = envelope({
  data: z.strictObject({ balance: z.number().int() }),
})
export const businessOperationAnswer = z.strictObject({
  amount: z.number().int(),
  fees: z.number().int(),
  description: z.string(),
  type: z.string(),
  kind: z.enum(['float_debit', 'float_credit']),
  bank_name: z.string(),
  bank_id: z.string(),
  bank_account_name: z.string(),
  status: z.enum(BUSINESS_OPERATION_STATUSES),
  created_at: createdAt,
})
export const listBusinessOperationsAnswer = envelope({
  data: z.array(businessOperationAnswer),
  meta: pageMetaAnswer,
})

// ---- miscellaneous ----

/**
 * Verify phone: no source shows the answer. The envelope, with what alal-node's phoneVerification
 * reads back (`phone`, `country_code`) under `data` (docs/choices.md).
 */
export const verifyPhoneAnswer = envelope({
  data: z.strictObject({ phone: z.string(), country_code: z.enum(PHONE_COUNTRY_CODES) }),
})
