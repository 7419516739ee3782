/**
 * Mutation testing (`npm run test:mutation`): StrykerJS changes the code of the domain, the
 * engine, the webhooks and the request journal one small edit at a time and checks that some
 * test fails for each. Only the tests that cover a mutant run for it (coverageAnalysis perTest).
 * One directory: `npm run test:mutation -- --mutate 'src/engine/**'`.
 */
export default {
  testRunner: 'vitest',
  vitest: { configFile: 'vitest.mutation.config.ts' },
  coverageAnalysis: 'perTest',
  mutate: [
    'src/store/**/*.ts',
    'src/domain/**/*.ts',
    'src/engine/**/*.ts',
    'src/webhooks/**/*.ts',
    'src/journal/**/*.ts',
    'src/http/middleware/journal.ts',
  ],
  concurrency: 2,
  timeoutMS: 10_000,
  reporters: ['clear-text', 'progress', 'html', 'json'],
  htmlReporter: { fileName: 'reports/mutation/mutation.html' },
  jsonReporter: { fileName: 'reports/mutation/mutation.json' },
  thresholds: { high: 90, low: 80, break: 80 },
  ignorePatterns: ['dist', 'reports', 'bench', 'docs', 'test/artifacts'],
  tempDirName: '.stryker-tmp',
  cleanTempDir: 'always',
}
