/** A TCP port free on loopback right now, for a process the test starts to listen on. */
import { createServer, type AddressInfo } from 'node:net'

export async function freePort(): Promise<number> {
  const server = createServer()
  await new Promise<void>((listening) => server.listen(0, '127.0.0.1', listening))
  const { port } = server.address() as AddressInfo
  await new Promise((closed) => server.close(closed))
  return port
}
