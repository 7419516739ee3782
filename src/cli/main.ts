/**
 * The `card-sandbox` command (PRODUCT §1): `card-sandbox [command] [flags]`, where the command
 * is `serve` (the default), `stop`, `help`, or one that drives a running sandbox (reset, clock,
 * transition, trigger, listen, fixtures, journal), or `drift`, which reads a proxy's record
 * file; each is one entry of COMMANDS. Serving: flags (or
 * CARD_SANDBOX_* env vars) → startSandbox(), a start-up banner, the pid file of --pid-file, and
 * a clean shutdown on SIGINT/SIGTERM, when npm, which started it, has gone, or with
 * --exit-with-parent when its parent has gone or its stdin closed.
 */
// first: it notes the parent this process started under before anything else loads
import { watchLauncher, watchParent, watchStdinEnd } from '../lib/processes.js'
import type { Command } from './commands/command.js'
import { readPidFile, writePidFile } from './commands/pid-file.js'
import { proxyCommand } from './commands/proxy.js'
import {
  clockCommand,
  fixturesCommand,
  journalCommand,
  resetCommand,
  transitionCommand,
} from './commands/state.js'
import { driftCommand } from './commands/drift.js'
import { stopCommand } from './commands/stop.js'
import { listenCommand, triggerCommand } from './commands/webhooks.js'
import { FlagError, flagHelp, parseFlags } from './flags.js'
import { helpRow, helpTable, wrap } from './help.js'
import { nearest } from './suggest.js'
import { isLoopback } from '../http/middleware/host-check.js'
import type { LogLine } from '../lib/logger.js'
import { maskToken, maskUrlPassword } from '../lib/masking.js'
import { PACKAGE_VERSION as VERSION } from '../lib/package-files.js'
import { startSandbox, type RunningSandbox } from '../server/sandbox.js'

