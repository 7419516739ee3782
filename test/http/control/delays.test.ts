/**
 * /__sandbox/delays: a tenant's delays, each a duration the clock reads ("500ms", "5s", "15m")
 * or a number of milliseconds; one it cannot read is refused, naming the delay.
 */
import { describe, expect, it } from 'vitest'
import { newSandbox } from '../../helpers.js'

describe('PUT /__sandbox/delays', () => {
  it('refuses a duration it cannot read, in its words, and keeps the delays as they were', async () => {
    const s = newSandbox()
    const before = (await s.call('GET', '/__sandbox/delays')).body.data
    const res = await s.call('PUT', '/__sandbox/delays', { card_issuing: 'soon' })
    const message =
      'The card issuing field is invalid: must be a duration such as "500ms", "5s", "15m" or a ' +
      'number of milliseconds.'
    expect(res.status, JSON.stringify(res.body)).toBe(422)
    expect(res.body).toEqual({ message, statusCode: 422, errors: { card_issuing: [message] } })
    expect((await s.call('GET', '/__sandbox/delays')).body.data).toEqual(before)
  })
})
