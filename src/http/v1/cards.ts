/**
 * /v1/cards (SPEC §4.3). Quirks on: the card sits under `data.card` (the examples; the schema
 * puts it beside `message`), brands are capitalised, and the list swaps `card_type` and
 * `card_brand` (PRODUCT §2).
 */
import { Hono } from 'hono'
import { type Card } from '../../db/schema.js'
import {
  cardBalance,
  createCard,
  findCardWithBalance,
  freezeCard,
  linkCard,
  listCards,
  NEW_CARD_BALANCE,
  unfreezeCard,
} from '../../domain/cards.js'
import { issueRevealToken } from '../../domain/card-reveal.js'
import type { DomainContext } from '../../domain/context.js'
import { CARD_REVEAL_PATH } from '../../lib/masking.js'
import type { AppEnv } from '../../wiring/env.js'
import {
  brandJson,
  ok,
  okList,
  pageMeta,
  pageQuery,
  presenting,
  toPage,
  type Presenting,
} from '../envelope.js'
import { describeRoute } from '../route-meta.js'
import { sdkCardKeys } from '../sdk-compat.js'
import { validate } from '../validate.js'
import { cardAccessTokenBody, cardReferenceBody, createCardBody, linkCardBody } from './bodies.js'
import { referenceParam } from './schemas.js'
import { cardAccessTokenAnswer, listCardsAnswer, oneCardAnswer } from './answers.js'

/** The hosted card-reveal page a token opens (ui/card-reveal.ts), on this sandbox's origin. */
export function cardRevealUrl(p: Presenting, token: string): string {
  return `${p.origin}${CARD_REVEAL_PATH}${token}`
}

function cardJson(card: Card, balance: number, p: Presenting) {
  return {
    ...(card.identifier !== null && { identifier: card.identifier }),
    reference: card.reference,
    card_number: card.cardNumber,
    card_brand: brandJson(card.brand, p),
    card_type: card.type,
    cvv2: card.cvv2,
    expiry: card.expiry,
    balance,
    status: card.status,
    ...sdkCardKeys(card, p),
  }
}

function cardListJson(card: Card, balance: number, p: Presenting) {
  const brand = brandJson(card.brand, p)
  return {
    reference: card.reference,
    balance,
    last_four: card.cardNumber ? card.cardNumber.slice(-4) : null,
    status: card.status,
    // SPEC §2.4: the list example shows the brand under card_type and the type under card_brand.
    card_type: p.quirks ? brand : card.type,
    card_brand: p.quirks ? card.type : brand,
    ...sdkCardKeys(card, p),
  }
}

async function cardResponse(ctx: DomainContext, card: Card, p: Presenting) {
  return cardAnswer(cardJson(card, await cardBalance(ctx, card), p), p)
}

/**
 * A card created or linked by this request: nothing can have moved into its account yet (only
 * a call naming its reference funds it), so its balance is not read (a query fewer a create).
 */
function newCardResponse(card: Card, p: Presenting) {
  return cardAnswer(cardJson(card, NEW_CARD_BALANCE, p), p)
}

/** Quirks on: `data.card` as the examples; off: `card` beside `message` as the schema. */
function cardAnswer(json: ReturnType<typeof cardJson>, p: Presenting) {
  return p.quirks ? { data: { card: json } } : { card: json }
}

export const cardsApi = new Hono<AppEnv>()
  .post(
    '/create',
    describeRoute({ auth: 'bearer', summary: 'Create card', answer: oneCardAnswer }),
    validate('json', createCardBody),
    async (c) => {
      const body = c.req.valid('json')
      const card = await createCard(c.get('ctx'), {
        cardUserReference: body.card_user_reference,
        brand: body.card_brand,
        type: body.card_type,
      })
      return ok(c, 'Card is being generated', newCardResponse(card, presenting(c)))
    },
  )
  .post(
    '/link',
    describeRoute({ auth: 'bearer', summary: 'Link card', answer: oneCardAnswer }),
    validate('json', linkCardBody),
    async (c) => {
      const body = c.req.valid('json')
      const card = await linkCard(c.get('ctx'), {
        identifier: body.identifier,
        reference: body.reference,
        cardUserReference: body.card_user_reference,
      })
      return ok(c, 'Card is being generated', newCardResponse(card, presenting(c)))
    },
  )
  .post(
    '/freeze',
    describeRoute({ auth: 'bearer', summary: 'Freeze card', answer: oneCardAnswer }),
    validate('json', cardReferenceBody),
    async (c) => {
      const card = await freezeCard(c.get('ctx'), c.req.valid('json').reference)
      return ok(
        c,
        'Card frozen successfully',
        await cardResponse(c.get('ctx'), card, presenting(c)),
      )
    },
  )
  .post(
    '/unfreeze',
    describeRoute({ auth: 'bearer', summary: 'Unfreeze card', answer: oneCardAnswer }),
    validate('json', cardReferenceBody),
    async (c) => {
      const card = await unfreezeCard(c.get('ctx'), c.req.valid('json').reference)
      return ok(
        c,
        'Card unfrozen successfully',
        await cardResponse(c.get('ctx'), card, presenting(c)),
      )
    },
  )
  .post(
    '/auth/access_token',
    describeRoute({
      auth: 'bearer',
      summary: 'Get card access token',
      answer: cardAccessTokenAnswer,
    }),
    validate('json', cardAccessTokenBody),
    async (c) => {
      const body = c.req.valid('json')
      const issued = await issueRevealToken(c.get('ctx'), {
        cardReference: body.reference,
        cssUrl: body.css_url || undefined,
      })
      return ok(c, 'Access Token generated successfully', {
        data: {
          access_token: issued.token,
          embedded_ui: cardRevealUrl(presenting(c), issued.token),
        },
      })
    },
  )
  .get(
    '/',
    describeRoute({ auth: 'bearer', summary: 'List cards', answer: listCardsAnswer }),
    validate('query', pageQuery),
    (c) => {
      const asked = toPage(c.req.valid('query'))
      return okList(
        c,
        `cards ${asked.page} ${asked.perPage}`,
        'Cards fetched successfully',
        async () => {
          const p = presenting(c)
          const page = await listCards(c.get('ctx'), asked)
          return {
            data: page.rows.map((card) => cardListJson(card, card.balance, p)),
            meta: pageMeta(page),
          }
        },
      )
    },
  )
  .get(
    '/:reference',
    describeRoute({ auth: 'bearer', summary: 'Show card', answer: oneCardAnswer }),
    validate('param', referenceParam),
    async (c) => {
      const ctx = c.get('ctx')
      const card = await findCardWithBalance(ctx, c.req.valid('param').reference, 'reference')
      const p = presenting(c)
      return ok(c, 'OK', cardAnswer(cardJson(card, card.balance, p), p))
    },
  )
