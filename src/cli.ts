#!/usr/bin/env node
/**
 * The `card-sandbox` command (PRODUCT §1): `card-sandbox [command] [flags]`, where the command
 * is `serve` (the default), `stop` or `help`; each is one entry of COMMANDS. Serving: flags (or
 * CARD_SANDBOX_* env vars) → startSandbox(), a start-up banner, the pid file of --pid-file, and
 * a clean shutdown on SIGINT/SIGTERM or when npm, which started it, has gone.
 */
// first: it notes the parent this process started under before anything else loads
import { watchLauncher } from './lib/processes.js'
import type { Command } from './commands/command.js'
import { readPidFile, writePidFile } from './commands/pid-file.js'
import { stopCommand } from './commands/stop.js'
import { FlagError, flagHelp, parseFlags } from './flags.js'
import { maskToken } from './lib/masking.js'
import { PACKAGE_VERSION as VERSION } from './lib/package-files.js'
import { startSandbox, type RunningSandbox } from './sandbox.js'

const serveCommand: Command = {
  name: 'serve',
  usage: 'serve [flags]',
  summary: 'serve the sandbox (the default command)',
  help: [...flagHelp(), '  -v, --version'.padEnd(34) + 'print the version'],
  run: serve,
}

const helpCommand: Command = {
  name: 'help',
  usage: 'help [command]',
  summary: 'show this help, or the help of a command',
  help: [],
  async run(args) {
    const command = COMMANDS.find((c) => c.name === args[0])
    process.stdout.write(command && command !== helpCommand ? helpOf(command) : helpText())
    return 0
  },
}

export const COMMANDS: Command[] = [serveCommand, stopCommand, helpCommand]

/** Runs `card-sandbox` with its arguments; resolves to the exit code. */
export async function main(argv: string[], env: NodeJS.ProcessEnv): Promise<number> {
  const [first, ...rest] = argv
  const named = COMMANDS.find((command) => command.name === first)
  if (!named && first !== undefined && !first.startsWith('-')) {
    process.stderr.write(
      `card-sandbox: unknown command '${first}' (commands: ${COMMANDS.map((c) => c.name).join(', ')})\n` +
        "Run 'npx card-sandbox help' for the commands and their flags.\n",
    )
    return 2
  }
  const command = named ?? serveCommand
  const args = named ? rest : argv
  // serve reads --help with its flags
  if (command !== serveCommand && (args.includes('--help') || args.includes('-h'))) {
    process.stdout.write(helpOf(command))
    return 0
  }
  return command.run(args, env)
}

function helpText(): string {
  return [
    'card-sandbox: a local, stateful sandbox of the card, wallet and disbursement API',
    '',
    'Usage: npx card-sandbox [command] [flags]',
    '',
    'Commands:',
    ...COMMANDS.map((c) => `  ${c.usage}`.padEnd(34) + c.summary),
    '',
    'Flags of serve:',
    ...serveCommand.help,
    '  -h, --help'.padEnd(34) + 'show this help',
    '',
  ].join('\n')
}

function helpOf(command: Command): string {
  return [
    `Usage: npx card-sandbox ${command.usage}`,
    '',
    `${command.summary[0].toUpperCase()}${command.summary.slice(1)}.`,
    ...(command.help.length ? ['', 'Flags:', ...command.help] : []),
    '',
  ].join('\n')
}

