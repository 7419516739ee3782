/**
 * The one masking rule (PRODUCT §11) for everything the sandbox keeps for reading or prints: the
 * request journal, the console request log, the webhook log reads, the dashboard and the CLI
 * banner. A token (or a webhook secret, which defaults to the token, or the `tenant` a scenario
 * rule matches on) shows its last 4 characters when it is longer than 8, else nothing; a card
 * number its last 4 digits; a cvv2 nothing; a card access token as a token, in JSON
 * (`access_token`, the end of `embedded_ui`) and in the path of the card-reveal page it opens.
 * What is sent to a webhook receiver is never masked:
 * the outbox keeps exact bytes. The proxy's record (drift/mask.ts) masks with the same
 * primitives: a token, a card number, Luhn, a bearer token and a card-reveal token in text.
 */

/** `text` with all but its last `visible` characters (none when it has no more) replaced by `fill`. */
export function maskAllBut(text: string, visible: number, fill: string): string {
  const shown = text.length > visible ? visible : 0
  return fill.repeat(text.length - shown) + text.slice(text.length - shown)
}

/** How many trailing characters of a token stay visible: 4 of one longer than 8, else none. */
export function tokenVisible(length: number): number {
  return length > 8 ? 4 : 0
}

/** How many trailing digits of a card number stay visible: 4 of one longer than 4, else none. */
export function cardNumberVisible(length: number): number {
  return length > 4 ? 4 : 0
}

export function maskToken(token: string): string {
  return maskAllBut(token, tokenVisible(token.length), '*')
}

/** A card number, its last 4 digits shown, the others `fill` (`*`; the proxy's record: `0`). */
export function maskCardNumber(digits: string, fill: string): string {
  return maskAllBut(digits, cardNumberVisible(digits.length), fill)
}

/** An Authorization value's scheme and the spaces after it (`Bearer `), when a token follows. */
const SCHEME = /^[A-Za-z][\w-]* +(?=\S)/

/** The scheme of an Authorization value with the spaces that follow it, if it starts with one. */
export function authorizationScheme(value: string): string | undefined {
  return SCHEME.exec(value)?.[0]
}

/** `Bearer test-token` → `Bearer ******oken`; the scheme stays readable, one space after it. */
export function maskAuthorization(value: string): string {
  const scheme = authorizationScheme(value)
  if (scheme === undefined) return maskToken(value)
  return `${scheme.trimEnd()} ${maskToken(value.slice(scheme.length))}`
}

/** The Luhn check digit of `body`, a string of digits: the digit that makes `body` + it valid. */
export function luhnCheckDigit(body: string): string {
  let sum = 0
  for (let i = 0; i < body.length; i++) {
    let digit = Number(body[body.length - 1 - i])
    if (i % 2 === 0) {
      digit *= 2
      if (digit > 9) digit -= 9
    }
    sum += digit
  }
  return String((10 - (sum % 10)) % 10)
}

/** Luhn's check on a string of digits: its last digit is the check digit of the others. */
export function luhnValid(digits: string): boolean {
  return /^\d+$/.test(digits) && luhnCheckDigit(digits.slice(0, -1)) === digits.slice(-1)
}

/** A card number, as the masking reads one: a Luhn-valid run of 13 to 19 digits. */
export function isCardNumber(digits: string): boolean {
  return /^\d{13,19}$/.test(digits) && luhnValid(digits)
}

const LONG_DIGITS = /(?<!\d)\d{13,19}(?!\d)/g

/** Every card number in `text` (a Luhn-valid run of 13 to 19 digits, no digit either side) masked. */
export function maskCardNumbersInText(text: string, fill: string): string {
  if (!/\d{13}/.test(text)) return text
  return text.replace(LONG_DIGITS, (digits) =>
    luhnValid(digits) ? maskCardNumber(digits, fill) : digits,
  )
}

const BEARER = /\b(Bearer\s+)([A-Za-z0-9\-._~+/]+=*)/gi

/** Every bearer token in `text` (`Bearer abc…`, in any case) masked as a token. */
export function maskBearerTokens(text: string): string {
  if (!/bearer/i.test(text)) return text
  return text.replace(BEARER, (_, head: string, token: string) => head + maskToken(token))
}

/**
 * A secret key and its value in JSON text, also one level down: JSON carried in a JSON string
 * (a webhook body in a log read) has its quotes escaped (`\"cvv2\":\"123\"`), and group 1 is
 * then the backslash.
 */
const SECRET_IN_JSON =
  /(\\?)"(card_number|cvv2|secret|tenant|access_token|embedded_ui)\1"(\s*:\s*)(?:\1"((?:[^"\\]|\\.)*?)\1"|(-?\d+))/g
/** The same, to ask whether there is one: a global replace that finds none still costs its setup. */
const HOLDS_SECRET = new RegExp(SECRET_IN_JSON.source)

/**
 * `"card_number":"4111111111111111"` → `"************1111"`, every cvv2 → `"***"`, a `secret`
 * or a `tenant` or an `access_token` as a token, the token ending an `embedded_ui`. Costs five
 * substring scans when the text holds none of those keys (`access_token` and `embedded_ui`
 * come together: the card access token's answer), and one scan when it holds them with nothing
 * to mask (a new card's `"card_number":null`).
 */
export function maskJsonSecrets(json: string): string {
  if (
    !json.includes('card_number') &&
    !json.includes('cvv2') &&
    !json.includes('secret') &&
    !json.includes('tenant') &&
    !json.includes('access_token')
  ) {
    return json
  }
  if (!HOLDS_SECRET.test(json)) return json
  return json.replace(
    SECRET_IN_JSON,
    (_, q: string, key: string, colon: string, text?: string, number?: string) => {
      const value = text ?? number!
      const masked =
        key === 'cvv2'
          ? '***'
          : key === 'card_number'
            ? maskCardNumber(value, '*')
            : key === 'embedded_ui'
              ? maskSecretPath(value)
              : maskToken(value)
      return `${q}"${key}${q}"${colon}${q}"${masked}${q}"`
    },
  )
}

/** Where the hosted card-reveal page lives: its path ends with the card access token. */
export const CARD_REVEAL_PATH = '/__sandbox/card-reveal/'

/** The card-reveal page's token in any URL's path (`…/card-reveal/{token}`, in any case). */
const REVEAL_TOKEN = /(\/card-reveal\/)([A-Za-z0-9_-]+)/gi

/** Every card-reveal token in `text` masked as a token: the proxy's record, whatever the host. */
export function maskRevealTokens(text: string): string {
  if (!/card-reveal\//i.test(text)) return text
  return text.replace(REVEAL_TOKEN, (_, head: string, token: string) => head + maskToken(token))
}

/** A path or URL with the card-reveal page's token in it, the token masked; others unchanged. */
export function maskSecretPath(path: string): string {
  const at = path.indexOf(CARD_REVEAL_PATH)
  if (at === -1) return path
  const start = at + CARD_REVEAL_PATH.length
  return path.slice(0, start) + maskToken(path.slice(start))
}

/** `http://user:secret@host/` → `http://user:******@host/`; a URL without a password unchanged. */
export function maskUrlPassword(url: string): string {
  if (!URL.canParse(url)) return url
  const parsed = new URL(url)
  if (!parsed.password) return url
  parsed.password = maskToken(decodeURIComponent(parsed.password))
  return parsed.href
}
