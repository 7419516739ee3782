/** card-sandbox/vitest: the globalSetup starts a sandbox, provides its origin, stops it. */
import { describe, expect, it } from 'vitest'
import setup, { optionsFromEnv } from '../src/vitest-setup.js'

describe('card-sandbox/vitest', () => {
  it('provides the origin of a running sandbox with a manual clock, and stops it', async () => {
    const provided: Record<string, string> = {}
    const teardown = await setup({ provide: (key, value) => void (provided[key] = value) })
    const url = provided.cardSandboxUrl
    expect(url).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/)
    const clock = await fetch(`${url}/__sandbox/clock`, { headers: { Authorization: 'Bearer t' } })
    expect(((await clock.json()) as { data: { mode: string } }).data.mode).toBe('manual')
    await teardown()
    await expect(fetch(`${url}/__sandbox/health`)).rejects.toThrow()
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
