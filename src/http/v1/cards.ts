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
import { describeRoute, type RouteMeta } from '../route-meta.js'
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

/** Each route's declaration (route-meta.ts): the handler answers 200 with its `message`. */
const meta = {
  create: {
    auth: 'bearer',
    summary: 'Create card',
    answer: oneCardAnswer,
    message: 'Card is being generated',
  },
  link: {
    auth: 'bearer',
    summary: 'Link card',
    answer: oneCardAnswer,
    message: 'Card is being generated',
  },
  freeze: {
    auth: 'bearer',
    summary: 'Freeze card',
    answer: oneCardAnswer,
    message: 'Card frozen successfully',
  },
  unfreeze: {
    auth: 'bearer',
    summary: 'Unfreeze card',
    answer: oneCardAnswer,
    message: 'Card unfrozen successfully',
  },
  accessToken: {
    auth: 'bearer',
    summary: 'Get card access token',
    answer: cardAccessTokenAnswer,
    message: 'Access Token generated successfully',
  },
  list: {
    auth: 'bearer',
    summary: 'List cards',
    answer: listCardsAnswer,
    message: 'Cards fetched successfully',
  },
  show: { auth: 'bearer', summary: 'Show card', answer: oneCardAnswer, message: 'OK' },
} satisfies Record<string, RouteMeta>

export const cardsApi = new Hono<AppEnv>()
  .post('/create', describeRoute(meta.create), validate('json', createCardBody), async (c) => {
    const body = c.req.valid('json')
    const card = await createCard(c.get('ctx'), {
      cardUserReference: body.card_user_reference,
      brand: body.card_brand,
      type: body.card_type,
    })
    return ok(c, meta.create.message, newCardResponse(card, presenting(c)))
  })
  .post('/link', describeRoute(meta.link), validate('json', linkCardBody), async (c) => {
    const body = c.req.valid('json')
    const card = await linkCard(c.get('ctx'), {
      identifier: body.identifier,
      reference: body.reference,
      cardUserReference: body.card_user_reference,
    })
    return ok(c, meta.link.message, newCardResponse(card, presenting(c)))
  })
  .post('/freeze', describeRoute(meta.freeze), validate('json', cardReferenceBody), async (c) => {
    const card = await freezeCard(c.get('ctx'), c.req.valid('json').reference)
    return ok(c, meta.freeze.message, await cardResponse(c.get('ctx'), card, presenting(c)))
  })
  .post(
    '/unfreeze',
    describeRoute(meta.unfreeze),
    validate('json', cardReferenceBody),
    async (c) => {
      const card = await unfreezeCard(c.get('ctx'), c.req.valid('json').reference)
      return ok(c, meta.unfreeze.message, await cardResponse(c.get('ctx'), card, presenting(c)))
    },
  )
  .post(
    '/auth/access_token',
    describeRoute(meta.accessToken),
    validate('json', cardAccessTokenBody),
    async (c) => {
      const body = c.req.valid('json')
      const issued = await issueRevealToken(c.get('ctx'), {
        cardReference: body.reference,
        cssUrl: body.css_url || undefined,
      })
      return ok(c, meta.accessToken.message, {
        data: {
          access_token: issued.token,
          embedded_ui: cardRevealUrl(presenting(c), issued.token),
        },
      })
    },
  )
  .get('/', describeRoute(meta.list), validate('query', pageQuery), (c) => {
    const asked = toPage(c.req.valid('query'))
    return okList(c, `cards ${asked.page} ${asked.perPage}`, meta.list.message, async () => {
      const p = presenting(c)
      const page = await listCards(c.get('ctx'), asked)
      return {
        data: page.rows.map((card) => cardListJson(card, card.balance, p)),
        meta: pageMeta(page),
      }
    })
  })
  .get('/:reference', describeRoute(meta.show), validate('param', referenceParam), async (c) => {
    const ctx = c.get('ctx')
    const card = await findCardWithBalance(ctx, c.req.valid('param').reference, 'reference')
    const p = presenting(c)
    return ok(c, meta.show.message, cardAnswer(cardJson(card, card.balance, p), p))
  })
