// The Testcontainers for Node recipe of docs/ci.md, run for real: the image deploy/ci-image.json
// names, started with its environment and port, waited on until its health answers, one /v1 call,
// one webhook from the container back to a receiver in this process (through the host gateway),
// then stopped. Needs a Docker-compatible engine: DOCKER_HOST (podman's socket in .ci/image:
// `podman system service`, Ryuk off with TESTCONTAINERS_RYUK_DISABLED=true). Not part of
// `npm test`: there is no image there. Run: `node .ci/testcontainers.mjs [image]`.
import { readFileSync } from 'node:fs'
import { createServer } from 'node:http'
import { GenericContainer, Wait } from 'testcontainers'

const ci = JSON.parse(readFileSync(new URL('../deploy/ci-image.json', import.meta.url), 'utf8'))
const image = process.argv[2] ?? ci.image
const seconds = (text) => Number(/^(\d+)s$/.exec(text)[1])
const started = performance.now()
const step = (text) =>
  console.log(`[${((performance.now() - started) / 1000).toFixed(1)} s] ${text}`)

// a receiver on every address of this machine: the container reaches it at the host gateway
const deliveries = []
const receiver = createServer((req, res) => {
  let body = ''
  req.on('data', (chunk) => (body += chunk))
  req.on('end', () => {
    deliveries.push(JSON.parse(body))
    res.writeHead(200).end()
  })
})
await new Promise((listening) => receiver.listen(0, '0.0.0.0', listening))
const receiverPort = receiver.address().port

// as docs/ci.md's Testcontainers (Node) recipe, with deploy/ci-image.json's values
// CI_GATEWAY_IP: where an engine that knows no host-gateway (podman before 4.7) has the host
const [gatewayHost, hostGateway] = ci.hostGateway.addHost.split(':')
const gatewayAddress = process.env.CI_GATEWAY_IP || hostGateway
const container = await new GenericContainer(image)
  .withEnvironment(ci.env)
  .withExposedPorts(ci.port)
  .withExtraHosts([{ host: gatewayHost, ipAddress: gatewayAddress }])
  .withWaitStrategy(Wait.forHttp(ci.health.path, ci.port).forStatusCode(200))
  .withStartupTimeout(seconds(ci.health.interval) * ci.health.retries * 1000)
  .start()
const sandboxUrl = `http://${container.getHost()}:${container.getMappedPort(ci.port)}`
step(`${image} healthy at ${sandboxUrl}`)

let failed = false
try {
  const headers = { Authorization: 'Bearer tc-token', 'Content-Type': 'application/json' }
  const call = async (method, path, body) => {
    const res = await fetch(`${sandboxUrl}${path}`, {
      method,
      headers,
      body: body && JSON.stringify(body),
    })
    const json = await res.json()
    if (!res.ok) throw new Error(`${method} ${path}: ${res.status} ${JSON.stringify(json)}`)
    return json
  }
  const gateway = `http://${ci.hostGateway.name}:${receiverPort}/hooks`
  await call('PUT', '/__sandbox/webhook', { url: gateway })
  const created = await call('POST', '/v1/card-users/create', {
    first_name: 'Awa',
    last_name: 'Diop',
    address: '12 Rue Carnot, Dakar',
    phone: '+221770000001',
    email: 'awa@example.com',
    id_no: '1234567890123',
    selfie_image: 'https://example.com/s.jpg',
    id_image: 'https://example.com/f.jpg',
  })
  step(`POST /v1/card-users/create: ${created.message} (${created.data.userCard.reference})`)
  const clock = (await call('GET', '/__sandbox/clock')).data
  if (clock.mode !== ci.env.CARD_SANDBOX_CLOCK)
    throw new Error(`clock mode ${clock.mode}, not the image env's ${ci.env.CARD_SANDBOX_CLOCK}`)
  step(`the tenant's clock is ${clock.mode} (CARD_SANDBOX_CLOCK)`)
  await call('POST', '/__sandbox/clock/run-due', {})
  const until = performance.now() + seconds(ci.health.timeout) * 5_000
  while (!deliveries.length && performance.now() < until)
    await new Promise((next) => setTimeout(next, 100))
  if (!deliveries.length) {
    const log = await call('GET', '/__sandbox/webhooks')
    throw new Error(`no webhook reached ${gateway}: ${JSON.stringify(log.data).slice(0, 600)}`)
  }
  step(`webhook ${deliveries[0].event} received through ${ci.hostGateway.name}`)
} catch (error) {
  failed = true
  console.error(`testcontainers check failed: ${error.stack ?? error}`)
} finally {
  await container.stop()
  receiver.close()
  step('container stopped and removed')
}
process.exitCode = failed ? 1 : 0
