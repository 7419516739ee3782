/**
 * card-sandbox/vitest: the globalSetup starts a sandbox, provides its origin, stops it; with
 * CARD_SANDBOX_URL set before the run, it attaches to the sandbox named there instead.
 */
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest'
import { createSandboxClient } from '../../src/clients/client.js'
import { startSandbox } from '../../src/index.js'
import { kitOptions } from '../../src/kits/kit.js'
import setup, { optionsFromEnv } from '../../src/kits/vitest-setup.js'
import { freePort } from '../ports.js'

// this run's own kit (the example project's globalSetup) may have set it for the workers
const urlBefore = process.env.CARD_SANDBOX_URL
beforeEach(() => {
  delete process.env.CARD_SANDBOX_URL
})
afterEach(() => {
  if (urlBefore === undefined) delete process.env.CARD_SANDBOX_URL
  else process.env.CARD_SANDBOX_URL = urlBefore
  delete process.env.CARD_SANDBOX_CLOCK
  delete process.env.CARD_SANDBOX_QUIRKS
  vi.restoreAllMocks()
})

async function clockMode(url: string): Promise<string> {
  const clock = await fetch(`${url}/__sandbox/clock`, { headers: { Authorization: 'Bearer t' } })
  return ((await clock.json()) as { data: { mode: string } }).data.mode
}

describe('card-sandbox/vitest', () => {
  it('provides the origin of a running sandbox with a manual clock, and stops it', async () => {
    const provided: Record<string, string> = {}
    const teardown = await setup({
      provide: (key, value) => void (provided[key] = value as string),
    })
    const url = provided.cardSandboxUrl
    expect(url).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/)
    expect(await clockMode(url)).toBe('manual')
    expect(process.env.CARD_SANDBOX_URL).toBe(url)
    await teardown()
    await expect(fetch(`${url}/__sandbox/health`)).rejects.toThrow()
  })

  it('gives CARD_SANDBOX_URL back when it stops, so the next run starts its own again', async () => {
    const provided: Record<string, unknown> = {}
    const provide = (key: string, value: unknown) => void (provided[key] = value)
    const teardown = await setup({ provide })
    const first = provided.cardSandboxUrl
    expect(provided.cardSandboxAttached).toBe(false)
    await teardown()
    expect(process.env.CARD_SANDBOX_URL).toBeUndefined()
    const second = await setup({ provide })
    expect(provided.cardSandboxUrl).not.toBe(first)
    expect(provided.cardSandboxAttached).toBe(false)
    await second()
  })

  it("takes the options of the config's provide.cardSandboxOptions, under the variables", async () => {
    const provided: Record<string, string> = {}
    const provide = (key: string, value: unknown) => void (provided[key] = value as string)
    const config = { provide: { cardSandboxOptions: { clock: 'real' as const } } }
    const teardown = await setup({ provide, config })
    expect(await clockMode(provided.cardSandboxUrl)).toBe('real')
    await teardown()

    process.env.CARD_SANDBOX_CLOCK = 'manual'
    const second = await setup({ provide, config })
    expect(await clockMode(provided.cardSandboxUrl)).toBe('manual')
    await second()
  })

  it('puts the defaults under the config and the config under the variables, option by option', () => {
    expect(kitOptions({}, {})).toEqual({ port: 0, clock: 'manual', log: 'silent' })
    expect(kitOptions({ seed: 3, log: 'json' }, { CARD_SANDBOX_SEED: '9' })).toEqual({
      port: 0,
      clock: 'manual',
      log: 'json',
      seed: 9,
    })
  })

  it('takes only the CARD_SANDBOX_* variables that are set, parsed as the CLI does', () => {
    expect(optionsFromEnv({})).toEqual({})
    expect(
      optionsFromEnv({
        CARD_SANDBOX_QUIRKS: 'off',
        CARD_SANDBOX_SEED: '7',
        CARD_SANDBOX_WEBHOOK_URL: 'http://127.0.0.1:9/hooks',
        CARD_SANDBOX_SCENARIO: 'a.yaml, b.yaml',
        HOME: '/root',
      }),
    ).toEqual({
      quirks: false,
      seed: 7,
      webhookUrl: 'http://127.0.0.1:9/hooks',
      scenarios: ['a.yaml', 'b.yaml'],
    })
    expect(() => optionsFromEnv({ CARD_SANDBOX_CLOCK: 'sundial' })).toThrow(/clock/)
  })

  it('takes allowed Host names and the public URL from the environment', () => {
    expect(
      optionsFromEnv({
        CARD_SANDBOX_ALLOWED_HOST: 'sandbox, Proxy.Test:8080',
        CARD_SANDBOX_PUBLIC_URL: 'https://sandbox.example.dev',
      }),
    ).toEqual({
      allowedHosts: ['sandbox', 'proxy.test'],
      publicUrl: 'https://sandbox.example.dev',
    })
    expect(() => optionsFromEnv({ CARD_SANDBOX_ALLOWED_HOST: 'http://x.test/' })).toThrow(
      /--allowed-host/,
    )
    expect(() => optionsFromEnv({ CARD_SANDBOX_PUBLIC_URL: 'sandbox:4010' })).toThrow(
      /--public-url/,
    )
  })
})

