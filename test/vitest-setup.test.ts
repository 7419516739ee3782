/** card-sandbox/vitest: the globalSetup starts a sandbox, provides its origin, stops it. */
import { afterEach, describe, expect, it } from 'vitest'
import { kitOptions } from '../src/kits/kit.js'
import setup, { optionsFromEnv } from '../src/kits/vitest-setup.js'

const urlBefore = process.env.CARD_SANDBOX_URL
afterEach(() => {
  if (urlBefore === undefined) delete process.env.CARD_SANDBOX_URL
  else process.env.CARD_SANDBOX_URL = urlBefore
  delete process.env.CARD_SANDBOX_CLOCK
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
