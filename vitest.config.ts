import { defineConfig } from 'vitest/config'

export default defineConfig({
  test: {
    testTimeout: 20_000,
    projects: [
      { extends: true, test: { name: 'sandbox', include: ['test/**/*.test.ts'] } },
      // the test-suite kit's example: its own config and globalSetup, against the build
      'examples/wallet-backend/vitest.config.ts',
    ],
  },
})