describe('card-sandbox/vitest with CARD_SANDBOX_URL set before the run', () => {
  it('attaches to the sandbox it names, starting none, and says so first', async () => {
    const running = await startSandbox({ port: 0, clock: 'real' })
    try {
      process.env.CARD_SANDBOX_URL = `${running.url}/v1/`
      const said = vi.spyOn(process.stdout, 'write').mockImplementation(() => true)
      const provided: Record<string, unknown> = {}
      const teardown = await setup({ provide: (key, value) => void (provided[key] = value) })
      const [first] = said.mock.calls.map(([text]) => text)
      said.mockRestore()
      expect(provided).toEqual({ cardSandboxUrl: running.url, cardSandboxAttached: true })
      expect(first).toBe(
        `card-sandbox: attached to the sandbox at ${running.url} (CARD_SANDBOX_URL); starting ` +
          "none. Reset each test's tenant with reset({ clock: 'manual' }) to keep its clock manual.\n",
      )
      expect(process.env.CARD_SANDBOX_URL).toBe(`${running.url}/v1/`)
      // a test's tenant on the attached sandbox: real clocks by default, manual once reset so
      const client = createSandboxClient({ baseUrl: running.url, token: 'attached-suite' })
      expect((await client.clock()).mode).toBe('real')
      await client.reset({ clock: 'manual' })
      expect((await client.clock()).mode).toBe('manual')
      await teardown()
      // not the kit's to stop
      expect((await fetch(`${running.url}/__sandbox/health`)).status).toBe(200)
    } finally {
      await running.close()
    }
  })

  it('refuses server options given in the config or by variables, naming each', async () => {
    process.env.CARD_SANDBOX_URL = 'http://127.0.0.1:9'
    process.env.CARD_SANDBOX_QUIRKS = 'off'
    const config = { provide: { cardSandboxOptions: { seed: 1, sdkCompat: true } } }
    await expect(setup({ provide: () => {}, config })).rejects.toThrow(
      'card-sandbox: CARD_SANDBOX_URL=http://127.0.0.1:9 names a running sandbox: the kit ' +
        'attaches to it and starts none, so it cannot apply the server options given: seed ' +
        '(config), sdkCompat (config), CARD_SANDBOX_QUIRKS (variable). Start that sandbox with ' +
        'them, or unset CARD_SANDBOX_URL to let the kit start its own.',
    )
  })

  it('fails at once when nothing answers there', async () => {
    const dead = `http://127.0.0.1:${await freePort()}`
    process.env.CARD_SANDBOX_URL = `${dead}/`
    await expect(setup({ provide: () => {} })).rejects.toThrow(
      `card-sandbox: CARD_SANDBOX_URL=${dead} names no running sandbox ` +
        '(GET /__sandbox/health: ECONNREFUSED): start it, or unset CARD_SANDBOX_URL to let the ' +
        'kit start its own.',
    )
  })
})
