/**
 * /v1/phone (the docs' "Miscellaneous" section): verify phone, which both official SDKs call.
 * No source shows its answer: the envelope with the phone and country under `data` is our
 * assumption (docs/choices.md), for a drift recording to confirm or correct.
 */
import { Hono } from 'hono'
import { verifyPhone } from '../../domain/phones.js'
import type { AppEnv } from '../../wiring/env.js'
import { ok } from '../envelope.js'
import { describeRoute, type RouteMeta } from '../route-meta.js'
import { validate } from '../validate.js'
import { verifyPhoneAnswer } from './answers.js'
import { verifyPhoneBody } from './bodies.js'

/** Each route's declaration (route-meta.ts): the handler answers 200 with its `message`. */
const meta = {
  verify: {
    auth: 'bearer',
    summary: 'Verify a phone',
    answer: verifyPhoneAnswer,
    message: 'Phone verified successfully',
  },
} satisfies Record<string, RouteMeta>

export const phoneApi = new Hono<AppEnv>().post(
  '/verify',
  describeRoute(meta.verify),
  validate('json', verifyPhoneBody),
  (c) => {
    const { phone, country_code } = c.req.valid('json')
    verifyPhone(phone)
    return ok(c, meta.verify.message, { data: { phone, country_code } })
  },
)
