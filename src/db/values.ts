/**
 * The closed lists a value of the sandbox holds (a column, a field of a request or an answer):
 * plain data that imports nothing, so that the answers' schemas (http/v1/answers.ts) and the
 * package's declarations can name them without the database layer.
 */
/** The states of each resource; domain/lifecycles.ts gives the moves between them (PRODUCT §5). */
export const CARD_USER_STATUSES = ['pending', 'passed', 'failed'] as const
export const CARD_STATUSES = ['issuing', 'issued', 'frozen', 'failed'] as const
export const TRANSACTION_STATUSES = ['pending', 'success', 'failed'] as const
export const PAYMENT_STATUSES = ['pending', 'success', 'failed', 'expired'] as const
export const DISBURSE_STATUSES = ['processing', 'success', 'failed'] as const
export const BUSINESS_OPERATION_STATUSES = ['pending', 'success', 'failed'] as const
export const DISPUTE_STATUSES = ['open', 'submitted', 'won', 'lost'] as const

export const CLOCK_MODES = ['real', 'manual'] as const
export const CARD_BRANDS = ['visa', 'mastercard', 'gim'] as const
export const CARD_TYPES = ['virtual', 'physical'] as const
export const VERIFICATION_FLOWS = ['widget', 'full_data'] as const
export const TRANSACTION_KINDS = [
  'card_to_bank',
  'card_to_wallet',
  'wallet_to_card',
  'recharge',
  'withdraw',
  'transfer',
] as const
export const WEBHOOK_EVENT_STATUSES = ['pending', 'delivered', 'failed', 'skipped'] as const

export const DISPUTE_REASONS = [
  'duplicate',
  'not_received',
  'fraudulent',
  'product_not_as_described',
  'service_not_as_described',
  'canceled',
  'other',
] as const

export const WALLET_NETWORKS = [
  'orange-money-sn',
  'wave-sn',
  'orange-money-ci',
  'wave-ci',
  'mtn-ci',
  'moov-ci',
  'mtn-bj',
  'moov-bj',
  'moov-tg',
  't-money-togo',
] as const

/** SPEC §4.4: the networks a wallet-to-card transfer may come from. */
export const WALLET_TO_CARD_NETWORKS = [
  'mtn-ci',
  'orange-money-ci',
  'wave-ci',
  'orange-money-sn',
  'wave-sn',
] as const

/**
 * The banks a card-to-bank transfer may go to: the `bank_name` list of the API reference's
 * "Card to Bank Account" page (alal-php's Enums/BankName.php holds the same 27).
 */
export const BANK_NAMES = [
  'BICICI',
  'NSIA_BANQUE_CI',
  'SIB',
  'SOCIETE_GENERALE_CI',
  'CITIBANK_CI',
  'BOA_CI',
  'BACI',
  'ECOBANK_CI',
  'BHCI',
  'BNI',
  'STANDARD_CHARTERED_BANK_CI',
  'AFRILAND_FIRST_BANK_CI',
  'VERSUS_BANK_CI',
  'ORABANK_CI',
  'BBG_CI',
  'UBA_CI',
  'BSIC_CI',
  'BGFIBANK_CI',
  'BANQUE_POPULAIRE',
  'GTBANK_CI',
  'CBI_CI',
  'BDU_CI',
  'STANBIC_BANK_CI',
  'BDA',
  'MANSA_BANK_CI',
  'ORANGE_BANK_CI',
  'AFG_BANK_CI',
] as const

/** The countries a phone may be verified in (alal-php's Enums/CountryCode.php). */
export const PHONE_COUNTRY_CODES = ['sn', 'ci', 'tg', 'bj', 'bf'] as const

/** The networks a disburse may go out on: a bank, or a wallet. */
export const DISBURSE_NETWORKS = ['bank', ...WALLET_NETWORKS] as const

/** The identity a full-data card user submits (SPEC §4.1), beside the phone. */
export const IDENTITY_FIELDS = [
  'first_name',
  'last_name',
  'address',
  'id_no',
  'selfie_image',
  'id_image',
  'back_id_image',
] as const

/** The networks whose wallet-to-card transfers need a code the payer got (PRODUCT §10). */
export const CODE_NETWORKS = ['orange-money-sn', 'orange-money-ci'] as const

/**
 * The job that fills an issued card's number, cvv2 and expiry (domain/cards.ts): it moves no
 * status, so the scheduler runs it alone and the due sets (store/due-sets.ts) never take it.
 */
export const FILL_DETAILS = 'fill_details'
