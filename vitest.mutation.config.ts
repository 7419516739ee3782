/**
 * The tests that mutation testing runs (`npm run test:mutation`, stryker.config.mjs): those that
 * drive src/store, src/domain, src/engine, src/webhooks and the request journal in this process.
 * Left out: the browser, bench, crash and CLI tests and the wallet-backend example, which run the
 * built bundle or another process (a mutant in src/ never reaches them), and the fuzz and static
 * checks.
 */
import { defineConfig } from 'vitest/config'

export default defineConfig({
  test: {
    testTimeout: 20_000,
    include: [
      'test/store/**/*.test.ts',
      'test/domain/**/*.test.ts',
      'test/engine/**/*.test.ts',
      'test/webhooks/**/*.test.ts',
      'test/control/**/*.test.ts',
      'test/journal/**/*.test.ts',
      'test/v1/**/*.test.ts',
      'test/http/errors.test.ts',
      'test/ui/hosted-pages.test.ts',
      'test/auth.test.ts',
      'test/lib/masking.test.ts',
      'test/sandbox.test.ts',
      'test/client.test.ts',
      'test/guide.test.ts',
    ],
  },
})
