/**
 * A mistyped flag or command gets the nearest one ("did you mean"): the built command as a
 * person runs it (`npm test` builds dist/ first). The distance and the choice itself, in this
 * process: suggest.test.ts.
 */
import { spawnSync } from 'node:child_process'
import { describe, expect, it } from 'vitest'

const CLI = new URL('../../dist/bin/card-sandbox.js', import.meta.url).pathname

function cli(args: string[]) {
  const run = spawnSync(process.execPath, [CLI, ...args], {
    encoding: 'utf8',
    // a remote command must fail on its flags before it needs a sandbox or a token
    env: { ...process.env, CARD_SANDBOX_TOKEN: '', CARD_SANDBOX_URL: 'http://127.0.0.1:9' },
    timeout: 10_000,
  })
  return { code: run.status, stdout: run.stdout, stderr: run.stderr }
}

describe('did you mean', () => {
  it('names the flag nearest a mistyped one of serve, and exits 2', () => {
    for (const args of [['--prot', '4010'], ['--prot=4010'], ['serve', '--prot', '4010']]) {
      const run = cli(args)
      expect(run.code, args.join(' ')).toBe(2)
      expect(run.stdout).toBe('')
      expect(run.stderr).toBe(
        "card-sandbox: unknown flag --prot; did you mean --port?\nRun 'npx card-sandbox --help' for the flags.\n",
      )
    }
    expect(cli(['--webhook-secrte', 's']).stderr).toMatch(
      /^card-sandbox: unknown flag --webhook-secrte; did you mean --webhook-secret\?\n/,
    )
  })

  it("names the flag nearest a mistyped one of a command, among that command's own", () => {
    const clock = cli(['clock', 'run-due', '--untill', '2026-01-01T00:00:00Z'])
    expect(clock.code).toBe(2)
    expect(clock.stderr).toBe(
      "card-sandbox clock: unknown flag --untill; did you mean --until?\nRun 'npx card-sandbox help clock'.\n",
    )
    const listen = cli(['listen', '--forward', 'http://127.0.0.1:9/'])
    expect(listen.code).toBe(2)
    expect(listen.stderr).toMatch(
      /^card-sandbox listen: unknown flag --forward; did you mean --forward-to\?\n/,
    )
    const stop = cli(['stop', '--pidfile', 'x.pid'])
    expect(stop.code).toBe(2)
    expect(stop.stderr).toMatch(
      /^card-sandbox: unknown flag --pidfile; did you mean --pid-file\?\n/,
    )
  })

  it('names the command nearest a mistyped one, and exits 2', () => {
    const run = cli(['trigerr', 'card_creation.successful'])
    expect(run.code).toBe(2)
    expect(run.stderr.split('\n')[0]).toBe(
      "card-sandbox: unknown command 'trigerr'; did you mean 'trigger'? (commands: serve, stop, reset, clock, transition, trigger, listen, fixtures, journal, proxy, drift, help)",
    )
    expect(cli(['rest']).stderr).toMatch(
      /^card-sandbox: unknown command 'rest'; did you mean 'reset'\?/,
    )
  })

  it('suggests nothing for a name near none', () => {
    const flag = cli(['--frobnicate'])
    expect(flag.code).toBe(2)
    expect(flag.stderr.split('\n')[0]).toBe('card-sandbox: unknown flag --frobnicate')
    const command = cli(['frobnicate'])
    expect(command.code).toBe(2)
    expect(command.stderr).not.toContain('did you mean')
  })
})
