/**
 * What each public method of the official SDKs sends and reads, written down from their sources
 * at the commits of SDK_COMMITS (the newest of each repository, what a user installs today) as
 * data: facts only (paths, keys, types, lines), none of their code. sdks.test.ts sends each
 * request as the SDK sends it to a sandbox over HTTP and looks up every key it reads; a method
 * works when the request is answered 200 and every key is there with its type. Each `at` names
 * the SDK's file and line at its commit; docs/official-sdks.md says the same in words.
 */

export type SdkName = 'alal-node' | 'alal-python' | 'alal-php'

export const SDK_COMMITS: Record<SdkName, { repo: string; commit: string; date: string }> = {
  'alal-node': {
    repo: 'ALAL-Community/alal-node',
    commit: 'fc0c79e350c950e5777bcc868be269ecd2b550fb',
    date: '2023-09-15',
  },
  'alal-python': {
    repo: 'ALAL-Community/alal-python',
    commit: 'd9167c549a74aa41f8e8c42446a48034e5c25971',
    date: '2023-10-26',
  },
  'alal-php': {
    repo: 'ALAL-Community/alal-php',
    commit: '94d0bb999f11365adb22e9ac6455e01d73b3324b',
    date: '2024-08-04',
  },
}

const node = (file: string, line: number) => `lib/${file}:${line} @ fc0c79e`
const python = (file: string, line: number) => `alal/${file}:${line} @ d9167c5`
const php = (file: string, line: number) => `src/${file}:${line} @ 94d0bb9`

/**
 * The headers each SDK sends besides `Authorization: Bearer <key>`, on a request without a body
 * and on one with a JSON body.
 */
export const SDK_HEADERS: Record<
  SdkName,
  { at: string; get: Record<string, string>; post: Record<string, string> }
> = {
  // axios' defaults (lib/base.ts:36-43 sets only Authorization)
  'alal-node': {
    at: node('base.ts', 40),
    get: { Accept: 'application/json, text/plain, */*' },
    post: { Accept: 'application/json, text/plain, */*', 'Content-Type': 'application/json' },
  },
  // requests' json= adds the Content-Type
  'alal-python': {
    at: python('base.py', 47),
    get: { Accept: 'application/json' },
    post: { Accept: 'application/json', 'Content-Type': 'application/json' },
  },
  // HeaderDefaultsPlugin: both on every request, a GET included
  'alal-php': {
    at: php('AlalSdk.php', 29),
    get: { 'Content-Type': 'application/json', Accept: 'application/json' },
    post: { 'Content-Type': 'application/json', Accept: 'application/json' },
  },
}

/** The resources a call refers to, made through the API before it runs (sdks.test.ts). */
export type Made = {
  /** a verified card user */
  user: string
  /** a card user whose verification failed, who may resubmit */
  failedUser: string
  /** a new UUID, for the older link-card body's `reference` (card references are global) */
  linkReference: string
  /** an issued card of `user`, funded */
  card: string
  /** an issued card, frozen */
  frozenCard: string
  /** the slug of a transaction that has a dispute */
  slug: string
  /** the client reference of a transaction without one */
  transactionReference: string
  /** the dispute on `slug` */
  dispute: string
  disburse: string
}

/**
 * A key the SDK reads from the answer: `key` is its path ('data.card.balance'; `data[]` is each
 * item of the list `data`, a bare name a key of the answer itself), `type` the JSON types it
 * may hold ('string|null'), `at` the SDK's line that reads it.
 */
export type Read = { key: string; type: string; at: string }

export type Bug = {
  what: string
  at: string
  /**
   * How it shows against the sandbox: the first check of sdks.test.ts the method fails
   * ('status 404', 'data[].last4 is absent', 'data is not a list', …), or 'never sends' for a
   * method that fails in the SDK before any request.
   */
  shows: string
  /** `--sdk-compat on` adds what the SDK reads: with it this bug no longer stops the method. */
  mendedBySdkCompat?: true
}

export type SdkMethod = {
  sdk: SdkName
  /** Class and method as a user calls them. */
  method: string
  /** The method's definition. */
  at: string
  http: 'GET' | 'POST'
  /** What the method appends to its base URL, which ends in /v1 here. */
  path: (m: Made) => string
  body?: (m: Made) => Record<string, unknown>
  reads: Read[]
  /** In the order they stop the method; none for a method that works without the flag. */
  bugs: Bug[]
}

const PHONE = '+221770000001'
const identity = {
  email: 'awa@example.com',
  first_name: 'Awa',
  last_name: 'Diop',
  id_no: '42',
  address: 'Dakar',
  back_id_image: 'https://x.test/b.jpg',
  id_image: 'https://x.test/i.jpg',
  selfie_image: 'https://x.test/s.jpg',
  phone: '+221770000009',
}

