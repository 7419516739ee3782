/**
 * What the test-runner kits (card-sandbox/vitest, card-sandbox/jest) share: one sandbox for a
 * whole run, its options from the runner's config and then from CARD_SANDBOX_* variables (the
 * CLI's, see the flag table of docs/cli.md), which win, and its origin handed to the code under test
 * as CARD_SANDBOX_URL before any test file is loaded.
 *
 * CARD_SANDBOX_URL means the same for every kit (the Python one too, docs/python.md): set before
 * the run, it names a running sandbox (a CI service container, a shared one) that the kit
 * attaches to, starting none; the kit says so in its first line and refuses any server option
 * also given. It cannot reach the tenants tests make, so their clocks are made manual by the
 * tests' own `reset({ clock: 'manual' })`.
 */
import { FLAGS, envName, parseFlags } from '../cli/flags.js'
import { sandboxOrigin } from '../clients/client.js'
import { startSandbox } from '../index.js'
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

/** The run's sandbox, started or attached to. */
export type KitSandbox = {
  /** Its origin, `http://127.0.0.1:<port>`. */
  url: string
  /** Named by CARD_SANDBOX_URL before the run: the kit started none. */
  attached: boolean
  /** Stops the sandbox the kit started (and gives CARD_SANDBOX_URL back); attached, nothing. */
  close(): Promise<void>
}

/** The origins this process's kits set in CARD_SANDBOX_URL: those are not "set before the run". */
const SET_BY_A_KIT = Symbol.for('card-sandbox.kit-urls')
function urlsSetByKits(): Set<string> {
  const shared = globalThis as Record<symbol, Set<string> | undefined>
  return (shared[SET_BY_A_KIT] ??= new Set())
}

/**
 * The run's sandbox: the one CARD_SANDBOX_URL names when it was set before the run (started by
 * no kit of this process), else one the kit starts, whose origin it then sets in
 * CARD_SANDBOX_URL for the code under test. `say` prints the kit's line.
 */
export async function kitSandbox(
  config: SandboxOptions = {},
  env: Environment = process.env,
  say: (line: string) => void = (line) => void process.stdout.write(`${line}\n`),
): Promise<KitSandbox> {
  const named = env.CARD_SANDBOX_URL
  if (named && !urlsSetByKits().has(named)) return await attach(named, config, env, say)
  const sandbox = await startSandbox(kitOptions(config, env))
  env.CARD_SANDBOX_URL = sandbox.url
  urlsSetByKits().add(sandbox.url)
  return {
    url: sandbox.url,
    attached: false,
    async close() {
      await sandbox.close()
      urlsSetByKits().delete(sandbox.url)
      if (env.CARD_SANDBOX_URL !== sandbox.url) return
      if (named === undefined) delete env.CARD_SANDBOX_URL
      else env.CARD_SANDBOX_URL = named
    },
  }
}

async function attach(
  named: string,
  config: SandboxOptions,
  env: Environment,
  say: (line: string) => void,
): Promise<KitSandbox> {
  const url = sandboxOrigin(named)
  const given = [
    ...Object.keys(config).map((key) => `${key} (config)`),
    ...Object.keys(optionsFromEnv(env)).map((key) => `${variableOf(key)} (variable)`),
  ]
  if (given.length > 0) {
    throw new Error(
      `card-sandbox: CARD_SANDBOX_URL=${url} names a running sandbox: the kit attaches to it and ` +
        `starts none, so it cannot apply the server options given: ${given.join(', ')}. Start ` +
        'that sandbox with them, or unset CARD_SANDBOX_URL to let the kit start its own.',
    )
  }
  const health = await fetch(`${url}/__sandbox/health`).then(
    (res) => (res.ok ? null : `answered ${res.status}`),
    (error: Error) => causeOf(error),
  )
  if (health !== null) {
    throw new Error(
      `card-sandbox: CARD_SANDBOX_URL=${url} names no running sandbox (GET /__sandbox/health: ` +
        `${health}): start it, or unset CARD_SANDBOX_URL to let the kit start its own.`,
    )
  }
  say(
    `card-sandbox: attached to the sandbox at ${url} (CARD_SANDBOX_URL); starting none. ` +
      "Reset each test's tenant with reset({ clock: 'manual' }) to keep its clock manual.",
  )
  return { url, attached: true, close: async () => {} }
}

/** Why fetch failed: `ECONNREFUSED`, else its message. */
function causeOf(error: Error): string {
  const cause = (error as { cause?: { code?: string; message?: string } }).cause
  return cause?.code ?? cause?.message ?? error.message
}

/** The variable of an option: `sdkCompat` → `CARD_SANDBOX_SDK_COMPAT`. */
function variableOf(key: string): string {
  const flag = FLAGS.find((candidate) => optionKey(candidate) === key)
  return flag ? envName(flag.name) : key
}
