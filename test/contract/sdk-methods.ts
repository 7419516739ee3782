/**
 * What each public method of the official SDKs sends and reads, written down from their sources
 * (ALAL-Community/alal-node lib/*.ts, alal-php src/Endpoint/**) as data: facts only, none of their
 * code. `path` is what the method appends to its base URL (which ends in /v1 here: node's
 * ALAL_BASE_URL without a trailing slash, php's `uri` option). `reads` are the keys the SDK
 * reads from the answer and where. A method that cannot work because of the SDK itself carries
 * `sdkBug` with the reason, and `shows` says how the reason shows against the sandbox.
 * alal-python: alal/{card,cardUser,transaction,dispute}/service.py and alal/base.py (the modules
 * its __init__ exports); its path has no leading slash, so its base URL ends with one. Its
 * freeze_card, unfreeze_card and link_card call a send_request that does not exist: they raise
 * AttributeError before sending anything, so they have no entry here.
 */

/** The resources a call refers to, made before it runs (sdks.test.ts). */
export type Made = {
  user: string
  card: string
  otherCard: string
  slug: string
  transactionReference: string
  dispute: string
  payment: string
  disburse: string
}

type KeyType = 'string' | 'number' | 'array' | 'object'

export type SdkMethod = {
  sdk: 'node' | 'php' | 'python'
  method: string
  http: 'GET' | 'POST'
  path: (m: Made) => string
  body?: (m: Made) => Record<string, unknown>
  /** Keys the SDK reads: at '' (the answer itself), 'data', or 'data[]' (each item of data). */
  reads?: { at: '' | 'data' | 'data[]'; keys: Record<string, KeyType> }
  sdkCompat?: boolean
  sdkBug?: string
  /** An endpoint the real service has that this sandbox does not serve yet. */
  notServed?: string
  /** How the bug shows: the status the request gets, and keys the SDK reads that are absent. */
  shows?: {
    status: number
    absent?: { at: '' | 'data[]'; keys: string[] }
    dataIsNotAList?: true
    /** The answer carries `statusCode` (python's sendRequest raises on any answer that does). */
    carriesStatusCode?: true
  }
}

const identity = {
  first_name: 'Awa',
  last_name: 'Diop',
  address: 'Dakar',
  phone: '+221770000009',
  email: 'awa@example.com',
  id_no: '42',
  selfie_image: 'https://x.test/s.jpg',
  id_image: 'https://x.test/i.jpg',
  back_id_image: 'https://x.test/b.jpg',
}
const customer = { full_name: 'Awa Diop', email: 'awa@example.com', phone: '+221770000001' }
const NODE_TOP_LEVEL =
  'reads the resource’s keys at the top level of the answer, where the service puts message and statusCode: the model’s fields are undefined'

