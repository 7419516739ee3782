/**
 * `card-sandbox/testing` (node only; `card-sandbox/client` stays fetch-only): webhook helpers
 * for a test suite, as Stripe's `constructEvent` and test-header helper are for its events.
 *
 * - `webhookReceiver(client)` starts a receiver on a free loopback port, points the client's
 *   tenant's webhooks at it, checks every delivery's signature and offers `waitFor(event)`, the
 *   deliveries and `close()`.
 * - `verifySignature(rawBody, header, secret)` for a client's own handler.
 * - `signPayload(payload, secret)` to post a signed event to that handler in its own tests.
 *
 * @example
 * const receiver = await webhookReceiver(sandbox)
 * await sandbox.v1.cardUsers.create({ ...identity })
 * await sandbox.runUntilIdle()
 * const { data } = await receiver.waitFor('card_user_verification.successful')
 * await receiver.close()
 */
export { SIGNATURE_HEADER, signPayload, verifySignature } from '../webhooks/sign.js'
export {
  webhookReceiver,
  type Delivery,
  type UnverifiedDelivery,
  type WebhookReceiver,
  type WebhookReceiverOptions,
} from '../clients/receiver.js'
export type { WebhookEventName, WebhookEvents, WebhookPayload } from '../domain/webhook-payloads.js'
