/**
 * /v1/card-users (SPEC §4.1). With quirks on, create and resubmit answer in the two shapes the
 * spec's examples show (widget flow: top-level `userCard`; full data: `data.userCard`), and
 * the list wraps Laravel's paginator in a one-element array (PRODUCT §2).
 */
import { Hono } from 'hono'
import type { CardUser } from '../../db/schema.js'
import {
  findCardUser,
  listCardUsers,
  registerCardUser,
  resubmitCardUser,
} from '../../domain/card-users.js'
import type { AppEnv } from '../../wiring/env.js'
import {
  createdAtJson,
  laravelPaginator,
  ok,
  okList,
  pageMeta,
  pageQuery,
  presenting,
  toPage,
  type Presenting,
} from '../envelope.js'
import { describeRoute, type RouteMeta } from '../route-meta.js'
import { sdkCardUserKeys, sdkCreatedCardUserKeys } from '../sdk-compat.js'
import { validate } from '../validate.js'
import { createCardUserBody, resubmitCardUserBody } from './bodies.js'
import { referenceParam } from './schemas.js'
import { createCardUserAnswer, listCardUsersAnswer, showCardUserAnswer } from './answers.js'

const VERIFICATION_IN_PROGRESS = 'User verification in progress'

function userCardJson(user: CardUser, p: Presenting) {
  if (!p.quirks) return cardUserJson(user)
  // SPEC §4.1 lists the two flows' userCard fields in different orders.
  return user.flow === 'widget'
    ? {
        reference: user.reference,
        first_name: user.firstName,
        last_name: user.lastName,
        address: user.address,
        phone: user.phone,
        email: user.email,
        id_no: user.idNo,
      }
    : identityInDocsOrder(user)
}

/** The full-data flow's userCard fields in the order SPEC §4.1 and the docs list them. */
function identityInDocsOrder(user: CardUser) {
  return {
    reference: user.reference,
    first_name: user.firstName,
    last_name: user.lastName,
    address: user.address,
    id_no: user.idNo,
    phone: user.phone,
    email: user.email,
  }
}

/** The full record of SPEC §2.3. */
export function cardUserJson(user: CardUser) {
  return {
    reference: user.reference,
    first_name: user.firstName,
    last_name: user.lastName,
    address: user.address,
    phone: user.phone,
    email: user.email,
    id_no: user.idNo,
    status: user.status,
  }
}

/** Show card user (docs "show card user"): the fields in the docs' order, and `created_at`. */
function shownCardUserJson(user: CardUser, p: Presenting) {
  return {
    ...identityInDocsOrder(user),
    status: user.status,
    created_at: createdAtJson(user.createdAt, p),
  }
}

/** `sdk` are keys to put beside `userCard` (`--sdk-compat`). */
function verificationResponse(user: CardUser, p: Presenting, sdk: Record<string, unknown> = {}) {
  const userCard = userCardJson(user, p)
  // PRODUCT §2: the widget flow answers with userCard at the top level.
  if (p.quirks && user.flow === 'widget') return { userCard, ...sdk }
  return { data: { message: VERIFICATION_IN_PROGRESS, userCard, ...sdk } }
}

/** Each route's declaration (route-meta.ts): the handler answers 200 with its `message`. */
const meta = {
  create: {
    auth: 'bearer',
    summary: 'Create card user',
    answer: createCardUserAnswer,
    message: VERIFICATION_IN_PROGRESS,
  },
  resubmit: {
    auth: 'bearer',
    summary: 'Resubmit card user',
    answer: createCardUserAnswer,
    message: VERIFICATION_IN_PROGRESS,
  },
  list: {
    auth: 'bearer',
    summary: 'List card users',
    answer: listCardUsersAnswer,
    message: 'Card users fetched successfully',
  },
  show: { auth: 'bearer', summary: 'Show card user', answer: showCardUserAnswer, message: 'OK' },
} satisfies Record<string, RouteMeta>

export const cardUsersApi = new Hono<AppEnv>()
  .post('/create', describeRoute(meta.create), validate('json', createCardUserBody), async (c) => {
    const user = await registerCardUser(c.get('ctx'), c.req.valid('json'))
    const p = presenting(c)
    const sdk = sdkCreatedCardUserKeys(() => shownCardUserJson(user, p), p)
    return ok(c, meta.create.message, verificationResponse(user, p, sdk))
  })
  .post(
    '/resubmit',
    describeRoute(meta.resubmit),
    validate('json', resubmitCardUserBody),
    async (c) => {
      const { card_user_reference, ...input } = c.req.valid('json')
      const user = await resubmitCardUser(c.get('ctx'), card_user_reference, input)
      return ok(c, meta.resubmit.message, verificationResponse(user, presenting(c)))
    },
  )
  .get('/', describeRoute(meta.list), validate('query', pageQuery), (c) => {
    const asked = toPage(c.req.valid('query'))
    // the paginator's links name the route asked: /v1/card-users or its /v1/v1 twin
    const route = c.req.routePath
    const key = `card-users ${asked.page} ${asked.perPage} ${route}`
    return okList(c, key, meta.list.message, async () => {
      const p = presenting(c)
      const page = await listCardUsers(c.get('ctx'), asked)
      const users = page.rows.map((user) => ({
        ...cardUserJson(user),
        ...sdkCardUserKeys(user, p),
      }))
      if (!p.quirks) return { data: users, meta: pageMeta(page) }
      return { data: [laravelPaginator(page, users, p.origin + route)], meta: pageMeta(page) }
    })
  })
  .get('/:reference', describeRoute(meta.show), validate('param', referenceParam), async (c) => {
    const user = await findCardUser(c.get('ctx'), c.req.valid('param').reference, 'reference')
    return ok(c, meta.show.message, { data: { cardUser: shownCardUserJson(user, presenting(c)) } })
  })