// ---- alal-node: lib/*.ts; every model is built from the object given, without a check ----

function nodeCard(at: (line: number) => string, prefix: string): Read[] {
  return [
    { key: `${prefix}balance`, type: 'number', at: at(8) },
    { key: `${prefix}card_brand`, type: 'string', at: at(9) },
    { key: `${prefix}card_type`, type: 'string', at: at(10) },
    { key: `${prefix}reference`, type: 'string', at: at(11) },
    { key: `${prefix}status`, type: 'string', at: at(12) },
    { key: `${prefix}last4`, type: 'string|null', at: at(13) },
  ]
}
function nodeCardUser(at: (line: number) => string): Read[] {
  return [
    { key: 'address', type: 'string|null', at: at(8) },
    { key: 'first_name', type: 'string|null', at: at(9) },
    { key: 'last_name', type: 'string|null', at: at(10) },
    { key: 'id_no', type: 'string|null', at: at(11) },
    { key: 'phone', type: 'string', at: at(12) },
    { key: 'reference', type: 'string', at: at(13) },
    { key: 'status', type: 'string', at: at(14) },
    { key: 'created_at', type: 'string', at: at(15) },
  ]
}
function nodeDispute(at: (line: number) => string, prefix: string): Read[] {
  return [
    { key: `${prefix}explanation`, type: 'string', at: at(8) },
    { key: `${prefix}reason`, type: 'string', at: at(9) },
    { key: `${prefix}reference`, type: 'string', at: at(10) },
    { key: `${prefix}status`, type: 'string', at: at(11) },
    { key: `${prefix}transaction_reference`, type: 'string', at: at(12) },
  ]
}
function nodeTransaction(at: (line: number) => string, prefix: string): Read[] {
  return [
    { key: `${prefix}amount`, type: 'number', at: at(8) },
    { key: `${prefix}card_reference`, type: 'string', at: at(9) },
    { key: `${prefix}reference`, type: 'string', at: at(10) },
    { key: `${prefix}status`, type: 'string', at: at(11) },
    { key: `${prefix}created_at`, type: 'string', at: at(12) },
    { key: `${prefix}kind`, type: 'string', at: at(13) },
    { key: `${prefix}merchant`, type: 'string|boolean', at: at(14) },
  ]
}
const card = (line: number) => node('card.ts', line)
const cardUser = (line: number) => node('card_user.ts', line)
const dispute = (line: number) => node('dispute.ts', line)
const transaction = (line: number) => node('transaction.ts', line)
/** Where the service puts `message` and `statusCode`; the resource is under `data`. */
const topLevel = (what: string, at: string, first: string): Bug => ({
  what: `builds the ${what} from the answer itself, not from data.${what}: its fields are undefined`,
  at,
  shows: `${first} is absent`,
})

