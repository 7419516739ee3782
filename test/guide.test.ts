/** The README's "Writing a test against the sandbox" guide, as written there, over a socket. */
import { afterAll, beforeAll, beforeEach, expect, it } from 'vitest'
import { startSandbox, type RunningSandbox } from '../src/index.js'

let sandbox: RunningSandbox
const headers = { Authorization: 'Bearer my-suite', 'Content-Type': 'application/json' }
const post = async (path: string, body: unknown = {}) =>
  (
    await fetch(sandbox.url + path, { method: 'POST', headers, body: JSON.stringify(body) })
  ).json() as Promise<any>
const get = async (path: string) =>
  (await fetch(sandbox.url + path, { headers })).json() as Promise<any>

beforeAll(async () => {
  sandbox = await startSandbox({ port: 0, clock: 'manual', seed: 1 })
})
afterAll(() => sandbox.close())
beforeEach(() => post('/__sandbox/reset'))

it('pays out to a bank once the card is issued and funded', async () => {
  const user = await post('/v1/card-users/create', {
    first_name: 'Awa',
    last_name: 'Diop',
    address: 'Dakar',
    phone: '+221770000001',
    id_no: '123',
    selfie_image: 'https://x.test/s.jpg',
    id_image: 'https://x.test/i.jpg',
  })
  await post('/__sandbox/clock/advance', { by: '3s' }) // verification passes
  const created = await post('/v1/cards/create', {
    card_user_reference: user.data.userCard.reference,
    card_brand: 'visa',
    card_type: 'virtual',
  })
  const card = created.data.card.reference
  await post('/__sandbox/clock/advance', { by: '5s' }) // the card is issued
  await post(`/__sandbox/cards/${card}/fund`, { amount: 10_000 })
  const transfer = await post('/v1/transactions/create/card-to-bank', {
    amount: 4_000,
    card_reference: card,
    bank_id: 'SN01',
    bank_name: 'CBAO',
  })
  expect(transfer.data.transaction.status).toBe('pending')
  await post('/__sandbox/clock/advance', { by: '5s' }) // it settles

  const list = await get(`/v1/transactions?card_reference=${card}`)
  expect(list.data.transaction.map((t: any) => [t.kind, t.status])).toEqual([
    ['card_to_bank', 'success'],
    ['recharge', 'success'],
  ])
  expect((await get('/v1/cards')).data[0].balance).toBe(6_000)
})

it('starts every test from a reset tenant', async () => {
  expect((await get('/v1/cards')).data).toEqual([])
  expect((await get('/__sandbox/clock')).data.now).toBe('2026-01-01T00:00:00.000Z')
})
