/**
 * A Jest `globalSetup` (`card-sandbox/jest`), with `card-sandbox/jest/teardown` its
 * `globalTeardown`: one sandbox for the whole run, on a free port with manual clocks, its origin
 * in `process.env.CARD_SANDBOX_URL` for the tests and the code under test (Jest's workers start
 * after the setup and inherit it). Options come from the config's `globals.cardSandbox`, then
 * from CARD_SANDBOX_* variables (kit.ts). With CARD_SANDBOX_URL set before the run, the sandbox
 * it names instead, nothing started (kit.ts). Loaded with `require` (a CommonJS build).
 * @example
 * // jest.config.js
 * module.exports = {
 *   globalSetup: 'card-sandbox/jest',
 *   globalTeardown: 'card-sandbox/jest/teardown',
 *   globals: { cardSandbox: { seed: 1 } },
 * }
 */
import { kitSandbox } from './kit.js'
import { RUNNING_JEST_SANDBOX } from './jest-teardown.js'
import type { SandboxOptions } from '../wiring/options.js'

/** What Jest hands a globalSetup as its second argument, as far as the kit reads it. */
export type JestProjectConfig = { globals?: { cardSandbox?: SandboxOptions } }

export default async function globalSetup(
  _globalConfig?: unknown,
  projectConfig?: JestProjectConfig,
): Promise<void> {
  const sandbox = await kitSandbox(projectConfig?.globals?.cardSandbox)
  ;(globalThis as Record<symbol, unknown>)[RUNNING_JEST_SANDBOX] = sandbox
}
