import { defineConfig } from 'vitest/config'

/** The suites that run again with every sandbox on PostgreSQL , when one is named. */
const ON_BOTH_STORES = [
  'test/domain/**/*.test.ts',
  'test/webhooks/**/*.test.ts',
  'test/http/**/*.test.ts',
  'test/journal/**/*.test.ts',
  'test/ui/**/*.test.ts',
]

export default defineConfig({
  test: {
    testTimeout: 20_000,
    projects: [
      { extends: true, test: { name: 'sandbox', include: ['test/**/*.test.ts'] } },
      // CARD_SANDBOX_TEST_PG names the server (test/pg.ts); each sandbox gets a schema of its own
      ...(process.env.CARD_SANDBOX_TEST_PG
        ? [
            {
              extends: true as const,
              test: {
                name: 'postgres',
                include: ON_BOTH_STORES,
                env: { CARD_SANDBOX_TEST_STORE: 'postgres' },
                globalSetup: ['test/pg-global-setup.ts'],
                testTimeout: 60_000,
              },
            },
          ]
        : []),
      // the test-suite kit's example: its own config and globalSetup, against the build
      'examples/wallet-backend/vitest.config.ts',
    ],
  },
})
