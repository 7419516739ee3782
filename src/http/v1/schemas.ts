/** Field schemas shared by the /v1 resource modules (PRODUCT §10: amounts are positive integers). */
import { z } from 'zod'

/** The sandbox's amount bound (SPEC §8 gives none): 10^12 minor units. */
export const MAX_AMOUNT = 1_000_000_000_000

export const text = (max = 255) => z.string().trim().min(1).max(max)
export const uuid = () => z.uuid()
export const amount = () => z.number().int().positive().max(MAX_AMOUNT)
export const phone = () => z.stringFormat('phone', /^\+?[0-9][0-9 .-]{5,19}$/)
export const email = () => z.email().max(255)
export const httpUrl = () => z.url({ protocol: /^https?$/ }).max(2048)
export const imageUrl = httpUrl

/**
 * Zod skips an object's refinements once any field failed; cross-field rules pass this so that
 * a 422 still names every bad field (PRODUCT §4). Their code must then expect unparsed values.
 */
export const evenWithOtherErrors = {
  when: (payload: { value: unknown }) =>
    typeof payload.value === 'object' && payload.value !== null,
}

/**
 * `schema` with one example of what it accepts: the OpenAPI document gives it as the request
 * body's example and the API reference page shows it (test/http/openapi.test.ts checks that
 * every body has one, and that the schema accepts it).
 */
export function withExample<S extends z.ZodType>(schema: S, example: z.input<S>): S {
  return schema.meta({ examples: [example] }) as S
}

/** A path parameter that must be a UUID; anything else names nothing (404). */
export const referenceParam = z.object({ reference: z.uuid() })
