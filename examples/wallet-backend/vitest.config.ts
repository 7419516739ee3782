/**
 * The example's own vitest config, as a client team would write it: one sandbox for the whole
 * run from card-sandbox's globalSetup. `card-sandbox` resolves to this repository's build (a
 * package may import itself by name), so run `npm run build` first; `npm test` does.
 */
import { defineConfig } from 'vitest/config'

export default defineConfig({
  root: import.meta.dirname,
  test: {
    name: 'wallet-backend',
    include: ['test/**/*.test.ts'],
    globalSetup: ['card-sandbox/vitest'],
  },
})