const NODE: SdkMethod[] = [
  {
    sdk: 'alal-node',
    method: 'Card.listCards()',
    at: card(18),
    http: 'GET',
    // dynamicParam({}) gives undefined (lib/base.ts:69-79), which the URL spells out
    path: () => '/cards?undefined',
    reads: nodeCard(card, 'data[].'),
    bugs: [
      {
        what: 'reads last4; the list record has last_four',
        at: card(13),
        shows: 'data[].last4 is absent',
        mendedBySdkCompat: true,
      },
    ],
  },
  {
    sdk: 'alal-node',
    method: 'Card.showCard(reference)',
    at: card(35),
    http: 'GET',
    path: (m) => `/cards/${m.card}`,
    reads: nodeCard(card, ''),
    bugs: [topLevel('card', card(40), 'balance')],
  },
  {
    sdk: 'alal-node',
    method: 'Card.createCard(data)',
    at: card(47),
    http: 'POST',
    path: () => '/cards/create',
    body: (m) => ({ card_brand: 'visa', card_type: 'virtual', card_user_reference: m.user }),
    reads: nodeCard(card, ''),
    bugs: [topLevel('card', card(55), 'balance')],
  },
  {
    sdk: 'alal-node',
    method: 'Card.getCardAccessToken(reference)',
    at: card(62),
    http: 'POST',
    path: (m) => `/cards/auth/access_token${m.card}`,
    body: (m) => ({ reference: m.card }),
    reads: [],
    bugs: [
      {
        what: 'appends the reference to the path without a slash (/cards/auth/access_token<reference>)',
        at: card(63),
        shows: 'status 404',
      },
    ],
  },
  {
    sdk: 'alal-node',
    method: 'CardUser.listCardUsers()',
    at: cardUser(21),
    http: 'GET',
    path: () => '/card-users?undefined',
    // it maps data's items to models and returns data itself (line 31): it needs a list
    reads: [{ key: 'data', type: 'array', at: cardUser(29) }],
    bugs: [],
  },
  {
    sdk: 'alal-node',
    method: 'CardUser.showCardUser(reference)',
    at: cardUser(38),
    http: 'GET',
    path: (m) => `/card-users/${m.user}`,
    reads: nodeCardUser(cardUser),
    bugs: [topLevel('cardUser', cardUser(43), 'address')],
  },
  {
    sdk: 'alal-node',
    method: 'CardUser.createCardUser(data)',
    at: cardUser(50),
    http: 'POST',
    path: () => '/card-users/create',
    // line 51 requires all nine, so it is the full-data flow
    body: () => identity,
    reads: nodeCardUser(cardUser),
    bugs: [topLevel('userCard', cardUser(58), 'address')],
  },
  {
    sdk: 'alal-node',
    method: 'Transaction.listTransactions({ card_reference })',
    at: transaction(19),
    http: 'GET',
    path: (m) => `/transactions?card_reference=${m.card}`,
    reads: nodeTransaction(transaction, 'data[].'),
    bugs: [
      {
        what: 'maps over data as a list; the service answers the list under data.transaction (a TypeError)',
        at: transaction(28),
        shows: 'data is not a list',
      },
    ],
  },
  {
    sdk: 'alal-node',
    method: 'Transaction.createTransaction(data)',
    at: transaction(36),
    http: 'POST',
    path: () => '/transactions/create',
    // line 37 requires reference besides the three the service needs
    body: (m) => ({ action: 'recharge', amount: 100, card_reference: m.card, reference: 'n-1' }),
    reads: nodeTransaction(transaction, ''),
    bugs: [topLevel('transaction', transaction(44), 'amount')],
  },
  {
    sdk: 'alal-node',
    method: 'Dispute.listDisputes()',
    at: dispute(17),
    http: 'GET',
    path: () => '/disputes?undefined',
    reads: nodeDispute(dispute, 'data[].'),
    bugs: [
      {
        what: 'reads reference and transaction_reference on each item; the list record has neither',
        at: dispute(10),
        shows: 'data[].reference is absent',
        mendedBySdkCompat: true,
      },
    ],
  },
  {
    sdk: 'alal-node',
    method: 'Dispute.showDispute(reference)',
    at: dispute(35),
    http: 'GET',
    path: (m) => `/disputes/${m.dispute}`,
    reads: nodeDispute(dispute, ''),
    bugs: [topLevel('dispute', dispute(40), 'explanation')],
  },
  {
    sdk: 'alal-node',
    method: 'Dispute.createDispute(data)',
    at: dispute(47),
    http: 'POST',
    path: () => '/disputes/create',
    // line 48 refuses to send without action, amount, card_reference and reference (a
    // transaction's keys); the dispute's own keys beside them reach the service
    body: (m) => ({
      action: 'x',
      amount: 1,
      card_reference: m.card,
      reference: 'x',
      explanation: 'Never arrived',
      reason: 'not_received',
      transaction_reference: m.transactionReference,
    }),
    reads: nodeDispute(dispute, ''),
    bugs: [
      {
        what: 'builds the dispute from the answer itself; the service answers it in the list data: its fields are undefined (and line 48 asks for action, amount, card_reference and reference, which a dispute does not take)',
        at: dispute(55),
        shows: 'explanation is absent',
      },
    ],
  },
  {
    sdk: 'alal-node',
    method: 'Dispute.updateDispute(data)',
    at: dispute(62),
    http: 'POST',
    path: (m) => `/disputes/update/${m.dispute}`,
    body: (m) => ({
      explanation: 'Charged twice',
      reason: 'duplicate',
      transaction_reference: m.slug,
      reference: m.dispute,
    }),
    reads: nodeDispute(dispute, ''),
    bugs: [
      {
        what: 'builds the dispute from the answer itself; the service answers it in the list data: its fields are undefined',
        at: dispute(70),
        shows: 'explanation is absent',
      },
    ],
  },
]

// ---- alal-python: alal/*/service.py; a model reads data["key"]: a missing key raises ----

const pyCard = (line: number) => python('card/service.py', line)
const pyUser = (line: number) => python('cardUser/service.py', line)
const pyDispute = (line: number) => python('dispute/service.py', line)
const pyTransaction = (line: number) => python('transaction/service.py', line)

