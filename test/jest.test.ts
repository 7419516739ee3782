/**
 * card-sandbox/jest: the globalSetup starts one sandbox with the config's `globals.cardSandbox`
 * options and hands its origin over in CARD_SANDBOX_URL; the globalTeardown stops it. (The
 * installed package under a real Jest run: scripts/check-pack.mjs.)
 */
import { afterEach, describe, expect, it } from 'vitest'
import globalSetup from '../src/kits/jest.js'
import globalTeardown from '../src/kits/jest-teardown.js'

const urlBefore = process.env.CARD_SANDBOX_URL
afterEach(async () => {
  await globalTeardown()
  if (urlBefore === undefined) delete process.env.CARD_SANDBOX_URL
  else process.env.CARD_SANDBOX_URL = urlBefore
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
})
