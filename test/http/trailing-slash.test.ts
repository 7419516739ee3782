/**
 * A trailing slash names the same route, as the real service's router (Laravel) reads it: the
 * python SDK lists with `cards/?…`.
 */
import { describe, expect, it } from 'vitest'
import { newSandbox } from '../helpers.js'

describe('a path with a trailing slash', () => {
  it('answers as the path without it: lists, shows and creates', async () => {
    const sb = newSandbox()
    const { reference } = await sb.issuedCard()
    const list = await sb.call('GET', '/v1/cards/?page=1')
    expect(list.status).toBe(200)
    expect(list.body.data[0].reference).toBe(reference)
    const shown = await sb.call('GET', `/v1/cards/${reference}/`)
    expect(shown.body.data.card.reference).toBe(reference)
    const users = await sb.call('GET', '/v1/card-users/')
    expect(users.status).toBe(200)
    const created = await sb.call('POST', '/v1/card-users/create/', { phone: '+221770000002' })
    expect(created.status, JSON.stringify(created.body)).toBe(200)
  })

  it('keeps a wrong method a 405 and an unknown path a 404', async () => {
    const sb = newSandbox()
    const wrong = await sb.call('GET', '/v1/cards/create/')
    expect(wrong.status).toBe(405)
    expect((await sb.call('GET', '/v1/nothing/')).status).toBe(404)
  })
})
