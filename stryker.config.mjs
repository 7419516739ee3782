/**
 * Mutation testing (`npm run test:mutation`): StrykerJS changes the code of the store, the
 * domain, the engine, the webhooks, the request journal, the HTTP layer, drift, src/lib, the
 * command line and its commands one small edit at a time and checks that some test fails for
 * each. Only the tests that cover a mutant run for it (coverageAnalysis perTest). The whole
 * scope takes hours on two CPUs; one folder at a time, with the tests that drive it
 * (vitest.mutation.config.ts):
 * `MUTATION_TESTS='test/lib/**' npm run test:mutation -- --mutate 'src/lib/**' --concurrency 1`.
 * docs/mutation.md has the folders, their tests and the last scores.
 */
export default {
  testRunner: 'vitest',
  vitest: { configFile: 'vitest.mutation.config.ts' },
  coverageAnalysis: 'perTest',
  mutate: [
    'src/store/**/*.ts',
    // each database's opening, lock and addon, which moved here from src/db (outside the scope)
    // with their tests: the scope stays what it was measured on (docs/mutation.md)
    '!src/store/sqlite/open.ts',
    '!src/store/sqlite/lock.ts',
    '!src/store/sqlite/addon.ts',
    '!src/store/postgres/open.ts',
    '!src/store/postgres/pool.ts',
    'src/domain/**/*.ts',
    'src/engine/**/*.ts',
    'src/webhooks/**/*.ts',
    'src/journal/**/*.ts',
    'src/http/**/*.ts',
    'src/drift/**/*.ts',
    'src/lib/**/*.ts',
    // the command line, its commands (src/cli/commands) among it
    'src/cli/**/*.ts',
    // what the installed command runs and nothing else: importing either runs the command
    '!src/cli/bin.ts',
    '!src/cli/entry.ts',
  ],
  concurrency: 2,
  timeoutMS: 10_000,
  reporters: ['clear-text', 'progress', 'html', 'json'],
  htmlReporter: { fileName: 'reports/mutation/mutation.html' },
  jsonReporter: { fileName: 'reports/mutation/mutation.json' },
  thresholds: { high: 90, low: 80, break: 80 },
  // bench/ stays out but for the wire relay, which the PostgreSQL driver's tests count Parse
  // messages with (test/store/postgres/driver.test.ts): without it that file cannot load
  ignorePatterns: [
    'dist',
    'reports',
    'bench/*',
    '!bench/pg-wire-relay.mjs',
    'docs',
    'test/artifacts',
  ],
  tempDirName: '.stryker-tmp',
  cleanTempDir: 'always',
}
