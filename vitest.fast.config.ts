/**
 * `npm run test:fast`, the edit loop: the tests that run in this process against src/ (unit,
 * domain, engine, webhooks and the in-process HTTP tests through app.request()), with no build.
 * Left out: what spawns a process or runs the built bundle (the CLI, processes, the docs'
 * webhook handler and guide, the container image's settings and compose set-up, bench), the browser, the reliability and security probes, and the examples;
 * `npm test` runs everything.
 *
 * Faster than the full config on the same files: one module graph per worker (isolate: false;
 * each test builds its own sandbox and src/ keeps no module-level state, so nothing leaks from
 * one file to the next), worker threads, and two workers even on two cores (vitest's default
 * would be one), since the webhook and socket tests spend much of their time waiting. Three
 * workers timed out socket tests on a loaded machine.
 */
import { defineConfig } from 'vitest/config'

export default defineConfig({
  test: {
    testTimeout: 20_000,
    pool: 'threads',
    isolate: false,
    maxWorkers: 2,
    include: ['test/**/*.test.ts'],
    exclude: [
      'test/cli/cli.test.ts',
      'test/cli/did-you-mean.test.ts',
      'test/cli/proxy.test.ts',
      'test/scripts/**',
      'test/store/postgres/open.test.ts',
      'test/dockerfile.test.ts',
      'test/compose.test.ts',
      'test/bench.test.ts',
      'test/lib/processes.test.ts',
      'test/webhooks/readme-handler.test.ts',
      'test/guide.test.ts',
      'test/ui/browser.test.ts',
      'test/reliability/**',
      'test/security/**',
    ],
  },
})
