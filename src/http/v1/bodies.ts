/**
 * What each /v1 route accepts: the zod schemas of the request bodies, which the routes validate
 * with (validate.ts), the OpenAPI document shows, and the typed /v1 client (client.ts) takes its
 * input types from. Imports zod, the field schemas and the closed lists alone, so that the
 * package's declarations stay self-contained.
 */
import { z } from 'zod'
import {
  BANK_NAMES,
  CARD_BRANDS,
  CARD_TYPES,
  CODE_NETWORKS,
  DISBURSE_NETWORKS,
  DISPUTE_REASONS,
  IDENTITY_FIELDS,
  PHONE_COUNTRY_CODES,
  WALLET_NETWORKS,
  WALLET_TO_CARD_NETWORKS,
} from '../../db/values.js'
import {
  amount,
  email,
  evenWithOtherErrors,
  httpUrl,
  imageUrl,
  phone,
  text,
  uuid,
  withExample,
} from './schemas.js'

// ---- card users (SPEC §4.1) ----

const identity = {
  first_name: text().optional(),
  last_name: text().optional(),
  address: text(500).optional(),
  email: email().optional(),
  id_no: text(64).optional(),
  selfie_image: imageUrl().optional(),
  id_image: imageUrl().optional(),
  back_id_image: imageUrl().optional(),
}

/** A full-data submission needs the whole identity; only the back of the id may be left out. */
const FULL_DATA_REQUIRED = IDENTITY_FIELDS.filter((field) => field !== 'back_id_image')

export const createCardUserBody = withExample(
  z.object({ phone: phone(), ...identity }).superRefine((body, check) => {
    if (!IDENTITY_FIELDS.some((field) => body[field] !== undefined)) return
    for (const field of FULL_DATA_REQUIRED) {
      if (body[field] !== undefined) continue
      check.addIssue({
        code: 'custom',
        path: [field],
        message: `The ${field.replaceAll('_', ' ')} field is required when identity data is sent.`,
      })
    }
  }, evenWithOtherErrors),
  {
    phone: '+221770000001',
    first_name: 'Awa',
    last_name: 'Diop',
    address: '12 Rue Carnot, Dakar',
    email: 'awa.diop@example.com',
    id_no: '1234567890123',
    selfie_image: 'https://img.example.com/selfie.jpg',
    id_image: 'https://img.example.com/id-front.jpg',
    back_id_image: 'https://img.example.com/id-back.jpg',
  },
)

export const resubmitCardUserBody = withExample(
  z.object({
    card_user_reference: uuid(),
    phone: phone().optional(),
    ...identity,
  }),
  {
    card_user_reference: '3f2504e0-4f89-41d3-9a0c-0305e82c3301',
    address: '14 Rue Carnot, Dakar',
    id_image: 'https://img.example.com/id-front-2.jpg',
  },
)

// ---- cards (SPEC §4.3) ----

export const createCardBody = withExample(
  z.object({
    card_user_reference: uuid(),
    card_brand: z.enum(CARD_BRANDS),
    card_type: z.enum(CARD_TYPES),
  }),
  {
    card_user_reference: '3f2504e0-4f89-41d3-9a0c-0305e82c3301',
    card_brand: 'visa',
    card_type: 'virtual',
  },
)

/** A linked card's identifier: an integer, or the same digits in a string (the docs' type). */
const identifier = z
  .union([
    z.number().int().positive().max(Number.MAX_SAFE_INTEGER),
    z.string().refine(isIdentifierDigits, {
      message: 'The identifier field must be a positive integer or a string of its digits.',
    }),
  ])
  .transform(Number)

function isIdentifierDigits(text: string): boolean {
  return /^[0-9]{1,16}$/.test(text) && Number.isSafeInteger(Number(text)) && Number(text) > 0
}

/**
 * PRODUCT §10: `identifier` (SPEC §4.3), or the older body's `reference` in its place, which
 * then becomes the new card's reference; with both, the card has both.
 */