const serveCommand: Command = {
  name: 'serve',
  usage: 'serve [flags]',
  summary: 'serve the sandbox (the default command)',
  help: [...flagHelp(), helpRow('-v, --version', 'print the version')],
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

export const COMMANDS: Command[] = [
  serveCommand,
  stopCommand,
  resetCommand,
  clockCommand,
  transitionCommand,
  triggerCommand,
  listenCommand,
  fixturesCommand,
  journalCommand,
  proxyCommand,
  driftCommand,
  helpCommand,
]

/** Runs `card-sandbox` with its arguments; resolves to the exit code. */
export async function main(argv: string[], env: NodeJS.ProcessEnv): Promise<number> {
  const [first, ...rest] = argv
  const named = COMMANDS.find((command) => command.name === first)
  if (!named && first !== undefined && !first.startsWith('-')) {
    const names = COMMANDS.map((c) => c.name)
    const near = nearest(first, names)
    process.stderr.write(
      `card-sandbox: unknown command '${first}'${near ? `; did you mean '${near}'?` : ''} ` +
        `(commands: ${names.join(', ')})\n` +
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
    ...helpTable(COMMANDS.map((c) => helpRow(c.usage, c.summary))),
    '',
    'Flags of serve:',
    ...helpTable([...serveCommand.help, helpRow('-h, --help', 'show this help')]),
    '',
  ].join('\n')
}

function helpOf(command: Command): string {
  return [
    `Usage: npx card-sandbox ${command.usage}`,
    '',
    ...wrap(`${command.summary[0].toUpperCase()}${command.summary.slice(1)}.`),
    ...(command.help.length ? ['', 'Flags:', ...helpTable(command.help)] : []),
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

  const { options, pidFile, exitWithParent } = command
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
  const { logger } = sandbox.deps
  logger.log(banner(sandbox, pidFile))
  if (!isLoopback(options.host ?? '127.0.0.1')) logger.log(exposedWarning(options.host!))

  let stopping = false
  const stop = (reason: string) => {
    if (stopping) return
    stopping = true
    logger.log(lifecycle('stopping', `${reason}, finishing in-flight requests…`))
    void sandbox.close().then(() => {
      removePidFile()
      logger.log(lifecycle('stopped', 'stopped'))
      process.exit(0)
    })
  }
  process.once('SIGINT', () => stop('SIGINT received'))
  process.once('SIGTERM', () => stop('SIGTERM received'))
  // `npx card-sandbox & … kill $!` kills npm, not this process
  watchLauncher(env, () => stop('npm, which started it, has gone'))
  if (exitWithParent) {
    // a test runner or a kit killed (SIGKILL too) must not leave the sandbox behind
    watchParent(() => stop('its parent process has gone (--exit-with-parent)'))
    watchStdinEnd(() => stop('its stdin closed (--exit-with-parent)'))
  }
  return 0
}

function lifecycle(event: 'stopping' | 'stopped', text: string): LogLine {
  return {
    event,
    text: `card-sandbox: ${text}`,
    fields: { message: text },
    always: true,
    block: true,
  }
}

function couldNotStart(reason: string): number {
  process.stderr.write(`card-sandbox: could not start: ${reason}\n`)
  return 1
}

/**
 * What the sandbox serves and how it is set up: addresses, never a token or a secret (PRODUCT
 * §10). Pretty, a block of aligned lines; `--log json`, one object with the same facts.
 */
function banner(sandbox: RunningSandbox, pidFile: string | undefined): LogLine {
  const o = sandbox.deps.options
  const urls = {
    api: sandbox.baseUrl,
    dashboard: `${sandbox.url}/__sandbox/ui`,
    docs: `${sandbox.url}/__sandbox/docs`,
    health: `${sandbox.url}/__sandbox/health`,
  }
  const scenarios = o.scenarios.length
    ? sandbox.deps.scenarios.files().map((a) => `${a.scenario.name} (${a.source})`)
    : []
  // [label (pretty), key (JSON), value (JSON), pretty text]; a setting that is off is `false`
  type Setting = [label: string, key: string, value: unknown, shown: string]
  const tokens = o.tokens?.map(maskToken)
  const webhookUrl = o.webhookUrl ? maskUrlPassword(o.webhookUrl) : null
  const secret = o.webhookSecret ? maskToken(o.webhookSecret) : null
  // a PostgreSQL URL may carry a password
  const database = maskUrlPassword(o.db)
  const clock = `${o.clock}${o.clock === 'real' && o.speed !== 1 ? ` ×${o.speed}` : ''}`
  const candidates: (Setting | false)[] = [
    ['API', 'api', urls.api, urls.api],
    ['dashboard', 'dashboard', urls.dashboard, urls.dashboard],
    ['docs', 'docs', urls.docs, urls.docs],
    ['health', 'health', urls.health, urls.health],
    !!o.publicUrl && ['public URL', 'public_url', o.publicUrl, `${o.publicUrl} (wallet_url links)`],
    o.allowedHosts.length > 0 && [
      'also as',
      'allowed_hosts',
      o.allowedHosts,
      o.allowedHosts.join(', '),
    ],
    o.cors.length > 0 && ['CORS', 'cors', o.cors, `${o.cors.join(', ')} (pages there may call it)`],
    ['database', 'database', database, database],
    ['clock', 'clock', o.clock, clock],
    ['quirks', 'quirks', o.quirks, o.quirks ? 'on' : 'off'],
    o.sdkCompat && [
      'sdk compat',
      'sdk_compat',
      true,
      'on (keys the official SDKs read that the real answers lack)',
    ],
    o.rateLimit !== false && [
      'rate limit',
      'rate_limit',
      o.rateLimit,
      `${o.rateLimit} /v1 requests a minute per tenant`,
    ],
    [
      'tokens',
      'tokens',
      tokens ?? null,
      tokens?.join(', ') ?? 'any bearer token (one tenant each)',
    ],
    o.seed !== undefined && ['seed', 'seed', o.seed, String(o.seed)],
    [
      'webhooks',
      'webhook_url',
      webhookUrl,
      webhookUrl ?? 'none by default (PUT /__sandbox/webhook per tenant)',
    ],
    ['signed with', 'webhook_secret', secret, secret ?? "each tenant's bearer token"],
    ['scenarios', 'scenarios', scenarios, scenarios.join(', ') || 'none (magic values only)'],
    ['fixtures', 'fixtures', o.fixtures ?? null, o.fixtures ?? 'none'],
    o.webhookExtensions && [
      'extensions',
      'webhook_extensions',
      true,
      'transaction, payment and disburse events (sandbox only)',
    ],
    !!pidFile && [
      'pid file',
      'pid_file',
      pidFile,
      `${pidFile} (npx card-sandbox stop --pid-file ${pidFile})`,
    ],
  ]
  const settings = candidates.filter((setting): setting is Setting => setting !== false)
  const text = [
    `card-sandbox ${VERSION} listening`,
    ...settings.map(([label, , , shown]) => `  ${label.padEnd(11)} ${shown}`),
    'Press Ctrl-C to stop.',
  ].join('\n')
  const fields = {
    version: VERSION,
    ...Object.fromEntries(settings.map(([, key, value]) => [key, value])),
  }
  return { event: 'listening', text, fields, always: true, block: true }
}

/** Bound to an address others can reach: said at start, each time. */
function exposedWarning(host: string): LogLine {
  return {
    event: 'warning',
    level: 'warn',
    always: true,
    text:
      `listening on ${host}, not loopback: anyone who can reach this machine can call the ` +
      'sandbox with any token (--tokens limits who gets in); the dashboard lists no tenant ' +
      'and shows one only to whoever pastes its token',
    fields: { host, exposed: true },
  }
}
