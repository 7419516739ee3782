/** The /v1 surface of SPEC §4: one sub-app per resource. */
import { Hono } from 'hono'
import type { AppEnv } from '../../wiring/env.js'
import { businessApi } from './business.js'
import { cardUsersApi } from './card-users.js'
import { cardsApi } from './cards.js'
import { disbursesApi } from './disburses.js'
import { disputesApi } from './disputes.js'
import { paymentsApi } from './payments.js'
import { phoneApi } from './phone.js'
import { transactionsApi } from './transactions.js'

export function createV1Api(options: { quirks: boolean }) {
  const api = new Hono<AppEnv>()
    .route('/card-users', cardUsersApi)
    .route('/cards', cardsApi)
    .route('/transactions', transactionsApi)
    .route('/disputes', disputesApi)
    .route('/disburses', disbursesApi)
    .route('/payments', paymentsApi)
    .route('/business', businessApi)
    .route('/phone', phoneApi)
  // SPEC §9: one example creates a card user under a doubled prefix; the service accepts it.
  if (options.quirks) api.route('/v1/card-users', cardUsersApi)
  return api
}
