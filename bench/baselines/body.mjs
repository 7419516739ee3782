// A fixed JSON about the size of a page of 20 cards from the sandbox.
const card = {
  reference: '9e130564-d548-42c1-9fc3-0dbbc151d951',
  balance: 0,
  last_four: '5404',
  status: 'issued',
  card_type: 'Visa',
  card_brand: 'virtual',
}
export const FIXED_BODY = JSON.stringify({
  message: 'Cards fetched successfully',
  statusCode: 200,
  data: Array.from({ length: 20 }, () => card),
  meta: { current_page: 1, from: 1, last_page: 1, per_page: 20, to: 20, total: 20 },
})
