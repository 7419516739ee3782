// What the bench scripts (run.mjs, instructions.mjs) send a sandbox: calls as a tenant, and the
// set-up both measure after, a passed card user with 20 cards.
export const TOKEN = 'bench'
export async function call(url, method, path, body, token = TOKEN) {
  const res = await fetch(url + path, {
    method,
    headers: {
      Authorization: `Bearer ${token}`,
      ...(body !== undefined && { 'Content-Type': 'application/json' }),
    },
    body: body === undefined ? undefined : JSON.stringify(body),
  })
  const json = await res.json()
  if (res.status !== 200)
    throw new Error(`${method} ${path}: ${res.status} ${JSON.stringify(json)}`)
  return json
}
export const identity = (i) => ({
  first_name: 'Awa',
  last_name: 'Diop',
  address: 'Dakar',
  phone: `+22177${String(i).padStart(7, '0')}`,
  id_no: String(i),
  selfie_image: 'https://x.test/s.jpg',
  id_image: 'https://x.test/i.jpg',
})
export async function passedUser(url) {
  const user = (await call(url, 'POST', '/v1/card-users/create', identity(0))).data.userCard
    .reference
  await call(url, 'POST', `/__sandbox/card-users/${user}/transition`, { to: 'passed' })
  return user
}
/** The body of POST /v1/cards/create for a new passed card user. */
export async function createCardBody(url) {
  return { card_user_reference: await passedUser(url), card_brand: 'visa', card_type: 'virtual' }
}
/** A passed card user with 20 cards: GET /v1/cards answers a full page; the body creates more. */
export async function cardsReady(url) {
  const createBody = await createCardBody(url)
  for (let i = 0; i < 20; i++) await call(url, 'POST', '/v1/cards/create', createBody)
  return createBody
}
/** The calls cardsReady() makes. */
export const SETUP_CALLS = 22
/** What a bare baseline is sent: the same requests (it answers a fixed page to each). */
export const BASELINE_BODY = {
  card_user_reference: '00000000-0000-4000-8000-000000000000',
  card_brand: 'visa',
  card_type: 'virtual',
}
