/**
 * The one masking rule (PRODUCT §11) for everything the sandbox keeps for reading or prints: the
 * request journal, the console request log, the webhook log reads, the dashboard and the CLI
 * banner. A token (or a webhook secret, which defaults to the token, or the `tenant` a scenario
 * rule matches on) shows its last 4 characters when it is longer than 8, else nothing; a card
 * number its last 4 digits; a cvv2 nothing; a card access token as a token, in JSON
 * (`access_token`, the end of `embedded_ui`) and in the path of the card-reveal page it opens.
 * What is sent to a webhook receiver is never masked:
 * the outbox keeps exact bytes.
 */

export function maskToken(token: string): string {
  const visible = token.length > 8 ? token.slice(-4) : ''
  return '*'.repeat(token.length - visible.length) + visible
}

/** `Bearer test-token` → `Bearer ******oken`; the scheme stays readable. */
export function maskAuthorization(value: string): string {
  const space = value.indexOf(' ')
  if (space === -1) return maskToken(value)
  return `${value.slice(0, space)} ${maskToken(value.slice(space + 1).trimStart())}`
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
            ? maskCardNumber(value)
            : key === 'embedded_ui'
              ? maskSecretPath(value)
              : maskToken(value)
      return `${q}"${key}${q}"${colon}${q}"${masked}${q}"`
    },
  )
}

function maskCardNumber(digits: string): string {
  const visible = digits.length > 4 ? digits.slice(-4) : ''
  return '*'.repeat(digits.length - visible.length) + visible
}

/** Where the hosted card-reveal page lives: its path ends with the card access token. */
export const CARD_REVEAL_PATH = '/__sandbox/card-reveal/'

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
