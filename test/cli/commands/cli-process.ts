/** The built `card-sandbox` run as a child process, as a person runs it (`npm test` builds it). */
import { spawn } from 'node:child_process'

export const CLI = new URL('../../../dist/bin/card-sandbox.js', import.meta.url).pathname

/** Starts `card-sandbox <args>` against the sandbox at `url` as the tenant `token`. */
export function startCli(
  url: string,
  token: string,
  args: string[],
  env: Record<string, string> = {},
) {
  const child = spawn(process.execPath, [CLI, ...args], {
    env: { ...process.env, CARD_SANDBOX_URL: url, CARD_SANDBOX_TOKEN: token, ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  })
  let stdout = ''
  let stderr = ''
  child.stdout.on('data', (chunk) => (stdout += chunk))
  child.stderr.on('data', (chunk) => (stderr += chunk))
  const done = new Promise<{ code: number | null; stdout: string; stderr: string }>((resolve) =>
    child.once('close', (code) => resolve({ code, stdout, stderr })),
  )
  return { child, done, stdout: () => stdout }
}