function pythonCard(prefix: string): Read[] {
  return [
    { key: `${prefix}balance`, type: 'number', at: pyCard(12) },
    { key: `${prefix}card_type`, type: 'string', at: pyCard(13) },
    { key: `${prefix}card_brand`, type: 'string', at: pyCard(14) },
    { key: `${prefix}last_four`, type: 'string|null', at: pyCard(15) },
    { key: `${prefix}reference`, type: 'string', at: pyCard(16) },
    { key: `${prefix}card_user_reference`, type: 'string', at: pyCard(17) },
    { key: `${prefix}status`, type: 'string', at: pyCard(18) },
    { key: `${prefix}created_at`, type: 'string', at: pyCard(19) },
  ]
}
function pythonCardUser(prefix: string): Read[] {
  return [
    { key: `${prefix}address`, type: 'string|null', at: pyUser(12) },
    { key: `${prefix}created_at`, type: 'string', at: pyUser(13) },
    { key: `${prefix}email`, type: 'string|null', at: pyUser(14) },
    { key: `${prefix}first_name`, type: 'string|null', at: pyUser(15) },
    { key: `${prefix}last_name`, type: 'string|null', at: pyUser(16) },
    { key: `${prefix}id_no`, type: 'string|null', at: pyUser(17) },
    { key: `${prefix}phone`, type: 'string', at: pyUser(18) },
    { key: `${prefix}reference`, type: 'string', at: pyUser(19) },
    { key: `${prefix}status`, type: 'string', at: pyUser(20) },
  ]
}
function pythonDispute(prefix: string): Read[] {
  return [
    { key: `${prefix}explanation`, type: 'string', at: pyDispute(11) },
    { key: `${prefix}reason`, type: 'string', at: pyDispute(12) },
    { key: `${prefix}reference`, type: 'string', at: pyDispute(13) },
    { key: `${prefix}status`, type: 'string', at: pyDispute(14) },
    { key: `${prefix}transaction_reference`, type: 'string', at: pyDispute(15) },
  ]
}
function pythonTransaction(prefix: string): Read[] {
  return [
    { key: `${prefix}amount`, type: 'number', at: pyTransaction(12) },
    { key: `${prefix}card_reference`, type: 'string', at: pyTransaction(13) },
    { key: `${prefix}created_at`, type: 'string', at: pyTransaction(14) },
    { key: `${prefix}kind`, type: 'string', at: pyTransaction(15) },
    { key: `${prefix}merchant`, type: 'string|boolean', at: pyTransaction(16) },
    { key: `${prefix}reference`, type: 'string', at: pyTransaction(17) },
    { key: `${prefix}status`, type: 'string', at: pyTransaction(18) },
    { key: `${prefix}slug`, type: 'string', at: pyTransaction(19) },
  ]
}
/** The documented card answers lack card_user_reference and created_at (and show, last_four). */
const pythonCardKeys = (first: string): Bug => ({
  what: 'reads last_four, card_user_reference and created_at, which the documented card answers lack (the list record has last_four)',
  at: pyCard(15),
  shows: `${first} is absent`,
  mendedBySdkCompat: true,
})
/** Create and update answer the dispute alone in a list (SPEC §4.5). */
const pythonDisputeInList = (line: number): Bug => ({
  what: 'reads data.dispute; the service answers data as a list holding the dispute (an AttributeError)',
  at: pyDispute(line),
  shows: 'data is not an object',
})