export const linkCardBody = withExample(
  z
    .object({
      identifier: identifier.optional(),
      reference: uuid().optional(),
      card_user_reference: uuid(),
    })
    .superRefine((body, check) => {
      if (body.identifier !== undefined || body.reference !== undefined) return
      check.addIssue({
        code: 'custom',
        path: ['identifier'],
        message: 'The identifier field is required when reference is not present.',
      })
    }, evenWithOtherErrors),
  { identifier: 4410023, card_user_reference: '3f2504e0-4f89-41d3-9a0c-0305e82c3301' },
)

export const cardReferenceBody = withExample(z.object({ reference: uuid() }), {
  reference: '6a1b7c52-0c7e-4d36-9f0a-4b8e2f1d7c90',
})

/** Docs "get access token card": `css_url` styles the page; `""` counts as absent. */
export const cardAccessTokenBody = withExample(
  z.object({
    reference: uuid(),
    css_url: z
      .string()
      .refine((url) => url === '' || httpUrl().safeParse(url).success, {
        message: 'The css url field must be a valid http(s) URL.',
      })
      .optional(),
  }),
  {
    reference: '6a1b7c52-0c7e-4d36-9f0a-4b8e2f1d7c90',
    css_url: 'https://app.example.com/card.css',
  },
)

// ---- transactions (SPEC §4.4) ----

export const cardToBankBody = withExample(
  z.object({
    amount: amount(),
    card_reference: uuid(),
    reference: text().optional(),
    bank_id: text(),
    bank_name: z.enum(BANK_NAMES),
    bank_account_name: text().optional(),
    description: text(1000).optional(),
  }),
  {
    amount: 25000,
    card_reference: '6a1b7c52-0c7e-4d36-9f0a-4b8e2f1d7c90',
    reference: 'payout-0042',
    bank_id: 'CI008-01001-000123456789-12',
    bank_name: 'ECOBANK_CI',
    bank_account_name: 'Awa Diop',
    description: 'Rent, March',
  },
)

export const cardToWalletBody = withExample(
  z.object({
    amount: amount(),
    card_reference: uuid(),
    reference: text().optional(),
    phone: phone(),
    network: z.enum(WALLET_NETWORKS),
  }),
  {
    amount: 5000,
    card_reference: '6a1b7c52-0c7e-4d36-9f0a-4b8e2f1d7c90',
    reference: 'wallet-0042',
    phone: '+221770000001',
    network: 'wave-sn',
  },
)

/**
 * Docs "topup or withdraw card": the newer page's body, and the older one's `slug` as another
 * name of the client `reference`.
 */
export const cardMovementBody = withExample(
  z.object({
    action: z.enum(['recharge', 'withdraw', 'transfer']),
    amount: amount(),
    card_reference: uuid(),
    receiver_card_reference: uuid().optional(),
    reference: text().optional(),
    slug: text().optional(),
  }),
  {
    action: 'recharge',
    amount: 10000,
    card_reference: '6a1b7c52-0c7e-4d36-9f0a-4b8e2f1d7c90',
    reference: 'top-up-0042',
  },
)

export const walletToCardBody = withExample(
  z
    .object({
      amount: amount(),
      card_reference: uuid(),
      reference: text().optional(),
      phone: phone(),
      network: z.enum(WALLET_TO_CARD_NETWORKS),
      code: text(32).optional(),
    })
    .superRefine((body, check) => {
      if (body.code === undefined && (CODE_NETWORKS as readonly string[]).includes(body.network)) {
        check.addIssue({
          code: 'custom',
          path: ['code'],
          message: `The code field is required when network is ${body.network}.`,
        })
      }
    }, evenWithOtherErrors),
  {
    amount: 15000,
    card_reference: '6a1b7c52-0c7e-4d36-9f0a-4b8e2f1d7c90',
    reference: 'top-up-0043',
    phone: '+2250700000001',
    network: 'orange-money-ci',
    code: '123456',
  },
)

