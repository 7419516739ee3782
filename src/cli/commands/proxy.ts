/**
 * `card-sandbox proxy --upstream <base_url>`: the recording proxy (drift/proxy.ts) in front of
 * the real service, until Ctrl-C. One line per exchange on stdout (method, path, status, time,
 * findings), masked as the record file is; a usage error exits 2, a proxy that cannot start 1.
 */
import { parseArgs } from 'node:util'
import { helpRow } from '../help.js'
import { flagErrorMessage } from '../suggest.js'
import { startProxy, type RunningProxy } from '../../drift/proxy.js'
import { hostName, isLoopback } from '../../http/middleware/host-check.js'
import { maskUrlPassword } from '../../lib/masking.js'
import type { Command } from './command.js'
import { UsageError } from './remote.js'

const OPTIONS = {
  upstream: { type: 'string' },
  port: { type: 'string' },
  host: { type: 'string' },
  'allowed-host': { type: 'string', multiple: true },
  record: { type: 'string' },
  timeout: { type: 'string' },
  'mask-personal': { type: 'boolean' },
  cors: { type: 'string' },
} as const

export const proxyCommand: Command = {
  name: 'proxy',
  usage: 'proxy --upstream <url>',
  summary:
    'relay /v1 to the real service, recording each exchange with its secrets masked, until Ctrl-C',
  help: [
    helpRow('--upstream <url>', "the real service's base URL, /v1 included (required)"),
    helpRow('--port <n>', 'port to listen on (default 4010; 0 picks a free one)'),
    helpRow('--host <host>', 'address to bind (default 127.0.0.1: it relays a real key)'),
    helpRow('--allowed-host <name>', 'another Host name it answers to (repeatable), as serve'),
    helpRow('--record <file>', 'append one JSON line per exchange, secrets masked'),
    helpRow('--timeout <ms>', 'how long the upstream has to answer, then 504 (default 30000)'),
    helpRow('--mask-personal', 'mask names, phone, email, id_no, address, bank_id, images too'),
    helpRow('--cors <origin,…|*>', 'let pages on these origins call it, as serve --cors'),
  ],
  run: proxy,
}

async function proxy(args: string[]): Promise<number> {
  const say = (line: string) => process.stderr.write(`card-sandbox proxy: ${line}\n`)
  let options: Parameters<typeof startProxy>[0]
  try {
    const { values, positionals } = parseArgs({
      args,
      strict: true,
      allowPositionals: true,
      options: OPTIONS,
    })
    if (positionals.length) throw new UsageError(`unexpected argument ${positionals[0]}`)
    if (values.upstream === undefined)
      throw new UsageError("needs --upstream <url>, the real service's base URL with /v1")
    if (!/^https?:\/\/\S+$/.test(values.upstream) || !URL.canParse(values.upstream))
      throw new UsageError(`--upstream must be an http(s) URL (got "${values.upstream}")`)
    options = {
      upstream: values.upstream,
      port: whole('port', values.port, 0, 65_535),
      host: values.host,
      allowedHosts: values['allowed-host']?.map((name) => {
        try {
          return hostName(name)
        } catch (error) {
          throw new UsageError(`--allowed-host: ${(error as Error).message}`)
        }
      }),
      record: values.record,
      timeoutMs: whole('timeout', values.timeout, 1, 3_600_000),
      maskPersonal: values['mask-personal'] ?? false,
      cors: values.cors
        ?.split(',')
        .map((origin) => origin.trim())
        .filter(Boolean),
      log: (line) => void process.stdout.write(line + '\n'),
    }
  } catch (error) {
    if (!(error instanceof UsageError) && !isParseError(error)) throw error
    say(`${flagErrorMessage(error, Object.keys(OPTIONS))}\nRun 'npx card-sandbox help proxy'.`)
    return 2
  }

  let running: RunningProxy
  try {
    running = await startProxy(options)
  } catch (error) {
    const { code, message } = error as NodeJS.ErrnoException
    say(
      'could not start: ' +
        (code === 'EADDRINUSE'
          ? `port ${options.port ?? 4010} is already in use (try --port 0)`
          : message),
    )
    return 1
  }
  // a parent that stops reading (a closed pipe) must not crash the proxy on its next line
  process.stdout.on('error', () => {})
  const upstream = maskUrlPassword(options.upstream)
  process.stdout.write(
    `card-sandbox proxy: ${running.baseUrl} → ${upstream}` +
      (options.record ? `, recording to ${options.record}` : ', not recording (--record <file>)') +
      (options.maskPersonal ? ', personal fields masked' : '') +
      '. Ctrl-C stops.\n',
  )
  if (!/\/v1\/?$/.test(new URL(options.upstream).pathname))
    say(
      `--upstream ${upstream} does not end in /v1: /v1/cards goes to ${upstream.replace(/\/+$/, '')}/cards`,
    )
  if (options.host !== undefined && !isLoopback(options.host))
    say(
      `listening on ${options.host}, not loopback: anyone who can reach this machine can send ` +
        `requests to ${upstream} with whatever key the proxy is given`,
    )
  let stopping = false
  const stop = () => {
    if (stopping) return
    stopping = true
    void running.close().then(() => process.exit(0))
  }
  process.once('SIGINT', stop)
  process.once('SIGTERM', stop)
  return 0
}

function whole(flag: string, value: string | undefined, min: number, max: number) {
  if (value === undefined) return undefined
  const n = /^\d+$/.test(value) ? Number(value) : NaN
  if (!(n >= min && n <= max))
    throw new UsageError(`--${flag} must be a whole number from ${min} to ${max} (got "${value}")`)
  return n
}

function isParseError(error: unknown): boolean {
  return (error as { code?: string }).code?.startsWith('ERR_PARSE_ARGS') === true
}
