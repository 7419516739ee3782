/**
 * A vitest `globalSetup` (`card-sandbox/vitest`): one sandbox for the whole test run, on a free
 * port with manual clocks, its origin handed to the tests as `inject('cardSandboxUrl')`.
 * CARD_SANDBOX_* environment variables (the CLI's, see the README's flag table) override the
 * defaults. Only types come from vitest, so it is no runtime dependency of card-sandbox.
 * @example
 * // vitest.config.ts
 * export default defineConfig({ test: { globalSetup: ['card-sandbox/vitest'] } })
 * // a test
 * import type {} from 'card-sandbox/vitest' // the type of inject('cardSandboxUrl')
 * const client = createSandboxClient({ baseUrl: inject('cardSandboxUrl'), token: 'suite-a' })
 */
// the module augmented below must be part of the program: this brings it in (types only)
import type {} from 'vitest'
import type { TestProject } from 'vitest/node'
import { FLAGS, envName, parseFlags } from './flags.js'
import { startSandbox, type SandboxOptions } from './sandbox.js'

declare module 'vitest' {
  export interface ProvidedContext {
    /** The sandbox's origin, `http://127.0.0.1:<port>`; its API is under `/v1`. */
    cardSandboxUrl: string
  }
}

/** What the tests get unless the environment says otherwise. */
const DEFAULTS: SandboxOptions = { port: 0, clock: 'manual', log: 'silent' }

/** The option a flag sets: `webhook-url` → `webhookUrl`; a repeatable one is a list: `scenarios`. */
function optionKey(flag: (typeof FLAGS)[number]): keyof SandboxOptions {
  const key = flag.name.replace(/-(\w)/g, (_, letter: string) => letter.toUpperCase())
  return (flag.repeatable ? `${key}s` : key) as keyof SandboxOptions
}

/** The options the CARD_SANDBOX_* variables set (only those set), validated as the CLI does. */
export function optionsFromEnv(env: NodeJS.ProcessEnv = process.env): SandboxOptions {
  const command = parseFlags([], env)
  if (command.kind !== 'run') return {}
  // only the flags that are sandbox options (--pid-file is the command's)
  const set = FLAGS.filter(
    (flag) => env[envName(flag.name)] !== undefined && optionKey(flag) in command.options,
  )
  return Object.fromEntries(set.map((flag) => [optionKey(flag), command.options[optionKey(flag)]]))
}

/** Starts the sandbox, provides its origin, and returns the teardown that stops it. */
export default async function setup({ provide }: Pick<TestProject, 'provide'>) {
  const sandbox = await startSandbox({ ...DEFAULTS, ...optionsFromEnv() })
  provide('cardSandboxUrl', sandbox.url)
  return () => sandbox.close()
}
