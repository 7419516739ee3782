/**
 * The Jest `globalTeardown` (`card-sandbox/jest/teardown`): stops the sandbox that
 * `card-sandbox/jest` started (an attached one runs on). Jest runs both in its own process, one
 * after the other; what they share is a global, since each is its own module.
 */
export const RUNNING_JEST_SANDBOX = Symbol.for('card-sandbox.jest')

export default async function globalTeardown(): Promise<void> {
  const running = globalThis as Record<symbol, { close(): Promise<void> } | undefined>
  await running[RUNNING_JEST_SANDBOX]?.close()
  running[RUNNING_JEST_SANDBOX] = undefined
}
