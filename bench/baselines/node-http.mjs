// Baseline: a bare node:http server answering every request with a fixed JSON of similar size,
// on the port its argument names (the bench's cold starts) or else any free one.
import { createServer } from 'node:http'
import { FIXED_BODY } from './body.mjs'

const server = createServer((req, res) => {
  req.resume()
  req.on('end', () => res.writeHead(200, { 'Content-Type': 'application/json' }).end(FIXED_BODY))
})
server.listen(Number(process.argv[2] ?? 0), '127.0.0.1', () =>
  console.log(`listening http://127.0.0.1:${server.address().port}`),
)
