/**
 * `npm run lint`: a small rule set that catches bugs, not style (Prettier owns the style). The
 * recommended sets of ESLint and typescript-eslint, a few more rules that have caught or would
 * catch real mistakes here, and, with the TypeScript program, the rules about promises and
 * types that only type information can check: a promise nobody awaits loses its error (on a
 * server: an unhandled rejection; in a test: an assertion that cannot fail).
 */
import js from '@eslint/js'
import { defineConfig } from 'eslint/config'
import globals from 'globals'
import tseslint from 'typescript-eslint'

export default defineConfig(
  {
    ignores: [
      'dist/',
      'dist-before/',
      '**/node_modules/',
      'reports/',
      '.stryker-tmp/',
      'test/artifacts/',
      '.tmp/',
    ],
  },
  {
    files: ['**/*.{ts,js,mjs}'],
    extends: [js.configs.recommended, tseslint.configs.recommended],
    languageOptions: { globals: globals.node },
    rules: {
      eqeqeq: ['error', 'always', { null: 'ignore' }],
      // a `let` read by a closure before its one assignment stays a `let`
      'prefer-const': ['error', { ignoreReadBeforeAssign: true }],
      'no-self-compare': 'error',
      'no-template-curly-in-string': 'error',
      // `const { omitted: _, ...rest } = value` is how a key is left out
      '@typescript-eslint/no-unused-vars': ['error', { ignoreRestSiblings: true }],
      '@typescript-eslint/consistent-type-imports': [
        'error',
        { fixStyle: 'inline-type-imports', disallowTypeAnnotations: false },
      ],
    },
  },
  {
    files: ['**/*.ts'],
    languageOptions: { parserOptions: { project: true, tsconfigRootDir: import.meta.dirname } },
    rules: {
      '@typescript-eslint/no-floating-promises': 'error',
      // an async function handed to a timer or an event (no one to await it) loses its error
      '@typescript-eslint/no-misused-promises': 'error',
      '@typescript-eslint/await-thenable': 'error',
      '@typescript-eslint/only-throw-error': 'error',
      '@typescript-eslint/no-base-to-string': 'error',
      '@typescript-eslint/restrict-plus-operands': 'error',
      '@typescript-eslint/switch-exhaustiveness-check': [
        'error',
        { considerDefaultExhaustiveForUnions: true },
      ],
    },
  },
  {
    // answers are read as loose JSON, as a client team's test reads them
    files: ['test/**', 'examples/**'],
    rules: { '@typescript-eslint/no-explicit-any': 'off' },
  },
)
