// Baseline: a bare Hono app on @hono/node-server answering every request with a fixed JSON, on
// the port its argument names (the bench's cold starts) or else any free one.
import { serve } from '@hono/node-server'
import { Hono } from 'hono'
import { FIXED_BODY } from './body.mjs'

const app = new Hono()
app.all('*', async (c) => {
  if (c.req.method === 'POST') await c.req.text()
  return c.body(FIXED_BODY, 200, { 'Content-Type': 'application/json' })
})
const server = serve(
  { fetch: app.fetch, port: Number(process.argv[2] ?? 0), hostname: '127.0.0.1' },
  (info) => console.log(`listening http://127.0.0.1:${info.port}`),
)
void server