// ---- payments (SPEC §4.5) ----

export const createPaymentBody = withExample(
  z.object({
    amount: amount(),
    partner_reference: text().optional(),
    network: z.enum(WALLET_NETWORKS),
    customer: z.object({
      full_name: text(),
      email: email().optional(),
      phone: phone(),
    }),
  }),
  {
    amount: 12500,
    partner_reference: 'order-42',
    network: 'orange-money-sn',
    customer: { full_name: 'Moussa Ba', email: 'moussa@example.com', phone: '+221770000042' },
  },
)

// ---- disburses (SPEC §4.6) ----

const BANK_FIELDS = ['bank_name', 'bank_id', 'bank_account_name'] as const

/** A bank disburse needs the customer's bank details; a wallet disburse needs their phone. */
export const createDisburseBody = withExample(
  z
    .object({
      amount: amount(),
      network: z.enum(DISBURSE_NETWORKS),
      partner_reference: text().optional(),
      customer: z.object({
        full_name: text(),
        email: email().optional(),
        phone: phone().optional(),
        bank_name: text().optional(),
        bank_id: text().optional(),
        bank_account_name: text().optional(),
      }),
    })
    .superRefine((body, check) => {
      const customer: Record<string, unknown> | null =
        typeof body.customer === 'object' && body.customer !== null && !Array.isArray(body.customer)
          ? body.customer
          : null
      if (!customer || !(DISBURSE_NETWORKS as readonly string[]).includes(body.network)) return
      const needed = body.network === 'bank' ? BANK_FIELDS : (['phone'] as const)
      for (const field of needed) {
        if (customer[field] !== undefined) continue
        check.addIssue({
          code: 'custom',
          path: ['customer', field],
          message: `The customer.${field.replaceAll('_', ' ')} field is required when network is ${body.network}.`,
        })
      }
    }, evenWithOtherErrors),
  {
    amount: 7000,
    network: 'wave-sn',
    partner_reference: 'refund-42',
    customer: { full_name: 'Moussa Ba', phone: '+221770000042' },
  },
)

// ---- disputes ----

/** Either name of the disputed transaction, at least one. */
const transactionNamed = {
  transaction_slug: uuid().optional(),
  transaction_reference: text().optional(),
}

function requireTransaction(
  body: { transaction_slug?: string; transaction_reference?: string },
  check: z.RefinementCtx,
) {
  if (body.transaction_slug === undefined && body.transaction_reference === undefined) {
    check.addIssue({
      code: 'custom',
      path: ['transaction_slug'],
      message: 'The transaction slug field is required when transaction reference is not present.',
    })
  }
}

export const createDisputeBody = withExample(
  z
    .object({
      ...transactionNamed,
      reason: z.enum(DISPUTE_REASONS),
      explanation: text(5000).optional(),
    })
    .superRefine(requireTransaction, evenWithOtherErrors),
  {
    transaction_slug: 'b7e6c1d2-5a4f-4e3b-8c9d-0a1b2c3d4e5f',
    reason: 'duplicate',
    explanation: 'Charged twice for the same order.',
  },
)

export const updateDisputeBody = withExample(
  z
    .object({
      ...transactionNamed,
      explanation: text(5000),
      reason: z.enum(DISPUTE_REASONS).optional(),
    })
    .superRefine(requireTransaction, evenWithOtherErrors),
  {
    transaction_slug: 'b7e6c1d2-5a4f-4e3b-8c9d-0a1b2c3d4e5f',
    explanation: 'The second charge is order-42 again.',
  },
)

// ---- miscellaneous ----

/** alal-php's phoneVerification: the phone as its owner writes it, and its country. */
export const verifyPhoneBody = withExample(
  z.object({ phone: phone(), country_code: z.enum(PHONE_COUNTRY_CODES) }),
  { phone: '770000001', country_code: 'sn' },
)