const PYTHON: SdkMethod[] = [
  {
    sdk: 'alal-python',
    method: 'CardService.create_card(body)',
    at: pyCard(22),
    http: 'POST',
    path: () => '/cards/create',
    body: (m) => ({ card_brand: 'visa', card_type: 'virtual', card_user_reference: m.user }),
    reads: pythonCard('data.card.'),
    bugs: [pythonCardKeys('data.card.last_four')],
  },
  {
    sdk: 'alal-python',
    method: 'CardService.list_card()',
    at: pyCard(39),
    http: 'GET',
    // without arguments url_params stays None (lines 44-47), which the URL spells out
    path: () => '/cards?None',
    reads: pythonCard('data[].'),
    bugs: [pythonCardKeys('data[].card_user_reference')],
  },
  {
    sdk: 'alal-python',
    method: 'CardService.show_card(reference)',
    at: pyCard(51),
    http: 'GET',
    path: (m) => `/cards/${m.card}`,
    reads: pythonCard('data.card.'),
    bugs: [pythonCardKeys('data.card.last_four')],
  },
  {
    sdk: 'alal-python',
    method: 'CardService.freeze_card(reference)',
    at: pyCard(59),
    http: 'POST',
    path: () => '/cards/freeze',
    body: (m) => ({ reference: m.card }),
    reads: pythonCard('data.card.'),
    bugs: [pythonCardKeys('data.card.last_four')],
  },
  {
    sdk: 'alal-python',
    method: 'CardService.unfreeze_card(reference)',
    at: pyCard(74),
    http: 'POST',
    path: () => '/cards/unfreeze',
    body: (m) => ({ reference: m.frozenCard }),
    reads: pythonCard('data.card.'),
    bugs: [pythonCardKeys('data.card.last_four')],
  },
  {
    sdk: 'alal-python',
    method: 'CardService.link_card(body)',
    at: pyCard(89),
    http: 'POST',
    path: () => '/cards/link',
    // line 98: reference and card_user_reference, the docs' older link body
    body: (m) => ({ reference: m.linkReference, card_user_reference: m.user }),
    reads: pythonCard('data.card.'),
    bugs: [pythonCardKeys('data.card.last_four')],
  },
  {
    sdk: 'alal-python',
    method: 'CardService.get_access_token(body)',
    at: pyCard(104),
    http: 'POST',
    path: () => '/cards/auth/access_token',
    body: (m) => ({ reference: m.card }),
    reads: [{ key: 'data', type: 'object', at: pyCard(118) }],
    bugs: [],
  },
  {
    sdk: 'alal-python',
    method: 'CardUserService.create_card_user(body)',
    at: pyUser(23),
    http: 'POST',
    path: () => '/card-users/create',
    // lines 39-41 require all nine, so it is the full-data flow
    body: () => identity,
    reads: pythonCardUser('data.cardUser.'),
    bugs: [
      {
        what: 'reads data.cardUser; the service answers the new user as data.userCard',
        at: pyUser(44),
        shows: 'data.cardUser is absent',
        mendedBySdkCompat: true,
      },
    ],
  },
  {
    sdk: 'alal-python',
    method: 'CardUserService.list_card_user()',
    at: pyUser(46),
    http: 'GET',
    path: () => '/card-users?None',
    reads: pythonCardUser('data[].'),
    bugs: [
      {
        what: 'takes each item of data for a card user; the service answers data as a list holding one Laravel paginator, whose data holds the records (a KeyError on address)',
        at: pyUser(56),
        shows: 'data[].address is absent',
      },
    ],
  },
  {
    sdk: 'alal-python',
    method: 'CardUserService.show_card_user(reference)',
    at: pyUser(58),
    http: 'GET',
    path: (m) => `/card-users/${m.user}`,
    reads: pythonCardUser('data.cardUser.'),
    bugs: [],
  },
  {
    sdk: 'alal-python',
    method: 'DisputeService.create_dispute(body)',
    at: pyDispute(19),
    http: 'POST',
    path: () => '/disputes/create',
    body: (m) => ({
      explanation: 'Never arrived',
      reason: 'not_received',
      transaction_reference: m.transactionReference,
    }),
    reads: pythonDispute('data.dispute.'),
    bugs: [pythonDisputeInList(35)],
  },
  {
    sdk: 'alal-python',
    method: 'DisputeService.list_dispute()',
    at: pyDispute(37),
    http: 'GET',
    path: () => '/disputes?None',
    reads: pythonDispute('data[].'),
    bugs: [
      {
        what: 'reads reference and transaction_reference on each item; the list record has neither',
        at: pyDispute(13),
        shows: 'data[].reference is absent',
        mendedBySdkCompat: true,
      },
    ],
  },
  {
    sdk: 'alal-python',
    method: 'DisputeService.show_dispute(reference)',
    at: pyDispute(49),
    http: 'GET',
    path: (m) => `/disputes/${m.dispute}`,
    reads: pythonDispute('data.dispute.'),
    bugs: [
      {
        what: 'reads reference and transaction_reference, which the show answer lacks',
        at: pyDispute(13),
        shows: 'data.dispute.reference is absent',
        mendedBySdkCompat: true,
      },
    ],
  },
  {
    sdk: 'alal-python',
    method: 'DisputeService.update_dispute(body, reference)',
    at: pyDispute(57),
    http: 'POST',
    path: (m) => `/disputes/update/${m.dispute}`,
    body: (m) => ({
      explanation: 'Charged twice',
      reason: 'duplicate',
      transaction_reference: m.slug,
    }),
    reads: pythonDispute('data.dispute.'),
    bugs: [pythonDisputeInList(74)],
  },
  {
    sdk: 'alal-python',
    method: 'TransactionService.create_transaction(body)',
    at: pyTransaction(22),
    http: 'POST',
    path: () => '/transactions/create',
    body: (m) => ({ action: 'recharge', amount: 100, card_reference: m.card }),
    reads: pythonTransaction('data.transaction.'),
    bugs: [],
  },
  {
    sdk: 'alal-python',
    method: 'TransactionService.list_transaction()',
    at: pyTransaction(39),
    http: 'GET',
    path: () => '/transactions?None',
    reads: pythonTransaction('data[].'),
    bugs: [
      {
        what: 'iterates data as a list; the service answers the list under data.transaction (iterating the object gives its key, a TypeError)',
        at: pyTransaction(49),
        shows: 'data is not a list',
      },
    ],
  },
  {
    sdk: 'alal-python',
    method: 'TransactionService.show_transaction(reference)',
    at: pyTransaction(51),
    http: 'GET',
    path: (m) => `/transactions/${m.slug}`,
    reads: pythonTransaction('data.transaction.'),
    bugs: [
      {
        what: 'reads data.transaction; the service answers the transaction beside message (docs "show transaction")',
        at: pyTransaction(57),
        shows: 'data is absent',
        mendedBySdkCompat: true,
      },
    ],
  },
]

