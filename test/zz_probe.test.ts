import { it } from 'vitest'
import { newSandbox } from './helpers.js'
it('probe', async () => {
  const s = newSandbox()
  const card = await s.issuedCard('visa')
  const p = async (path: string, body: any, o?: any) => console.log(path, JSON.stringify(body), '=>', JSON.stringify(await s.call('POST', path, body, o)))
  await p('/v1/transactions/create/wallet-to-card', {})
  await p('/v1/transactions/create/wallet-to-card', {amount: 0, network: 'orange-money-ci'})
  await p('/__sandbox/clock/advance', {by: 1500})
  await p('/v1/transactions/create/card-to-wallet', { amount: 5, card_reference: card.reference, phone: '+221770000001', network: 'wave-sn' })
  console.log(JSON.stringify(await s.call('GET', '/v1/transactions?page=0&per_page=101')))
  console.log(JSON.stringify(await s.call('GET', '/v1/transactions?page=9')))
  console.log(Object.keys(s))
})
