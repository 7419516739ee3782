/**
 * The typed /v1 methods of the kit's client (`client.v1.cards.create(body)`, …): one per /v1
 * route, its input the route's body schema (http/v1/bodies.ts) and its result the route's
 * declared answer (http/v1/answers.ts), both in the default shapes (quirks on, `--sdk-compat
 * off`). Type-only imports: the client stays fetch-only at run time.
 */
import type { z } from 'zod'
import type { IDENTITY_FIELDS } from '../db/values.js'
import type * as Answers from '../http/v1/answers.js'
import type * as Bodies from '../http/v1/bodies.js'

type Answer<Name extends keyof typeof Answers> = z.output<(typeof Answers)[Name]>
type Body<Name extends keyof typeof Bodies> = z.input<(typeof Bodies)[Name]>

type CardUserBody = Body<'createCardUserBody'>
type ResubmitBody = Body<'resubmitCardUserBody'>
type IdentityField = (typeof IDENTITY_FIELDS)[number]

/**
 * A full-data card user (it verifies by itself after its delay): the whole identity beside the
 * phone; only `back_id_image` (and `email`) may be left out. Answered under `data`.
 */
export type FullDataCardUserBody = CardUserBody &
  Required<Pick<CardUserBody, Exclude<IdentityField, 'back_id_image'>>>
/**
 * A card user for the hosted widget (pending until the widget completes it): the phone, maybe an
 * email, no identity data. Answered with `userCard` beside `message`.
 */
export type WidgetCardUserBody = Pick<CardUserBody, 'phone' | 'email'> & {
  [Field in IdentityField]?: undefined
}
/** A resubmission that sends identity data (any of it): the user follows the full-data flow. */
export type CardUserIdentityBody = {
  [Field in IdentityField]: ResubmitBody & { [Key in Field]-?: string }
}[IdentityField]

type CardUserAnswer = Answer<'createCardUserAnswer'>
/**
 * What a card-user create or resubmit answers, by flow: `'full_data'` under `data`
 * (`created.data.userCard`), `'widget'` beside `message` (`created.userCard`).
 */
export type CreatedCardUser<Flow extends 'full_data' | 'widget' = 'full_data' | 'widget'> =
  | ('full_data' extends Flow ? Extract<CardUserAnswer, { data: unknown }> : never)
  | ('widget' extends Flow ? Extract<CardUserAnswer, { userCard: unknown }> : never)

/** `page` and `per_page` (at most 100) of a /v1 list. */
export type V1PageQuery = { page?: number; per_page?: number }

/** How the typed methods send: the client's one call, under `/v1`. */
export type V1Call = (method: 'GET' | 'POST', path: string, body?: unknown) => Promise<unknown>

