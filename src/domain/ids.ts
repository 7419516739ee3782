/**
 * All randomness of a sandbox comes from one seeded faker, so that `--seed` makes a run's
 * references, names and card numbers repeat exactly (PRODUCT §1).
 */
import type { Faker } from '@faker-js/faker'
// only the fr locale (with its en and base fallbacks): the package's index loads all 70 locales
import { faker as frFaker } from '@faker-js/faker/locale/fr'
import { randomInt } from 'node:crypto'
import type { CardBrand } from '../db/schema.js'
import { luhnCheckDigit } from '../lib/masking.js'

export type Ids = ReturnType<typeof createIds>

/** Issuer prefixes; the gim range is the sandbox's own choice (no public BIN list). */
const BRAND_PREFIXES: Record<CardBrand, readonly string[]> = {
  visa: ['4'],
  mastercard: ['51', '52', '53', '54', '55'],
  gim: ['6280'],
}

export function createIds(seed?: number) {
  // a Faker of its own per sandbox, with the locales [fr, en, base] merged as the import has them
  const faker: Faker = new (frFaker.constructor as typeof Faker)({ locale: frFaker.rawDefinitions })
  faker.seed(seed ?? randomInt(2 ** 31))

  return {
    faker,
    /** A v4 UUID: every public reference and slug (SPEC §2). */
    uuid: uuidOf(faker),
    /** An internal id with a readable prefix (`ten_…`). */
    internal: (prefix: string) =>
      `${prefix}_${faker.string.alphanumeric({ length: 16, casing: 'lower' })}`,
    /** Letters and digits: a card access token (domain/card-reveal.ts). */
    token: (length: number) => faker.string.alphanumeric({ length }),
    digits: (length: number) => faker.string.numeric({ length, allowLeadingZeros: true }),
    cardNumber(brand: CardBrand): string {
      const prefix = faker.helpers.arrayElement(BRAND_PREFIXES[brand])
      const body =
        prefix + faker.string.numeric({ length: 15 - prefix.length, allowLeadingZeros: true })
      return body + luhnCheckDigit(body)
    },
  }
}

const HEX_CODES = [...'0123456789abcdef'].map((digit) => digit.charCodeAt(0))
/** Where the 30 free digits of 8-4-4-4-12 go, in the order faker draws them. */
const FREE_DIGITS = [
  0, 1, 2, 3, 4, 5, 6, 7, 9, 10, 11, 12, 15, 16, 17, 20, 21, 22, 24, 25, 26, 27, 28, 29, 30, 31, 32,
  33, 34, 35,
]
const DASH = 45
const FOUR = 52

/**
 * faker.string.uuid() without its 31 callbacks and option objects (about 2 % of a card's
 * creation): the same draws from the same randomizer in the same order, so the same UUIDs for a
 * seed. Faker's template is 8-4-4-4-12 hex digits with a `4` and a variant digit (8 to b): it
 * draws the 30 free digits first, in order, then the variant digit. The text is written as
 * character codes and made in one step (a flat string, not 30 concatenations and 5 slices). Its
 * randomizer is not in its types: without one, faker's own.
 */
function uuidOf(faker: Faker): () => string {
  const randomizer = (faker as unknown as { fakerCore?: { randomizer?: { next(): number } } })
    .fakerCore?.randomizer
  if (typeof randomizer?.next !== 'function') return () => faker.string.uuid()
  const text: number[] = Array(36).fill(DASH)
  text[14] = FOUR
  return () => {
    for (let i = 0; i < 30; i++)
      text[FREE_DIGITS[i]] = HEX_CODES[Math.floor(randomizer.next() * 16)]
    text[19] = HEX_CODES[Math.floor(randomizer.next() * 4 + 8)]
    return String.fromCharCode(...text)
  }
}