// ---- alal-php: src/Endpoint/**; every method returns the decoded answer, whatever its status ----

const phpCards = (line: number) => php('Endpoint/Cards.php', line)
const phpUsers = (line: number) => php('Endpoint/CardUsers.php', line)
const phpTransactions = (line: number) => php('Endpoint/Transactions.php', line)
const phpDisputes = (line: number) => php('Endpoint/Disputes.php', line)
const phpAccount = (line: number) => php('Endpoint/Business/Account.php', line)
const phpDisburse = (line: number) => php('Endpoint/Business/Disburse.php', line)
const phpPayment = (line: number) => php('Endpoint/Business/Payment.php', line)
const customer = { full_name: 'Awa Diop', email: 'awa@example.com', phone: PHONE }
/** AlalSdk::payments() names a class its autoloader cannot find. */
const PAYMENTS_CLASS: Bug = {
  what: 'AlalSdk::payments() makes an Endpoint\\Business\\Payments, declared in Payment.php: Composer’s PSR-4 autoloader looks for Payments.php, so the call fails with “Class not found”',
  at: php('AlalSdk.php', 76),
  shows: 'never sends',
}
const PHP_READS: Read[] = []

const PHP: SdkMethod[] = [
  {
    sdk: 'alal-php',
    method: 'cards()->listCards()',
    at: phpCards(23),
    http: 'GET',
    path: () => '/cards?page=1',
    reads: PHP_READS,
    bugs: [],
  },
  {
    sdk: 'alal-php',
    method: 'cards()->showCard($reference)',
    at: phpCards(28),
    http: 'GET',
    path: (m) => `/cards/${m.card}`,
    reads: PHP_READS,
    bugs: [],
  },
  {
    sdk: 'alal-php',
    method: 'cards()->createCard($brand, $userReference, $type)',
    at: phpCards(33),
    http: 'POST',
    path: () => '/cards/create',
    // CardBrand and CardType are string-backed enums: json_encode writes their values
    body: (m) => ({ card_brand: 'visa', card_type: 'virtual', card_user_reference: m.user }),
    reads: PHP_READS,
    bugs: [],
  },
  {
    sdk: 'alal-php',
    method: 'cards()->freezeCard($reference)',
    at: phpCards(38),
    http: 'POST',
    path: () => '/cards/freeze',
    body: (m) => ({ reference: m.card }),
    reads: PHP_READS,
    bugs: [],
  },
  {
    sdk: 'alal-php',
    method: 'cards()->unFreezeCard($reference)',
    at: phpCards(43),
    http: 'POST',
    path: () => '/cards/unfreeze',
    body: (m) => ({ reference: m.frozenCard }),
    reads: PHP_READS,
    bugs: [],
  },
  {
    sdk: 'alal-php',
    method: 'cards()->linkCard($reference, $userReference)',
    at: phpCards(48),
    http: 'POST',
    path: () => '/cards/link',
    body: (m) => ({ reference: m.linkReference, card_user_reference: m.user }),
    reads: PHP_READS,
    bugs: [],
  },
  {
    sdk: 'alal-php',
    method: 'cards()->getAccessToken($cssUrl, $reference)',
    at: phpCards(53),
    http: 'POST',
    path: () => '/cards/auth/access_token',
    body: (m) => ({ css_url: 'https://app.example/card.css', reference: m.card }),
    reads: PHP_READS,
    bugs: [],
  },
  {
    sdk: 'alal-php',
    method: 'cardUsers()->listCardUsers()',
    at: phpUsers(21),
    http: 'GET',
    path: () => '/card-users?page=1',
    reads: PHP_READS,
    bugs: [],
  },
  {
    sdk: 'alal-php',
    method: 'cardUsers()->showCardUser($reference)',
    at: phpUsers(26),
    http: 'GET',
    path: (m) => `/card-users/${m.user}`,
    reads: PHP_READS,
    bugs: [],
  },
  {
    sdk: 'alal-php',
    method: 'cardUsers()->createCardUser(…)',
    at: phpUsers(31),
    http: 'POST',
    path: () => '/card-users/create',
    body: () => identity,
    reads: PHP_READS,
    bugs: [],
  },
  {
    sdk: 'alal-php',
    method: 'cardUsers()->resubmitCardUser($userReference, …)',
    at: phpUsers(36),
    http: 'POST',
    path: () => '/card-users/resubmit',
    body: (m) => ({ card_user_reference: m.failedUser, ...identity }),
    reads: PHP_READS,
    bugs: [],
  },
  {
    sdk: 'alal-php',
    method: 'transactions()->listTransactions($cardReference)',
    at: phpTransactions(24),
    http: 'GET',
    path: (m) => `/transactions?card_reference=${m.card}`,
    reads: PHP_READS,
    bugs: [],
  },
  {
    sdk: 'alal-php',
    method: 'transactions()->createTransaction($action, $cardReference, $amount)',
    at: phpTransactions(29),
    http: 'POST',
    path: () => '/transactions/create',
    body: (m) => ({ action: 'recharge', card_reference: m.card, amount: 100 }),
    reads: PHP_READS,
    bugs: [
      {
        what: 'its $action is an Enums\\TransctionAction (sic), declared in TransactionAction.php: the autoloader cannot find the enum, so no caller can make the argument',
        at: php('Enums/TransactionAction.php', 5),
        shows: 'never sends',
      },
    ],
  },
  {
    sdk: 'alal-php',
    method: 'transactions()->showTransaction($reference)',
    at: phpTransactions(34),
    http: 'GET',
    path: (m) => `/transactions/${m.slug}`,
    reads: PHP_READS,
    bugs: [],
  },
  {
    sdk: 'alal-php',
    method: 'transactions()->createCardToBank(…)',
    at: phpTransactions(39),
    http: 'POST',
    path: () => '/transactions/create/card-to-bank',
    // account_name is not a key of the service's: the holder's name stands in for it
    body: (m) => ({
      amount: 100,
      card_reference: m.card,
      bank_id: 'SN01',
      bank_name: 'BICICI',
      account_name: 'Awa Diop',
      description: 'Rent',
    }),
    reads: PHP_READS,
    bugs: [],
  },
  {
    sdk: 'alal-php',
    method: 'transactions()->createCardToWallet(…)',
    at: phpTransactions(44),
    http: 'POST',
    path: () => '/transactions/create/card-to-wallet',
    body: (m) => ({ amount: 100, card_reference: m.card, phone: PHONE, network: 'wave-sn' }),
    reads: PHP_READS,
    bugs: [],
  },
  {
    sdk: 'alal-php',
    method: 'transactions()->createWalletToCard(…)',
    at: phpTransactions(49),
    http: 'POST',
    path: () => '/transactions/create/wallet-to-card',
    // $code defaults to null and is sent as null
    body: (m) => ({
      amount: 100,
      card_reference: m.card,
      phone: PHONE,
      network: 'wave-sn',
      code: null,
    }),
    reads: PHP_READS,
    bugs: [],
  },
  {
    sdk: 'alal-php',
    method: 'disputes()->listDisputes()',
    at: phpDisputes(22),
    http: 'GET',
    path: () => '/disputes?page=1',
    reads: PHP_READS,
    bugs: [],
  },
  {
    sdk: 'alal-php',
    method: 'disputes()->showDispute($reference)',
    at: phpDisputes(27),
    http: 'GET',
    path: (m) => `/disputes/${m.dispute}`,
    reads: PHP_READS,
    bugs: [],
  },
  {
    sdk: 'alal-php',
    method: 'disputes()->createDispute($explanation, $transactionReference, $reason)',
    at: phpDisputes(32),
    http: 'POST',
    path: () => '/disputes/create',
    body: (m) => ({
      explanation: 'Never arrived',
      transaction_reference: m.transactionReference,
      reason: 'not_received',
    }),
    reads: PHP_READS,
    bugs: [],
  },
  {
    sdk: 'alal-php',
    method: 'disputes()->updateDispute($reference, …)',
    at: phpDisputes(37),
    http: 'POST',
    path: (m) => `/disputes/update/${m.dispute}`,
    body: (m) => ({
      explanation: 'Charged twice',
      transaction_reference: m.slug,
      reason: 'duplicate',
    }),
    reads: PHP_READS,
    bugs: [],
  },
  {
    sdk: 'alal-php',
    method: 'accounts()->getBalances()',
    at: phpAccount(23),
    http: 'GET',
    path: () => '/business/balances',
    reads: PHP_READS,
    bugs: [],
  },
  {
    sdk: 'alal-php',
    method: 'accounts()->getOperations()',
    at: phpAccount(28),
    http: 'GET',
    path: () => '/business/operations',
    reads: PHP_READS,
    bugs: [],
  },
  {
    sdk: 'alal-php',
    method: 'disburse()->createDisburse($amount, $network, $partnerReference, $customer)',
    at: phpDisburse(24),
    http: 'POST',
    path: () => '/disburses/create',
    // what it would send: the customer object's public properties
    body: () => ({
      amount: 5000,
      partner_reference: 'sdk-php-2',
      customer: {
        ...customer,
        partner_reference: 'sdk-php-2',
        bank_id: 'SN01',
        bank_name: 'BICICI',
      },
      network: 'wave-sn',
    }),
    reads: PHP_READS,
    bugs: [
      {
        what: 'its $customer is an Attribut\\CustomerAttribut, declared in Customer.php: the autoloader cannot find the class, so no caller can make the argument',
        at: php('Attribut/Customer.php', 7),
        shows: 'never sends',
      },
    ],
  },
  {
    sdk: 'alal-php',
    method: 'disburse()->listOfDisburses()',
    at: phpDisburse(29),
    http: 'GET',
    path: () => '/disburses',
    reads: PHP_READS,
    bugs: [],
  },
  {
    sdk: 'alal-php',
    method: 'disburse()->showDisburses($reference)',
    at: phpDisburse(34),
    http: 'GET',
    path: (m) => `/disburses/${m.disburse}`,
    reads: PHP_READS,
    bugs: [],
  },
  {
    sdk: 'alal-php',
    method: 'payments()->createPayment(…)',
    at: phpPayment(23),
    http: 'POST',
    path: () => '/payments/create',
    body: () => ({
      amount: 5000,
      partner_reference: 'sdk-php-1',
      customer: {
        ...customer,
        partner_reference: 'sdk-php-1',
        bank_id: 'SN01',
        bank_name: 'BICICI',
      },
      network: 'wave-sn',
    }),
    reads: PHP_READS,
    bugs: [
      PAYMENTS_CLASS,
      {
        what: 'its $customer is an Attribut\\CustomerAttribut, which the autoloader cannot find',
        at: php('Attribut/Customer.php', 7),
        shows: 'never sends',
      },
    ],
  },
  {
    sdk: 'alal-php',
    method: 'payments()->listOfPayment()',
    at: phpPayment(29),
    http: 'GET',
    path: () => '/payments',
    reads: PHP_READS,
    bugs: [PAYMENTS_CLASS],
  },
  {
    sdk: 'alal-php',
    method: 'payments()->showPayment($reference)',
    at: phpPayment(34),
    http: 'GET',
    path: () => '/payments/{reference}',
    reads: PHP_READS,
    bugs: [
      PAYMENTS_CLASS,
      {
        what: 'asks for the literal path /payments/{reference}: the reference is never put in',
        at: phpPayment(36),
        shows: 'status 404',
      },
    ],
  },
  {
    sdk: 'alal-php',
    method: 'phoneVerification($phone, $country_code)',
    at: php('Endpoint/Miscellaneous.php', 23),
    http: 'POST',
    path: () => '/phone/verify',
    // CountryCode is a string-backed enum: json_encode writes its value
    body: () => ({ phone: '770000001', country_code: 'sn' }),
    reads: PHP_READS,
    bugs: [
      {
        what: 'Miscellaneous.php declares a second class named CardUsers, which the autoloader never loads from that file, and AlalSdk has no method that makes it: no caller can reach the method',
        at: php('Endpoint/Miscellaneous.php', 12),
        shows: 'never sends',
      },
    ],
  },
]

export const SDK_METHODS: SdkMethod[] = [...NODE, ...PYTHON, ...PHP]

/**
 * How many methods work against the sandbox, with `--sdk-compat` off (the default) and on,
 * `--quirks on` (the default). sdks.test.ts counts them from the live answers.
 */
export const WORKING: Record<SdkName, { total: number; off: number; on: number }> = {
  'alal-node': { total: 13, off: 1, on: 3 },
  'alal-python': { total: 17, off: 3, on: 13 },
  'alal-php': { total: 30, off: 24, on: 24 },
}
