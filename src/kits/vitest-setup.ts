/**
 * A vitest `globalSetup` (`card-sandbox/vitest`): one sandbox for the whole test run, on a free
 * port with manual clocks, its origin handed to the tests as `inject('cardSandboxUrl')` and to
 * the code under test as `process.env.CARD_SANDBOX_URL`. Options come from the config's
 * `provide.cardSandboxOptions`, then from CARD_SANDBOX_* variables (kit.ts). With
 * CARD_SANDBOX_URL set before the run, the sandbox it names instead (kit.ts): nothing started,
 * `inject('cardSandboxAttached')` true. Only types come from vitest, so it is no runtime
 * dependency of card-sandbox.
 * @example
 * // vitest.config.ts
 * export default defineConfig({
 *   test: { globalSetup: ['card-sandbox/vitest'], provide: { cardSandboxOptions: { seed: 1 } } },
 * })
 * // a test
 * import type {} from 'card-sandbox/vitest' // the type of inject('cardSandboxUrl')
 * const client = createSandboxClient({ baseUrl: inject('cardSandboxUrl'), token: 'suite-a' })
 */
// the module augmented below must be part of the program: this brings it in (types only)
import type {} from 'vitest'
import type { TestProject } from 'vitest/node'
import { kitSandbox } from './kit.js'
import type { SandboxOptions } from '../wiring/options.js'

export { optionsFromEnv } from './kit.js'

declare module 'vitest' {
  export interface ProvidedContext {
    /** The sandbox's origin, `http://127.0.0.1:<port>`; its API is under `/v1`. */
    cardSandboxUrl: string
    /** True when CARD_SANDBOX_URL named a running sandbox before the run: the kit started none. */
    cardSandboxAttached: boolean
    /** The run's sandbox options, set in the config (`test.provide`); variables win over them. */
    cardSandboxOptions?: SandboxOptions
  }
}

/** Starts the sandbox (or attaches), provides its origin, and returns the teardown. */
export default async function setup(project: Pick<TestProject, 'provide'> & { config?: unknown }) {
  const config = (project.config as { provide?: { cardSandboxOptions?: SandboxOptions } })?.provide
    ?.cardSandboxOptions
  const sandbox = await kitSandbox(config)
  project.provide('cardSandboxUrl', sandbox.url)
  project.provide('cardSandboxAttached', sandbox.attached)
  return () => sandbox.close()
}
