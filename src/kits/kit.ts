/**
 * What the test-runner kits (card-sandbox/vitest, card-sandbox/jest) share: one sandbox for a
 * whole run, its options from the runner's config and then from CARD_SANDBOX_* variables (the
 * CLI's, see the flag table of docs/cli.md), which win, and its origin handed to the code under test
 * as CARD_SANDBOX_URL before any test file is loaded.
 */
import { FLAGS, envName, parseFlags } from '../cli/flags.js'
import { startSandbox, type RunningSandbox } from '../index.js'
import type { SandboxOptions } from '../wiring/options.js'

/** What a test run gets unless its config or its environment says otherwise. */
export const KIT_DEFAULTS: SandboxOptions = { port: 0, clock: 'manual', log: 'silent' }

/** The variables a kit reads, and the one it sets. */
export type Environment = Record<string, string | undefined>

/** The option a flag sets: `webhook-url` → `webhookUrl`; a repeatable one is a list: `scenarios`. */
function optionKey(flag: (typeof FLAGS)[number]): keyof SandboxOptions {
  const key = flag.name.replace(/-(\w)/g, (_, letter: string) => letter.toUpperCase())
  return (flag.repeatable ? `${key}s` : key) as keyof SandboxOptions
}

/** The options the CARD_SANDBOX_* variables set (only those set), validated as the CLI does. */
export function optionsFromEnv(env: Environment = process.env): SandboxOptions {
  const command = parseFlags([], env as NodeJS.ProcessEnv)
  if (command.kind !== 'run') return {}
  // only the flags that are sandbox options (--pid-file, --exit-with-parent are the command's)
  const set = FLAGS.filter(
    (flag) => env[envName(flag.name)] !== undefined && optionKey(flag) in command.options,
  )
  return Object.fromEntries(set.map((flag) => [optionKey(flag), command.options[optionKey(flag)]]))
}

/** The kit's defaults, under the runner config's options, under the environment's. */
export function kitOptions(config: SandboxOptions = {}, env: Environment = process.env) {
  return { ...KIT_DEFAULTS, ...config, ...optionsFromEnv(env) }
}

/** Starts the run's sandbox and sets CARD_SANDBOX_URL (its origin) in `env`. */
export async function startKitSandbox(
  config?: SandboxOptions,
  env: Environment = process.env,
): Promise<RunningSandbox> {
  const sandbox = await startSandbox(kitOptions(config, env))
  env.CARD_SANDBOX_URL = sandbox.url
  return sandbox
}
