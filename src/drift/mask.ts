/**
 * Masking for the proxy's record file and console (real traffic, real secrets). It follows the
 * sandbox's one rule (PRODUCT §11, lib/masking.ts: a token shows its last 4 characters when
 * longer than 8, a card number its last 4 digits, a cvv2 nothing) and goes further, because the
 * data is real: by key (authorization, any key naming a token or a secret, card_number, cvv2,
 * cvv, pin, password, cookies, any `embedded_ui`) and by value wherever it appears (Luhn-valid
 * 13–19-digit numbers, in numbers or inside strings; `Bearer …`; a card-reveal URL's token;
 * secret keys inside JSON or form text held in a string). A masked value keeps its JSON type and
 * its length: a string of digits stays digits (`0000000000004242`), another string keeps its
 * length in `*`, a number stays a number with as many digits. Personal fields (names, phone,
 * email, id_no, address, bank_id, image URLs) stay as they are unless `personal` is set.
 * What is masked, and how much shows, is lib/masking.ts's (its primitives); what is drift's own
 * here is where: which keys are secret or personal, the walk of a body, the masked value's type.
 */
import {
  authorizationScheme,
  cardNumberVisible,
  isCardNumber,
  maskAllBut,
  maskBearerTokens,
  maskCardNumbersInText,
  maskRevealTokens,
  maskToken,
  tokenVisible,
} from '../lib/masking.js'

export type MaskOptions = { personal: boolean }

/** How a secret key's value is shown: how many trailing characters stay visible. */
type SecretKind = 'token' | 'card' | 'hidden' | 'url'

/** A key as compared: lower case, without `_` and `-` (`card_number`, `cardNumber`, `Card-Number`). */
function normal(key: string): string {
  return key.toLowerCase().replace(/[_-]/g, '')
}

const HIDDEN_KEYS = new Set(['cvv', 'cvv2', 'cvc', 'cvc2', 'pin', 'password', 'passwd'])
const CARD_KEYS = new Set(['cardnumber', 'pan'])
const TOKEN_KEYS = new Set([
  'authorization',
  'proxyauthorization',
  'cookie',
  'setcookie',
  'apikey',
  'xapikey',
])

function secretKind(key: string | undefined): SecretKind | undefined {
  if (key === undefined) return undefined
  const k = normal(key)
  if (HIDDEN_KEYS.has(k)) return 'hidden'
  if (CARD_KEYS.has(k)) return 'card'
  if (k.includes('embeddedui')) return 'url'
  if (TOKEN_KEYS.has(k) || k.includes('token') || k.includes('secret')) return 'token'
  return undefined
}

const PERSONAL_KEYS = new Set([
  'firstname',
  'lastname',
  'middlename',
  'fullname',
  'name',
  'names',
  'bankaccountname',
  'accountname',
  'phone',
  'phonenumber',
  'msisdn',
  'email',
  'idno',
  'idnumber',
  'address',
  'bankid',
  'dateofbirth',
  'dob',
])

/** The personal fields `--mask-personal` masks: names, phone, email, id_no, address, bank_id, images. */
export function isPersonalKey(key: string | undefined): boolean {
  if (key === undefined) return false
  const k = normal(key)
  return PERSONAL_KEYS.has(k) || k.endsWith('image') || k.endsWith('imageurl')
}

/**
 * `value` under `key` (the last key of its path; undefined for a whole body or an array's item
 * without a key of its own), masked. Objects and arrays are walked: a key's own rule applies
 * to what it holds, and a secret key's rule to everything under it.
 */
export function maskRecordValue(
  key: string | undefined,
  value: unknown,
  opts: MaskOptions,
): unknown {
  return walk(value, secretKind(key), opts.personal && isPersonalKey(key), opts)
}

function walk(
  value: unknown,
  kind: SecretKind | undefined,
  personal: boolean,
  opts: MaskOptions,
): unknown {
  if (typeof value === 'string') {
    if (kind) return maskSecretString(kind, value)
    if (personal) return maskChars(value, 0)
    return maskValuesInText(value)
  }
  if (typeof value === 'number') {
    if (kind) return maskNumber(value, kind)
    if (personal) return maskNumber(value, 'hidden')
    return isCardNumberValue(value) ? maskNumber(value, 'card') : value
  }
  if (Array.isArray(value)) return value.map((item) => walk(item, kind, personal, opts))
  if (value !== null && typeof value === 'object') {
    const out: Record<string, unknown> = {}
    for (const [k, v] of Object.entries(value)) {
      // a `__proto__` key of parsed JSON stays a key, not the copy's prototype
      if (k === '__proto__')
        Object.defineProperty(out, k, { enumerable: true, writable: true, configurable: true })
      out[k] = walk(v, kind ?? secretKind(k), personal || (opts.personal && isPersonalKey(k)), opts)
    }
    return out
  }
  return value
}

/** A whole body (parsed JSON, a string, or null), masked. */
export function maskBody(body: unknown, opts: MaskOptions): unknown {
  return maskRecordValue(undefined, body, opts)
}

/** Headers with lower-case names, each value masked by its name's rule and by value. */
export function maskHeaders(
  headers: Record<string, string | string[] | undefined>,
  opts: MaskOptions,
): Record<string, string> {
  const out: Record<string, string> = {}
  for (const [name, value] of Object.entries(headers)) {
    if (value === undefined) continue
    const text = Array.isArray(value) ? value.join(', ') : value
    out[name.toLowerCase()] = maskRecordValue(name, text, opts) as string
  }
  return out
}