export const SDK_METHODS: SdkMethod[] = [
  // alal-node: Card
  {
    sdk: 'node',
    method: 'Card.listCards',
    http: 'GET',
    path: () => '/cards?page=1',
    reads: {
      at: 'data[]',
      keys: {
        balance: 'number',
        card_brand: 'string',
        card_type: 'string',
        reference: 'string',
        status: 'string',
      },
    },
    sdkBug: 'also reads last4, a key the service never sends (its list has last_four)',
    shows: { status: 200, absent: { at: 'data[]', keys: ['last4'] } },
  },
  {
    sdk: 'node',
    method: 'Card.showCard',
    http: 'GET',
    path: (m) => `/cards/${m.card}`,
    sdkBug: NODE_TOP_LEVEL,
    shows: {
      status: 200,
      absent: { at: '', keys: ['balance', 'card_brand', 'reference', 'status'] },
    },
  },
  {
    sdk: 'node',
    method: 'Card.createCard',
    http: 'POST',
    path: () => '/cards/create',
    body: (m) => ({ card_brand: 'visa', card_type: 'virtual', card_user_reference: m.user }),
    sdkBug: NODE_TOP_LEVEL,
    shows: { status: 200, absent: { at: '', keys: ['card_brand', 'reference', 'status'] } },
  },
  {
    sdk: 'node',
    method: 'Card.getCardAccessToken',
    http: 'POST',
    path: (m) => `/cards/auth/access_token${m.card}`,
    body: (m) => ({ reference: m.card }),
    sdkBug:
      'appends the reference to the path without a slash (/cards/auth/access_token<reference>)',
    shows: { status: 404 },
  },
  // alal-node: CardUser
  {
    sdk: 'node',
    method: 'CardUser.listCardUsers',
    http: 'GET',
    path: () => '/card-users?page=1',
    reads: { at: 'data', keys: {} },
  },
  {
    sdk: 'node',
    method: 'CardUser.showCardUser',
    http: 'GET',
    path: (m) => `/card-users/${m.user}`,
    sdkBug: NODE_TOP_LEVEL,
    shows: { status: 200, absent: { at: '', keys: ['reference', 'first_name', 'status'] } },
  },
  {
    sdk: 'node',
    method: 'CardUser.createCardUser',
    http: 'POST',
    path: () => '/card-users/create',
    body: () => identity,
    sdkBug: NODE_TOP_LEVEL,
    shows: { status: 200, absent: { at: '', keys: ['reference', 'first_name', 'status'] } },
  },
  // alal-node: Transaction
  {
    sdk: 'node',
    method: 'Transaction.listTransactions',
    http: 'GET',
    path: (m) => `/transactions?card_reference=${m.card}`,
    sdkBug:
      'maps over data as a list, but the service answers the list under data.transaction: the call throws a TypeError',
    shows: { status: 200, dataIsNotAList: true },
  },
  {
    sdk: 'node',
    method: 'Transaction.createTransaction',
    http: 'POST',
    path: () => '/transactions/create',
    body: (m) => ({
      action: 'recharge',
      amount: 100,
      card_reference: m.card,
      reference: 'sdk-node-1',
    }),
    sdkBug: NODE_TOP_LEVEL,
    shows: { status: 200, absent: { at: '', keys: ['amount', 'kind', 'status'] } },
  },
  // alal-node: Dispute
  {
    sdk: 'node',
    method: 'Dispute.listDisputes',
    http: 'GET',
    path: () => '/disputes?page=1',
    reads: { at: 'data[]', keys: { explanation: 'string', reason: 'string', status: 'string' } },
    sdkBug:
      'also reads reference and transaction_reference on each item, which the list does not carry',
    shows: { status: 200, absent: { at: 'data[]', keys: ['reference', 'transaction_reference'] } },
  },
  {
    sdk: 'node',
    method: 'Dispute.showDispute',
    http: 'GET',
    path: (m) => `/cards/${m.dispute}`,
    sdkBug: 'asks for /cards/<reference> instead of /disputes/<reference>',
    shows: { status: 404 },
  },
  {
    sdk: 'node',
    method: 'Dispute.createDispute',
    http: 'POST',
    path: () => '/disputes/create',
    body: (m) => ({ action: 'x', amount: 1, card_reference: m.card, reference: m.slug }),
    sdkBug:
      'refuses to send unless the body has action, amount, card_reference and reference (the transaction’s keys), none of which a dispute takes',
    shows: { status: 422 },
  },
  {
    sdk: 'node',
    method: 'Dispute.updateDispute',
    http: 'POST',
    path: (m) => `/disputes/update/${m.dispute}`,
    body: (m) => ({
      explanation: 'Charged twice',
      reason: 'duplicate',
      transaction_reference: m.slug,
      reference: m.dispute,
    }),
    sdkBug: NODE_TOP_LEVEL,
    shows: { status: 200, absent: { at: '', keys: ['explanation', 'status'] } },
  },
  // alal-php (every method returns the decoded answer; it reads no key itself)
  { sdk: 'php', method: 'Cards.listCards', http: 'GET', path: () => '/cards?page=1' },
  { sdk: 'php', method: 'Cards.showCard', http: 'GET', path: (m) => `/cards/${m.card}` },
  {
    sdk: 'php',
    method: 'Cards.createCard',
    http: 'POST',
    path: () => '/cards/create',
    body: (m) => ({ cardBrand: 'visa', cardType: 'virtual', cardUserReference: m.user }),
    sdkBug:
      'sends cardBrand, cardType and cardUserReference (camelCase) where the service reads card_brand, card_type and card_user_reference',
    shows: { status: 422 },
  },
  {
    sdk: 'php',
    method: 'Cards.getAccessToken',
    http: 'POST',
    path: () => '/cards/auth/access_token',
    body: (m) => ({ css_url: 'https://app.example/card.css', reference: m.card }),
  },
  { sdk: 'php', method: 'CardUsers.listCardUsers', http: 'GET', path: () => '/card-users?page=1' },
  {
    sdk: 'php',
    method: 'CardUsers.showCardUser',
    http: 'GET',
    path: (m) => `/card-users/${m.user}`,
  },
  {
    sdk: 'php',
    method: 'CardUsers.createCardUser',
    http: 'POST',
    path: () => '/card-users/create',
    body: () => identity,
  },
  {
    sdk: 'php',
    method: 'Transactions.listTransactions',
    http: 'GET',
    path: (m) => `/transactions?card_reference=${m.card}`,
  },
  {
    sdk: 'php',
    method: 'Transactions.createTransaction',
    http: 'POST',
    path: () => '/transactions/create',
    body: (m) => ({ action: 'recharge', card_reference: m.card, amount: 100 }),
  },
  {
    sdk: 'php',
    method: 'Transactions.showTransaction',
    http: 'GET',
    path: () => '/transactions/transactions',
    sdkBug: 'ignores its reference and asks for /transactions/transactions',
    shows: { status: 404 },
  },
  {
    sdk: 'php',
    method: 'Transactions.createCardToBank',
    http: 'POST',
    path: () => '/transactions/transactions/create/card-to-bank',
    body: (m) => ({
      amount: 100,
      card_reference: m.card,
      bank_id: 'SN01',
      bank_name: 'CBAO',
      account_name: 'A',
      description: 'd',
    }),
    sdkBug: 'posts to /transactions/transactions/create/… (the prefix twice)',
    shows: { status: 404 },
  },
  {
    sdk: 'php',
    method: 'Transactions.createCardToWallet',
    http: 'POST',
    path: () => '/transactions/transactions/create/card-to-wallet',
    body: (m) => ({
      amount: 100,
      card_reference: m.card,
      phone: '+221770000001',
      network: 'wave-sn',
    }),
    sdkBug: 'posts to /transactions/transactions/create/… (the prefix twice)',
    shows: { status: 404 },
  },
  {
    sdk: 'php',
    method: 'Transactions.createWalletToCard',
    http: 'POST',
    path: () => '/transactions/transactions/create/wallet-to-card',
    body: (m) => ({
      amount: 100,
      card_reference: m.card,
      phone: '+221770000001',
      network: 'wave-sn',
    }),
    sdkBug: 'posts to /transactions/transactions/create/… (the prefix twice)',
    shows: { status: 404 },
  },
  { sdk: 'php', method: 'Disputes.listDisputes', http: 'GET', path: () => '/disputes?page=1' },
  {
    sdk: 'php',
    method: 'Disputes.showDispute',
    http: 'GET',
    path: (m) => `/disputes/${m.dispute}`,
  },
  {
    sdk: 'php',
    method: 'Disputes.createDispute',
    http: 'POST',
    path: () => '/disputes/create',
    body: (m) => ({
      explanation: 'Never arrived',
      transaction_reference: m.transactionReference,
      reason: 'not_received',
    }),
  },
  {
    sdk: 'php',
    method: 'Disputes.updateDispute',
    http: 'POST',
    path: (m) => `/disputes/update/${m.dispute}`,
    body: (m) => ({
      explanation: 'Charged twice',
      transaction_reference: m.slug,
      reason: 'duplicate',
    }),
  },
  { sdk: 'php', method: 'Account.getBalances', http: 'GET', path: () => '/business/balances' },
  { sdk: 'php', method: 'Account.getOperations', http: 'GET', path: () => '/business/operations' },
  {
    sdk: 'php',
    method: 'Payment.createPayment',
    http: 'POST',
    path: () => '/payments/create',
    body: () => ({ amount: 5000, partner_reference: 'sdk-php-1', customer, network: 'wave-sn' }),
  },
  { sdk: 'php', method: 'Payment.listOfPayment', http: 'GET', path: () => '/payments' },
  {
    sdk: 'php',
    method: 'Payment.showPayment',
    http: 'GET',
    path: () => '/payments/{reference}',
    sdkBug: 'asks for the literal path /payments/{reference} (the reference is never put in)',
    shows: { status: 404 },
  },
  {
    sdk: 'php',
    method: 'Disburse.createDisburse',
    http: 'POST',
    path: () => '/disburses/create',
    body: () => ({ amount: 5000, partner_reference: 'sdk-php-2', customer, network: 'wave-sn' }),
  },
  { sdk: 'php', method: 'Disburse.listOfDisburses', http: 'GET', path: () => '/disburses' },
  {
    sdk: 'php',
    method: 'Disburse.showDisburses',
    http: 'GET',
    path: (m) => `/disburses/${m.disburse}`,
  },
  {
    sdk: 'php',
    method: 'Miscellaneous.miscellaneous',
    http: 'POST',
    path: () => '/phone/verify',
    body: () => ({ phone: '770000001', country_code: 'SN' }),
    notServed: 'phone verification (POST /phone/verify) is not served by the sandbox yet',
    shows: { status: 404 },
  },
  // alal-python: sendRequest raises whenever the answer has a statusCode key, and looks the
  // exception up by it (400, 401, 404, 500 only): every answer of the service carries one, 200
  // included, so every method raises (a TypeError on a 200) before reading anything.
  ...(
    [
      [
        'Card.create_card',
        'POST',
        () => '/cards/create',
        (m: Made) => ({ card_brand: 'visa', card_type: 'virtual', card_user_reference: m.user }),
      ],
      ['Card.list_card', 'GET', () => '/cards/?None'],
      ['Card.show_card', 'GET', (m: Made) => `/cards/${m.card}`],
      ['CardUser.list_card_user', 'GET', () => '/card-users/?None'],
      ['CardUser.show_card_user', 'GET', (m: Made) => `/card-users/${m.user}`],
      [
        'Transaction.create_transaction',
        'POST',
        () => '/transactions/create',
        (m: Made) => ({ action: 'recharge', amount: 100, card_reference: m.card }),
      ],
      ['Transaction.list_transaction', 'GET', () => '/transactions/?None'],
      ['Transaction.show_card', 'GET', (m: Made) => `/transactions/${m.slug}`],
      [
        'Dispute.create_dispute',
        'POST',
        () => '/disputes/create',
        (m: Made) => ({
          explanation: 'x',
          reason: 'duplicate',
          transaction_reference: m.transactionReference,
        }),
      ],
      ['Dispute.list_dispute', 'GET', () => '/disputes/?None'],
      ['Dispute.show_card_user', 'GET', (m: Made) => `/disputes/${m.dispute}`],
      [
        'Dispute.update_dispute',
        'POST',
        (m: Made) => `/disputes/update/${m.dispute}`,
        (m: Made) => ({ explanation: 'x', reason: 'fraudulent', transaction_reference: m.slug }),
      ],
    ] as const
  ).map(([method, http, path, body]): SdkMethod => ({
    sdk: 'python',
    method,
    http,
    path,
    body,
    sdkBug:
      'raises on every answer, which always carries statusCode (its exception table has no 200)',
    shows: { status: 200, carriesStatusCode: true },
  })),
  {
    sdk: 'python',
    method: 'CardUser.create_card_user',
    http: 'POST',
    path: () => '/crad-users/create',
    body: () => identity,
    sdkBug: 'posts to crad-users/create (misspelt)',
    shows: { status: 404 },
  },
  {
    sdk: 'python',
    method: 'Card.get_access_token',
    http: 'POST',
    path: () => '/cards/auth/acess_token',
    body: (m) => ({ css_url: 'https://app.example/card.css', reference: m.card }),
    sdkBug: 'posts to cards/auth/acess_token (misspelt)',
    shows: { status: 404 },
  },
]
