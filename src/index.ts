/**
 * card-sandbox's programmatic API.
 * @example
 * import { startSandbox } from 'card-sandbox'
 * const sandbox = await startSandbox({ port: 0, clock: 'manual' })
 * // point the client's base_url at sandbox.baseUrl
 * await sandbox.close()
 */
export { createApp, type SandboxApp } from './app.js'
export {
  createSandbox,
  startSandbox,
  type RunningSandbox,
  type Sandbox,
  type SandboxOptions,
} from './sandbox.js'