/**
 * A finding's `upstream` value, masked by the key that ends its path: `$.data.card.cvv2` →
 * `cvv2`, `$.data[0].card_number` → `card_number`, `header:authorization` → `authorization`.
 * A type's name standing for the value (`"number"`, `"absent"`) is a description, left as is.
 */
export function maskFindingValue(path: string, value: unknown, opts: MaskOptions): unknown {
  if (typeof value === 'string' && DESCRIPTIONS.has(value)) return value
  const key = path.startsWith('header:')
    ? path.slice('header:'.length)
    : /([^.[\]]+)(?:\[\d+\])*$/.exec(path.replace(/^\$/, ''))?.[1]
  return maskRecordValue(key, value, opts)
}

const DESCRIPTIONS = new Set(['string', 'number', 'boolean', 'null', 'object', 'array', 'absent'])

/**
 * The masked characters of `text`, all but the last `visible` ones: a string of digits stays
 * digits (`0`), another string keeps its length in `*`.
 */
function maskChars(text: string, visible: number): string {
  return maskAllBut(text, visible, fillOf(text))
}

/** What a masked character is: `0` in a string of digits (it stays digits), else `*`. */
function fillOf(text: string): string {
  return /^\d+$/.test(text) ? '0' : '*'
}

/** How many trailing characters of a secret stay visible (PRODUCT §11). */
function visibleOf(kind: SecretKind, length: number): number {
  if (kind === 'hidden') return 0
  if (kind === 'card') return cardNumberVisible(length)
  return tokenVisible(length)
}

function maskSecretString(kind: SecretKind, text: string): string {
  switch (kind) {
    case 'hidden':
    case 'card':
      return maskChars(text, visibleOf(kind, text.length))
    case 'url':
      return /^https?:\/\//i.test(text)
        ? maskUrlSecrets(text)
        : maskChars(text, visibleOf(kind, text.length))
    case 'token': {
      // `Bearer abc…`: the scheme and its spaces stay as sent (lib/masking.ts maskAuthorization)
      const scheme = authorizationScheme(text)
      if (scheme) return scheme + maskToken(text.slice(scheme.length))
      return /^\d+$/.test(text) ? maskChars(text, visibleOf(kind, text.length)) : maskToken(text)
    }
  }
}

/**
 * An `embedded_ui` URL: the origin stays, and so do short path segments; any segment of 16
 * characters or more (the card-reveal page's token ends the sandbox's), every query value and
 * the fragment are masked as tokens.
 */
function maskUrlSecrets(url: string): string {
  const hash = url.indexOf('#')
  const beforeHash = hash === -1 ? url : url.slice(0, hash)
  const fragment = hash === -1 ? '' : '#' + maskToken(url.slice(hash + 1))
  const q = beforeHash.indexOf('?')
  const base = q === -1 ? beforeHash : beforeHash.slice(0, q)
  const query =
    q === -1
      ? ''
      : '?' +
        beforeHash
          .slice(q + 1)
          .split('&')
          .map((pair) => {
            const eq = pair.indexOf('=')
            return eq === -1 ? pair : pair.slice(0, eq + 1) + maskToken(pair.slice(eq + 1))
          })
          .join('&')
  const origin = /^https?:\/\/[^/]*/i.exec(base)![0]
  const path = base
    .slice(origin.length)
    .split('/')
    .map((segment) => (segment.length >= 16 ? maskToken(segment) : segment))
    .join('/')
  return origin + path + query + fragment
}

function isCardNumberValue(value: number): boolean {
  return Number.isInteger(value) && value >= 0 && isCardNumber(String(value))
}

/**
 * A number masked as a number with as many digits: the digits its kind shows kept, the others
 * zero, and a leading 1 where a zero would lose a digit (cvv2 `123` → `100`).
 */
function maskNumber(value: number, kind: SecretKind): number {
  const text = String(Math.abs(value))
  if (!/^\d+$/.test(text)) return 0
  let masked = maskChars(text, visibleOf(kind, text.length))
  if (masked.length > 1 && masked[0] === '0') masked = '1' + masked.slice(1)
  return (value < 0 ? -1 : 1) * Number(masked)
}

/** A secret key in JSON text (`"cvv2": "123"`, `"cvv2":123`) or in a query or form (`cvv2=123`). */
const KEYED_IN_TEXT =
  /("([A-Za-z0-9_-]+)"\s*:\s*)("(?:[^"\\]|\\.)*"|-?\d+)|((?:^|[?&;\s])([A-Za-z0-9_-]+)=)([^&;\s#"]*)/g

/**
 * A string whose key is no secret, masked by what it holds: card numbers (Luhn-valid runs of
 * 13–19 digits), bearer tokens, a card-reveal URL's token, and secret keys' values in JSON,
 * query or form text it carries (a body cut short, a webhook body kept as a string).
 */
export function maskValuesInText(text: string): string {
  let out = text
  if (out.includes('=') || out.includes('"')) {
    out = out.replace(
      KEYED_IN_TEXT,
      (
        whole,
        jsonHead?: string,
        jsonKey?: string,
        jsonValue?: string,
        formHead?: string,
        formKey?: string,
        formValue?: string,
      ) => {
        if (jsonHead !== undefined) {
          const kind = secretKind(jsonKey)
          if (!kind) return whole
          const quoted = jsonValue!.startsWith('"')
          const inner = quoted ? jsonValue!.slice(1, -1) : jsonValue!
          const masked = maskSecretString(kind, inner)
          return jsonHead + (quoted ? `"${masked}"` : masked)
        }
        const kind = secretKind(formKey)
        return kind ? formHead! + maskSecretString(kind, formValue!) : whole
      },
    )
  }
  return maskCardNumbersInText(maskRevealTokens(maskBearerTokens(out)), '0')
}
