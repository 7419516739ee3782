/**
 * What the commands that drive a running sandbox share: where it is and as
 * which tenant (`--url`, `--token`, or CARD_SANDBOX_URL / CARD_SANDBOX_TOKEN: client options,
 * not server flags, PRODUCT §11), their argument parsing, and one way to fail: a usage error
 * exits 2, a sandbox that is not running or that refuses exits 1, each in one line on stderr.
 */
import { parseArgs, type ParseArgsConfig } from 'node:util'
import {
  createSandboxClient,
  SandboxClientError,
  type SandboxClient,
} from '../../clients/client.js'
import { helpRow, type HelpRow } from '../help.js'
import { flagErrorMessage } from '../suggest.js'
import { watchLauncher } from '../../lib/processes.js'
import type { Command } from './command.js'

/** Where a sandbox started with the defaults listens. */
export const DEFAULT_URL = 'http://127.0.0.1:4010'

export const CLIENT_HELP = [
  helpRow('--url <url>', `the running sandbox (default ${DEFAULT_URL})`, 'env CARD_SANDBOX_URL'),
  helpRow('--token <token>', 'the bearer token of the tenant to act on', 'env CARD_SANDBOX_TOKEN'),
]

/** A usage mistake: exit code 2, with a pointer to the command's help. */
export class UsageError extends Error {}

type Options = NonNullable<ParseArgsConfig['options']>

export type Remote = {
  client: SandboxClient
  positionals: string[]
  values: Record<string, string | boolean | undefined>
  out: (line: string) => void
  env: NodeJS.ProcessEnv
}

/**
 * A command against a running sandbox: parses `--url`, `--token` and its own `options`, builds
 * the client, runs `body`, and turns every failure into its exit code and one line.
 */
export function remoteCommand(
  spec: Omit<Command, 'run' | 'help'> & { help?: HelpRow[]; options?: Options },
  body: (remote: Remote) => Promise<number | void>,
): Command {
  return {
    ...spec,
    help: [...(spec.help ?? []), ...CLIENT_HELP],
    async run(args, env) {
      let url = env.CARD_SANDBOX_URL || DEFAULT_URL
      try {
        const { values, positionals } = parseArgs({
          args,
          strict: true,
          allowPositionals: true,
          options: {
            url: { type: 'string' },
            token: { type: 'string' },
            ...spec.options,
          },
        })
        url = (values.url as string | undefined) ?? url
        const token = (values.token as string | undefined) ?? env.CARD_SANDBOX_TOKEN
        if (!token)
          throw new UsageError(
            'needs the bearer token of the tenant to act on: --token <token> or CARD_SANDBOX_TOKEN',
          )
        if (!URL.canParse(url) || !/^https?:$/.test(new URL(url).protocol))
          throw new UsageError(`--url must be an http(s) URL (got "${url}")`)
        const client = createSandboxClient({ baseUrl: url, token })
        const out = (line: string) => void process.stdout.write(line + '\n')
        return (await body({ client, positionals, values, out, env })) ?? 0
      } catch (error) {
        return failure(spec.name, url, error, ['url', 'token', ...Object.keys(spec.options ?? {})])
      }
    },
  }
}

function failure(command: string, url: string, error: unknown, flags: string[]): number {
  const say = (line: string) => process.stderr.write(`card-sandbox ${command}: ${line}\n`)
  if (error instanceof UsageError || isParseError(error)) {
    say(`${flagErrorMessage(error, flags)}\nRun 'npx card-sandbox help ${command}'.`)
    return 2
  }
  if (error instanceof SandboxClientError) {
    say(error.message)
    return 1
  }
  // fetch's own failure: nothing listens there (or nothing it may reach)
  const cause = (error as { cause?: { code?: string; message?: string } }).cause
  if (error instanceof TypeError && error.message === 'fetch failed') {
    say(
      `no sandbox answers at ${url} (${cause?.code ?? cause?.message ?? 'unreachable'}): start ` +
        "one with 'npx card-sandbox', or name the running one with --url or CARD_SANDBOX_URL",
    )
    return 1
  }
  throw error
}

function isParseError(error: unknown): boolean {
  return (error as { code?: string }).code?.startsWith('ERR_PARSE_ARGS') === true
}

/** The positional arguments a command expects, or a usage error naming what is missing. */
export function expectArgs(positionals: string[], names: string[], extra = false): string[] {
  if (positionals.length < names.length)
    throw new UsageError(`missing ${names.slice(positionals.length).join(', ')}`)
  if (!extra && positionals.length > names.length)
    throw new UsageError(`unexpected argument ${positionals[names.length]}`)
  return positionals
}

/** What stops a command that runs until Ctrl-C. */
const STOP_SIGNALS = ['SIGINT', 'SIGTERM', 'SIGHUP'] as const

/**
 * Waits for Ctrl-C, SIGTERM or SIGHUP, or for npm, which started the command, to have gone
 * (`npx card-sandbox listen & … kill $!` signals npm alone), or rejects with `failed`'s error;
 * either way, it leaves no listener behind. Resolves with why it stopped, unless a signal did.
 */
export async function untilStopped(
  env: NodeJS.ProcessEnv,
  failed: Promise<never> = new Promise(() => {}),
): Promise<string | undefined> {
  let stop: (why?: string) => void = () => {}
  const stopped = new Promise<string | undefined>((resolve) => (stop = resolve))
  const onSignal = () => stop()
  for (const signal of STOP_SIGNALS) process.on(signal, onSignal)
  const unwatch = watchLauncher(env, () => stop('npm, which started it, has gone'))
  try {
    return await Promise.race([stopped, failed])
  } finally {
    for (const signal of STOP_SIGNALS) process.off(signal, onSignal)
    unwatch()
  }
}