async function serve(argv: string[], env: NodeJS.ProcessEnv): Promise<number> {
  let command
  try {
    command = parseFlags(argv, env)
  } catch (error) {
    if (!(error instanceof FlagError)) throw error
    process.stderr.write(
      `card-sandbox: ${error.message}\nRun 'npx card-sandbox --help' for the flags.\n`,
    )
    return 2
  }
  if (command.kind !== 'run') {
    process.stdout.write(command.kind === 'version' ? `${VERSION}\n` : helpText())
    return 0
  }

  const { options, pidFile } = command
  const held = pidFile ? readPidFile(pidFile) : undefined
  if (held?.state === 'running') {
    return couldNotStart(
      `--pid-file ${pidFile} belongs to a running sandbox (pid ${held.pid}); ` +
        `stop it with 'npx card-sandbox stop --pid-file ${pidFile}'`,
    )
  }
  let sandbox: RunningSandbox
  try {
    sandbox = await startSandbox(options)
  } catch (error) {
    return couldNotStart(
      (error as NodeJS.ErrnoException).code === 'EADDRINUSE'
        ? `port ${options.port} is already in use (try --port 0)`
        : (error as Error).message,
    )
  }
  let removePidFile = () => {}
  try {
    if (pidFile) removePidFile = writePidFile(pidFile)
  } catch (error) {
    await sandbox.close()
    return couldNotStart(`cannot write --pid-file ${pidFile}: ${(error as Error).message}`)
  }
  // A parent that stops reading (a closed pipe) must not crash the sandbox on its next line.
  process.stdout.on('error', () => {})
  process.stdout.write(banner(sandbox, pidFile))

  let stopping = false
  const stop = (reason: string) => {
    if (stopping) return
    stopping = true
    process.stdout.write(`card-sandbox: ${reason}, finishing in-flight requests…\n`)
    void sandbox.close().then(() => {
      removePidFile()
      process.stdout.write('card-sandbox: stopped\n')
      process.exit(0)
    })
  }
  process.once('SIGINT', () => stop('SIGINT received'))
  process.once('SIGTERM', () => stop('SIGTERM received'))
  // `npx card-sandbox & … kill $!` kills npm, not this process
  watchLauncher(env, () => stop('npm, which started it, has gone'))
  return 0
}

function couldNotStart(reason: string): number {
  process.stderr.write(`card-sandbox: could not start: ${reason}\n`)
  return 1
}

/** What the sandbox serves and how it is set up: addresses, never a token or a secret (PRODUCT §10). */
function banner(sandbox: RunningSandbox, pidFile: string | undefined): string {
  const o = sandbox.deps.options
  const lines = [
    `card-sandbox ${VERSION} listening`,
    `  API         ${sandbox.baseUrl}`,
    `  dashboard   ${sandbox.url}/__sandbox/ui`,
    `  docs        ${sandbox.url}/__sandbox/docs`,
    `  health      ${sandbox.url}/__sandbox/health`,
    ...(o.publicUrl ? [`  public URL  ${o.publicUrl} (wallet_url links)`] : []),
    ...(o.allowedHosts.length ? [`  also as     ${o.allowedHosts.join(', ')}`] : []),
    `  database    ${o.db}`,
    `  clock       ${o.clock}${o.clock === 'real' && o.speed !== 1 ? ` ×${o.speed}` : ''}`,
    `  quirks      ${o.quirks ? 'on' : 'off'}`,
    ...(o.sdkCompat
      ? ['  sdk compat  on (keys the official SDKs read that the real answers lack)']
      : []),
    ...(o.rateLimit ? [`  rate limit  ${o.rateLimit} /v1 requests a minute per tenant`] : []),
    `  tokens      ${o.tokens ? o.tokens.map(maskToken).join(', ') : 'any bearer token (one tenant each)'}`,
    ...(o.seed !== undefined ? [`  seed        ${o.seed}`] : []),
    `  webhooks    ${o.webhookUrl ? withoutPassword(o.webhookUrl) : 'none by default (PUT /__sandbox/webhook per tenant)'}`,
    `  signed with ${o.webhookSecret ? maskToken(o.webhookSecret) : "each tenant's bearer token"}`,
    `  scenarios   ${
      o.scenarios.length
        ? sandbox.deps.scenarios
            .active('')
            .map((a) => `${a.scenario.name} (${a.source})`)
            .join(', ')
        : 'none (magic values only)'
    }`,
    `  fixtures    ${o.fixtures ?? 'none'}`,
    ...(o.webhookExtensions
      ? ['  extensions  transaction, payment and disburse events (sandbox only)']
      : []),
    ...(pidFile ? [`  pid file    ${pidFile} (npx card-sandbox stop --pid-file ${pidFile})`] : []),
    'Press Ctrl-C to stop.',
    '',
  ]
  return lines.join('\n')
}

/** `http://user:secret@host/` → `http://user:******@host/` (masking.ts). */
function withoutPassword(url: string): string {
  const parsed = new URL(url)
  if (!parsed.password) return url
  parsed.password = maskToken(decodeURIComponent(parsed.password))
  return parsed.href
}

process.exitCode = await main(process.argv.slice(2), process.env)
