/**
 * card-sandbox/jest: the globalSetup starts one sandbox with the config's `globals.cardSandbox`
 * options and hands its origin over in CARD_SANDBOX_URL; the globalTeardown stops it. (The
 * installed package under a real Jest run: scripts/check-pack.mjs.)
 */
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest'
import { startSandbox } from '../../src/index.js'
import globalSetup from '../../src/kits/jest.js'
import globalTeardown from '../../src/kits/jest-teardown.js'

// this run's own kit (the example project's globalSetup) may have set it for the workers
const urlBefore = process.env.CARD_SANDBOX_URL
beforeEach(() => {
  delete process.env.CARD_SANDBOX_URL
})
afterEach(async () => {
  await globalTeardown()
  if (urlBefore === undefined) delete process.env.CARD_SANDBOX_URL
  else process.env.CARD_SANDBOX_URL = urlBefore
  vi.restoreAllMocks()
})

describe('card-sandbox/jest', () => {
  it('starts a sandbox with the config globals, exports its origin, and the teardown stops it', async () => {
    await globalSetup({}, { globals: { cardSandbox: { clock: 'real', seed: 4 } } })
    const url = process.env.CARD_SANDBOX_URL
    expect(url).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/)
    const clock = await fetch(`${url}/__sandbox/clock`, { headers: { Authorization: 'Bearer j' } })
    expect(((await clock.json()) as { data: { mode: string } }).data.mode).toBe('real')

    await globalTeardown()
    await expect(fetch(`${url}/__sandbox/health`)).rejects.toThrow()
  })

  it('starts with a manual clock when the config names no option', async () => {
    await globalSetup({}, {})
    const clock = await fetch(`${process.env.CARD_SANDBOX_URL}/__sandbox/clock`, {
      headers: { Authorization: 'Bearer j' },
    })
    expect(((await clock.json()) as { data: { mode: string } }).data.mode).toBe('manual')
  })

  it('attaches to the sandbox CARD_SANDBOX_URL names, and its teardown leaves it running', async () => {
    const running = await startSandbox({ port: 0 })
    try {
      process.env.CARD_SANDBOX_URL = running.url
      const said = vi.spyOn(process.stdout, 'write').mockImplementation(() => true)
      await globalSetup({}, {})
      const [first] = said.mock.calls.map(([text]) => String(text))
      said.mockRestore()
      expect(first).toMatch(/^card-sandbox: attached to the sandbox at http:\/\/127\.0\.0\.1:\d+ /)
      expect(process.env.CARD_SANDBOX_URL).toBe(running.url)
      await globalTeardown()
      expect((await fetch(`${running.url}/__sandbox/health`)).status).toBe(200)
    } finally {
      await running.close()
    }
  })

  it('refuses the config globals with CARD_SANDBOX_URL, starting nothing', async () => {
    process.env.CARD_SANDBOX_URL = 'http://127.0.0.1:9'
    await expect(globalSetup({}, { globals: { cardSandbox: { quirks: false } } })).rejects.toThrow(
      /cannot apply the server options given: quirks \(config\)\./,
    )
    expect(process.env.CARD_SANDBOX_URL).toBe('http://127.0.0.1:9')
  })
})