export function typedV1(call: V1Call) {
  const send = <T>(method: 'GET' | 'POST', path: string, body?: unknown) =>
    call(method, path, body) as Promise<T>
  const ref = encodeURIComponent
  const list = <T>(path: string, query: Record<string, string | number | undefined> = {}) => {
    const params = new URLSearchParams()
    for (const [key, value] of Object.entries(query))
      if (value !== undefined) params.set(key, String(value))
    const text = params.toString()
    return send<T>('GET', text ? `${path}?${text}` : path)
  }

  /**
   * The answer's shape follows the flow the body picks: the whole identity is answered under
   * `data` (`created.data.userCard.reference`), a phone alone (the widget flow) with `userCard`
   * beside `message`; a body whose type says neither gets the union.
   */
  function createCardUser(body: FullDataCardUserBody): Promise<CreatedCardUser<'full_data'>>
  function createCardUser(body: WidgetCardUserBody): Promise<CreatedCardUser<'widget'>>
  function createCardUser(body: CardUserBody): Promise<CreatedCardUser>
  function createCardUser(body: CardUserBody): Promise<CreatedCardUser> {
    return send('POST', '/card-users/create', body)
  }
  /**
   * Identity data in the body moves the user to the full-data flow (answered under `data`);
   * without, the answer keeps the flow the user was created in, so its type is the union.
   */
  function resubmitCardUser(body: CardUserIdentityBody): Promise<CreatedCardUser<'full_data'>>
  function resubmitCardUser(body: ResubmitBody): Promise<CreatedCardUser>
  function resubmitCardUser(body: ResubmitBody): Promise<CreatedCardUser> {
    return send('POST', '/card-users/resubmit', body)
  }

  return {
    cardUsers: {
      create: createCardUser,
      resubmit: resubmitCardUser,
      list: (query?: V1PageQuery) => list<Answer<'listCardUsersAnswer'>>('/card-users', query),
      show: (reference: string) =>
        send<Answer<'showCardUserAnswer'>>('GET', `/card-users/${ref(reference)}`),
    },
    cards: {
      create: (body: Body<'createCardBody'>) =>
        send<Answer<'oneCardAnswer'>>('POST', '/cards/create', body),
      link: (body: Body<'linkCardBody'>) =>
        send<Answer<'oneCardAnswer'>>('POST', '/cards/link', body),
      freeze: (reference: string) =>
        send<Answer<'oneCardAnswer'>>('POST', '/cards/freeze', { reference }),
      unfreeze: (reference: string) =>
        send<Answer<'oneCardAnswer'>>('POST', '/cards/unfreeze', { reference }),
      accessToken: (body: Body<'cardAccessTokenBody'>) =>
        send<Answer<'cardAccessTokenAnswer'>>('POST', '/cards/auth/access_token', body),
      list: (query?: V1PageQuery) => list<Answer<'listCardsAnswer'>>('/cards', query),
      show: (reference: string) => send<Answer<'oneCardAnswer'>>('GET', `/cards/${ref(reference)}`),
    },
    transactions: {
      /** `action`: `recharge` (top up), `withdraw`, or `transfer` to `receiver_card_reference`. */
      create: (body: Body<'cardMovementBody'>) =>
        send<Answer<'oneTransactionAnswer'>>('POST', '/transactions/create', body),
      cardToBank: (body: Body<'cardToBankBody'>) =>
        send<Answer<'oneTransactionAnswer'>>('POST', '/transactions/create/card-to-bank', body),
      cardToWallet: (body: Body<'cardToWalletBody'>) =>
        send<Answer<'oneTransactionAnswer'>>('POST', '/transactions/create/card-to-wallet', body),
      walletToCard: (body: Body<'walletToCardBody'>) =>
        send<Answer<'oneTransactionAnswer'>>('POST', '/transactions/create/wallet-to-card', body),
      list: (query: V1PageQuery & { card_reference?: string } = {}) =>
        list<Answer<'listTransactionsAnswer'>>('/transactions', query),
      /** By slug, or by the client `reference` (its newest transaction). */
      show: (slugOrReference: string) =>
        send<Answer<'showTransactionAnswer'>>('GET', `/transactions/${ref(slugOrReference)}`),
    },
    payments: {
      create: (body: Body<'createPaymentBody'>) =>
        send<Answer<'createPaymentAnswer'>>('POST', '/payments/create', body),
      list: (query?: V1PageQuery) => list<Answer<'listPaymentsAnswer'>>('/payments', query),
      show: (reference: string) =>
        send<Answer<'showPaymentAnswer'>>('GET', `/payments/${ref(reference)}`),
    },
    disburses: {
      create: (body: Body<'createDisburseBody'>) =>
        send<Answer<'createDisburseAnswer'>>('POST', '/disburses/create', body),
      list: (query?: V1PageQuery) => list<Answer<'listDisbursesAnswer'>>('/disburses', query),
      show: (reference: string) =>
        send<Answer<'showDisburseAnswer'>>('GET', `/disburses/${ref(reference)}`),
    },
    disputes: {
      create: (body: Body<'createDisputeBody'>) =>
        send<Answer<'disputeChangeAnswer'>>('POST', '/disputes/create', body),
      update: (reference: string, body: Body<'updateDisputeBody'>) =>
        send<Answer<'disputeChangeAnswer'>>('POST', `/disputes/update/${ref(reference)}`, body),
      list: (query?: V1PageQuery) => list<Answer<'listDisputesAnswer'>>('/disputes', query),
      show: (reference: string) =>
        send<Answer<'showDisputeAnswer'>>('GET', `/disputes/${ref(reference)}`),
    },
    business: {
      balances: () => send<Answer<'businessBalancesAnswer'>>('GET', '/business/balances'),
      operations: (query?: V1PageQuery) =>
        list<Answer<'listBusinessOperationsAnswer'>>('/business/operations', query),
    },
    phone: {
      verify: (body: Body<'verifyPhoneBody'>) =>
        send<Answer<'verifyPhoneAnswer'>>('POST', '/phone/verify', body),
    },
  }
}

/** The typed /v1 methods of a client. */
export type TypedV1 = ReturnType<typeof typedV1>
