#!/usr/bin/env node
/**
 * The `card-sandbox` command (PRODUCT §1): flags (or CARD_SANDBOX_* env vars) → startSandbox(),
 * a start-up banner, and a clean shutdown on SIGINT/SIGTERM.
 */
import { FlagError, helpText, parseFlags } from './flags.js'
import { maskToken } from './masking.js'
import { PACKAGE_VERSION as VERSION } from './package-files.js'
import { startSandbox, type RunningSandbox } from './sandbox.js'

export async function main(
  argv: string[],
  env: NodeJS.ProcessEnv,
): Promise<RunningSandbox | undefined> {
  let command
  try {
    command = parseFlags(argv, env)
  } catch (error) {
    if (!(error instanceof FlagError)) throw error
    process.stderr.write(
      `card-sandbox: ${error.message}\nRun 'npx card-sandbox --help' for the flags.\n`,
    )
    process.exitCode = 2
    return
  }
  if (command.kind === 'help') return void process.stdout.write(helpText())
  if (command.kind === 'version') return void process.stdout.write(`${VERSION}\n`)

  const options = command.options
  let sandbox: RunningSandbox
  try {
    sandbox = await startSandbox(options)
  } catch (error) {
    const reason =
      (error as NodeJS.ErrnoException).code === 'EADDRINUSE'
        ? `port ${options.port} is already in use (try --port 0)`
        : (error as Error).message
    process.stderr.write(`card-sandbox: could not start: ${reason}\n`)
    process.exitCode = 1
    return
  }
  // A parent that stops reading (a closed pipe) must not crash the sandbox on its next line.
  process.stdout.on('error', () => {})
  process.stdout.write(banner(sandbox))

  let stopping = false
  const stop = (signal: string) => {
    if (stopping) return
    stopping = true
    process.stdout.write(`card-sandbox: ${signal} received, finishing in-flight requests…\n`)
    void sandbox.close().then(() => {
      process.stdout.write('card-sandbox: stopped\n')
      process.exit(0)
    })
  }
  process.once('SIGINT', () => stop('SIGINT'))
  process.once('SIGTERM', () => stop('SIGTERM'))
  return sandbox
}

/** What the sandbox serves and how it is set up: addresses, never a token or a secret (PRODUCT §10). */
function banner(sandbox: RunningSandbox): string {
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

await main(process.argv.slice(2), process.env)
